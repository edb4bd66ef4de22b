"""The hand-written contrast set (tests/data/contrast_pairs.jsonl, described in CONTRAST_PAIRS.md): its
structure and provenance. What the shipped model scores on it is asserted in test_shipped_stance_model.py.

Structure checks run everywhere; the provenance checks (every evidence sentence is in the corpus
word for word, no page is a gold page of a train-part paper_dev claim, and none is an evidence page of
fever/paper_test_rest.jsonl) need ../shared/data.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from .conftest import requires_shared_data

CONTRAST_PAIRS = Path(__file__).parent / "data" / "contrast_pairs.jsonl"
SPLIT_FILE = Path(__file__).resolve().parents[1] / "training" / "splits" / "fever_paper_dev.json"
FIELDS = {"id", "page", "line", "title", "evidence", "true_claim", "false_claim", "edit"}
MIN_PER_KIND = {
    "antonym": 20,
    "comparative": 20,
    "number": 20,
    "date": 20,
    "entity": 20,
    "role": 20,
    "negation": 20,
    "format": 15,
}
HELD_OUT_PARTS = {"validation", "calibration", "test"}


def contrast_pairs() -> list[dict]:
    with CONTRAST_PAIRS.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_contrast_set_has_enough_well_formed_pairs():
    pairs = contrast_pairs()
    assert len(pairs) >= 200
    for pair in pairs:
        assert set(pair) == FIELDS, pair.get("id")
        assert isinstance(pair["line"], int), pair["id"]
        for field in FIELDS - {"line"}:
            assert isinstance(pair[field], str) and pair[field].strip(), (pair["id"], field)
    ids = [pair["id"] for pair in pairs]
    assert len(ids) == len(set(ids))


def test_contrast_pairs_differ_and_are_distinct_claims():
    pairs = contrast_pairs()
    for pair in pairs:
        assert pair["true_claim"].strip() != pair["false_claim"].strip(), pair["id"]
    claims = collections.Counter(claim for pair in pairs for claim in (pair["true_claim"], pair["false_claim"]))
    assert not [claim for claim, n in claims.items() if n > 1]


def test_contrast_set_spreads_over_edit_kinds_and_pages():
    pairs = contrast_pairs()
    kinds = collections.Counter(pair["edit"] for pair in pairs)
    assert set(kinds) <= set(MIN_PER_KIND), kinds
    for kind, minimum in MIN_PER_KIND.items():
        assert kinds[kind] >= minimum, (kind, kinds[kind])
    assert len({pair["page"] for pair in pairs}) >= 80
    sentence_uses = collections.Counter((pair["page"], pair["line"]) for pair in pairs)
    assert max(sentence_uses.values()) <= 2


@pytest.mark.shared_data
def test_contrast_evidence_is_corpus_text_of_held_out_pages():
    corpus_path = requires_shared_data("corpus", "wiki_sentences.jsonl")
    paper_dev = requires_shared_data("fever", "paper_dev.jsonl")
    corpus = {}
    with corpus_path.open(encoding="utf-8") as lines:
        for row in map(json.loads, lines):
            corpus[(row["page"], row["line"])] = row
    assignment = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))["assignment"]
    train_pages = set()
    with paper_dev.open(encoding="utf-8") as lines:
        for claim in map(json.loads, lines):
            if assignment.get(str(claim["id"])) == "train":
                train_pages |= {e[2] for group in claim["evidence"] for e in group if e[2] is not None}

    # paper_test_rest is an untouched test part: only the page names of its evidence are read here
    rest_pages = set()
    rest_path = requires_shared_data("fever", "paper_test_rest.jsonl")
    with rest_path.open(encoding="utf-8") as lines:
        for claim in map(json.loads, lines):
            rest_pages |= {e[2] for group in claim["evidence"] for e in group if e[2] is not None}

    for pair in contrast_pairs():
        row = corpus.get((pair["page"], pair["line"]))
        assert row is not None, pair["id"]
        assert row["text"] == pair["evidence"], pair["id"]
        assert row["title"] == pair["title"], pair["id"]
        assert pair["page"] not in train_pages, pair["id"]
        assert pair["page"] not in rest_pages, pair["id"]
