"""The rules that write the stance model's extra training claims (training/augment.py, training/synthesize.py).

They run on the real spaCy pipeline the decomposer ships with, so a parser upgrade that breaks a rule
shows up here rather than as a quietly worse model.
"""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.memory.evidence import without_disambiguator
from training.augment import entity_swap, negation_flip
from training.synthesize import simple_claim, synthetic_pairs


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


def test_without_disambiguator_drops_the_parenthesised_part():
    assert without_disambiguator("Daag (1973 film)") == "Daag"
    assert without_disambiguator("Victoria Falls") == "Victoria Falls"


@pytest.mark.parametrize(
    ("title", "sentence", "claim"),
    [
        (
            "Oreta suffusa",
            "It was described by Francis Walker in 1855.",
            "Oreta suffusa was described by Francis Walker.",
        ),
        (
            "Daag (1973 film)",
            "It is a 1973 Bollywood drama film produced and directed by Yash Chopra, which laid the foundation of Yash Raj Films.",
            "Daag is a 1973 Bollywood drama film.",
        ),
        (
            "Victoria Falls",
            "Victoria Falls (Lozi: Mosi-oa-Tunya) is a waterfall on the Zambezi River in southern Africa.",
            "Victoria Falls is a waterfall on the Zambezi River in southern Africa.",
        ),
    ],
)
def test_simple_claim_keeps_subject_verb_and_first_complement(nlp, title, sentence, claim):
    assert simple_claim(nlp(sentence), title) == claim


@pytest.mark.parametrize(
    "sentence",
    [
        "Rosario Castellanos Figueroa (]; 25 May 1925 – 7 August 1974) was a Mexican poet.",  # broken brackets
        "It was agreed that the two leagues' champion teams would play in the AFL.",  # expletive "it"
        "Founded in 1901.",  # no clause
    ],
)
def test_simple_claim_skips_what_it_cannot_place(nlp, sentence):
    assert simple_claim(nlp(sentence), "Some Page") is None


def test_negation_flip_inserts_and_removes_not(nlp):
    assert negation_flip(nlp("Victoria Falls is a waterfall.")) == "Victoria Falls is not a waterfall."
    assert negation_flip(nlp("Moonlight was not filmed in Miami.")) == "Moonlight was filmed in Miami."


def test_entity_swap_never_puts_a_word_where_a_date_stood(nlp):
    doc = nlp("Entertainment Weekly is an American monthly entertainment magazine.")
    evidence = "Entertainment Weekly is an American monthly entertainment magazine based in New York City."
    pool = {"DATE": ["weekly", "1 July 1937"], "NORP": ["Mexican"]}
    swaps = {entity_swap(doc, evidence, "Entertainment Weekly", pool, random.Random(seed)) for seed in range(10)}
    assert swaps == {"Entertainment Weekly is an Mexican monthly entertainment magazine."}


def test_synthetic_pairs_label_each_kind_and_keep_to_the_given_pages(nlp):
    pages = {
        "Victoria_Falls": [
            ("Victoria Falls", "Victoria Falls is a waterfall on the Zambezi River in Zambia."),
            ("Victoria Falls", "The falls were named after Queen Victoria by David Livingstone."),
        ],
        "Lake_Kariba": [("Lake Kariba", "Lake Kariba is a reservoir on the border of Zambia and Zimbabwe.")],
    }
    pairs = synthetic_pairs(pages, nlp, random.Random(0), max_sentences=10)
    texts = {text for rows in pages.values() for _, text in rows}
    assert all(p["evidence"] in texts for p in pairs)
    labels = {origin: {p["label"] for p in pairs if p["origin"] == origin} for origin in {p["origin"] for p in pairs}}
    assert labels["synthetic"] == {"SUPPORTS"} and labels["synthetic-negated"] == {"REFUTES"}
    assert labels.get("synthetic-swapped", {"REFUTES"}) == {"REFUTES"}
    assert labels.get("synthetic-unsettled", {"NOT ENOUGH INFO"}) == {"NOT ENOUGH INFO"}
    supported = {p["claim"] for p in pairs if p["origin"] == "synthetic"}
    assert supported == {
        "Victoria Falls is a waterfall on the Zambezi River in Zambia.",
        "Lake Kariba is a reservoir on the border of Zambia.",
        "The falls were named after Queen Victoria.",
    }
    for p in pairs:
        if p["origin"] == "synthetic-negated":
            assert " not " in p["claim"] and p["claim"].replace(" not", "") in supported
        if p["origin"] == "synthetic-swapped":
            assert p["claim"] not in supported


def test_synthetic_pairs_stop_at_the_sentence_budget(nlp):
    pages = {"P": [("P", f"P{i} is a village in Poland.") for i in range(6)]}
    pairs = synthetic_pairs(pages, nlp, random.Random(0), max_sentences=2)
    assert len([p for p in pairs if p["origin"] == "synthetic"]) == 2


def test_the_committed_split_decides_the_parts_however_retrieval_ties_fall(tmp_path, monkeypatch):
    """A NOT ENOUGH INFO claim is anchored to retrieval's first page, which another library version can
    change: the pair builders read the parts from the committed split file instead of recomputing them."""
    from training import build_pairs

    (tmp_path / "fever").mkdir()
    rows = [
        {"id": 1, "claim": "Ada Lovelace wrote a program.", "label": "SUPPORTS", "evidence": [[[0, 0, "Ada", 0]]]},
        {
            "id": 2,
            "claim": "Ada Lovelace owned a cat.",
            "label": "NOT ENOUGH INFO",
            "evidence": [[[0, None, None, None]]],
        },
    ]
    (tmp_path / "fever" / "paper_dev.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    split_file = tmp_path / "split.json"
    split_file.write_text(json.dumps({"assignment": {"1": "validation", "2": "train"}}))
    monkeypatch.setattr(build_pairs, "SPLIT_FILE", split_file)

    class Index:
        def search(self, claim, k):
            return [(SimpleNamespace(page="Some_other_page"), 1.0)]

    claims, split, anchors = build_pairs.fever_split(tmp_path, Index())
    assert {str(c.id): split[c.id] for c in claims} == {"1": "validation", "2": "train"}
    assert anchors[claims[1].id] == {"Some_other_page"}
    split_file.write_text(json.dumps({"assignment": {"1": "validation"}}))
    with pytest.raises(SystemExit, match="no part for 1 paper_dev claims"):
        build_pairs.fever_split(tmp_path, Index())
