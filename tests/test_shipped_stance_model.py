"""The shipped stance model against the figures reported for it (data/stance_model/MODEL_CARD.md), with a
margin: the hand-written contrast set through the judge (no search), and a slice of VitaminC held out by
page (needs ../shared/data). A model or judge that falls below them fails here, not in a benchmark."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mermaid_verifier.evaluation.given_evidence import GivenEvidenceJudge
from mermaid_verifier.reader.stance import StanceModel
from mermaid_verifier.tools.corpus_index import clean_fever_text

from .conftest import requires_shared_data

CONTRAST_PAIRS = Path(__file__).parent / "data" / "contrast_pairs.jsonl"
STANCE_LABEL = {"supports": "SUPPORTS", "refutes": "REFUTES", "neutral": "NOT ENOUGH INFO"}


def test_the_contrast_set_reads_as_reported():
    judge = GivenEvidenceJudge(stance=StanceModel())
    rows = [json.loads(line) for line in CONTRAST_PAIRS.open()]
    right = confirmed = 0
    for row in rows:
        passages = [(row["title"], row["evidence"])]
        true, false = judge.verdict(row["true_claim"], passages), judge.verdict(row["false_claim"], passages)
        right += (true.label.value == "SUPPORTS") + (false.label.value == "REFUTES")
        confirmed += false.label.value == "SUPPORTS" and false.confidence > 0.8
    assert right / (2 * len(rows)) >= 0.850  # reported 0.860
    assert confirmed <= 56  # reported 53 false twins confirmed above 0.8


def vitaminc_held_out_slice(path: Path) -> list[dict]:
    """The VitaminC pairs of the pages training/build_pairs.py holds out (title hash bucket 0-9 of 100)."""
    rows = []
    for line in path.open():
        row = json.loads(line)
        key = f"vitaminc:{row['title']}".encode()
        if row["origin"] == "vitaminc_real" and int(hashlib.sha1(key).hexdigest(), 16) % 100 < 10:
            rows.append(row)
    return rows


def test_a_vitaminc_slice_held_out_by_page_reads_as_reported():
    """Every sixth pair of the held-out slice (518 of 3,106), so that the suite stays short: the int8 model
    reads 0.739 of them right by argmax (0.732 of another third of the slice; the model card's table)."""
    rows = vitaminc_held_out_slice(requires_shared_data("train", "contrastive_pairs.jsonl"))[::6]
    model = StanceModel()
    right = 0
    for row in rows:
        evidence = [(row["title"], clean_fever_text(row["evidence"]))]
        probabilities = model.probabilities(clean_fever_text(row["claim"]), evidence)[0]
        right += STANCE_LABEL[max(probabilities, key=probabilities.get)] == row["label"]
    assert len(rows) > 500
    assert right / len(rows) >= 0.725
