"""Value-elsewhere pairs from the shared training files (training/value_pool.py), with the real spaCy pipeline."""

from __future__ import annotations

import random

import orjson
import pytest

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.tools.corpus_index import CorpusIndex, Passage
from training.reader_cases import NEI, REFUTES, SUPPORTS, by_page
from training.value_pool import clean_swap, near_cue, part_of, pool_pairs, pool_rows, written_claims

CANADA = "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."
PAGES = {
    "Niels_Bohr": (
        "Niels Bohr",
        ["The physicist Niels Bohr received the 1922 Nobel Prize in Physics.", "He was born in Copenhagen, Denmark."],
    ),
    "Ulm": ("Ulm", ["Ulm is a city on the river Danube.", "Its minster was completed in 1890."]),
    "Canada": ("Canada", ["Canada is a country in North America.", CANADA]),
}


def corpus() -> list[Passage]:
    return [
        Passage(f"wiki:{page}:{i}", page, i, title, text, "wiki")
        for page, (title, texts) in PAGES.items()
        for i, text in enumerate(texts)
    ]


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


def pairs_of(nlp, rows: list[dict], seeds=range(4)) -> list[dict]:
    passages = corpus()
    index, pages = CorpusIndex.build(passages), by_page(passages)
    return [p for s in seeds for p in pool_pairs(rows, nlp, index, pages, set(pages), random.Random(s))]


def test_another_value_of_the_evidence_makes_a_refuting_claim(nlp):
    rows = [{"claim": "Ottawa is the capital of Canada.", "evidence": CANADA, "title": "Canada", "origin": "x"}]
    refutes = [p for p in pairs_of(nlp, rows) if p["origin"] == "reader-value-pool-refutes"]
    assert refutes and all(p["label"] == REFUTES and p["evidence"] == CANADA for p in refutes)
    assert {p["claim"] for p in refutes} <= {
        f"{c} is the capital of Canada." for c in ("Toronto", "Montreal", "Vancouver")
    }


def test_every_refuting_pair_has_its_twin_the_claim_as_written_against_the_same_passage(nlp):
    rows = [{"claim": "Ottawa is the capital of Canada.", "evidence": CANADA, "title": "Canada", "origin": "x"}]
    pairs = pairs_of(nlp, rows)
    refutes = [p for p in pairs if p["origin"] == "reader-value-pool-refutes"]
    twins = [p for p in pairs if p["origin"] == "reader-value-pool-supports"]
    assert refutes and len(twins) == len(refutes)
    assert all(p["label"] == SUPPORTS and p["claim"] == "Ottawa is the capital of Canada." for p in twins)
    assert sorted(p["evidence"] for p in twins) == sorted(p["evidence"] for p in refutes)


def test_a_year_named_on_another_page_refutes_beside_the_evidence_and_is_not_enough_info_alone(nlp):
    evidence = "Albert Einstein was born on 14 March 1879 in the Kingdom of Württemberg."
    claim = "The physicist Albert Einstein was born in 1879."
    rows = [{"claim": claim, "evidence": evidence, "title": "Albert Einstein", "origin": "x"}]
    pairs = pairs_of(nlp, rows)
    refutes = [p for p in pairs if p["label"] == REFUTES]
    nei = [p for p in pairs if p["label"] == NEI]
    assert refutes and nei
    for p in refutes:  # the slot is stated (1879) beside a sentence naming the new year in another role
        assert evidence in p["evidence"] and p["claim"] == "The physicist Albert Einstein was born in 1922."
    for p in nei:  # the new year alone, the slot unstated
        assert evidence not in p["evidence"] and "1879" not in p["evidence"] and "born" not in p["evidence"]
        assert p["claim"] == "The physicist Albert Einstein was born in 1922." and "1922" in p["evidence"]


def test_a_claim_whose_value_is_not_in_its_evidence_or_not_bound_makes_nothing(nlp):
    rows = [
        {"claim": "Albert Einstein was born in 1880.", "evidence": "He was born in 1879.", "title": "Albert Einstein", "origin": "x"},
        {"claim": "Linkin Park released an album in 2005.", "evidence": "Linkin Park released an album in 2005 and in 2007.", "title": "Linkin Park", "origin": "x"},
    ]  # fmt: skip
    assert pairs_of(nlp, rows) == []


def test_only_swaps_that_surely_change_the_slot_are_made():
    assert clean_swap("1879", "1921", "DATE")
    assert clean_swap("Toronto", "Ottawa", "GPE")
    assert clean_swap("France", "Egypt", "GPE")
    assert not clean_swap("Cookstown", "UK", "GPE")  # the town is in the country
    assert not clean_swap("Cincinnati", "Ohio", "GPE")  # and in the state
    assert not clean_swap("the North Pole", "Arctic", "LOC")  # a region is never swapped


def test_pool_rows_keep_distinct_supported_claims_outside_the_tuning_part(tmp_path):
    rows = {
        "fever_gold_pairs.jsonl": [
            {"claim": "a", "evidence": "e", "label": "SUPPORTS", "origin": "fever-shared-task-dev-gold"},
            {"claim": "b", "evidence": "e", "label": "SUPPORTS", "origin": "fever-shared-task-dev-gold", "fever_split": "paper_dev"},
            {"claim": "c", "evidence": "e", "label": "REFUTES", "origin": "fever-shared-task-dev-gold"},
        ],
        "claim_evidence_pairs.jsonl": [
            {"claim": "d", "evidence": "e", "title": "None", "label": "SUPPORTS", "origin": "feverous"},
            {"claim": "d", "evidence": "e", "title": "None", "label": "SUPPORTS", "origin": "feverous"},
            {"claim": "f", "evidence": "e", "title": "", "label": "SUPPORTS", "origin": "climate-fever"},
        ],
        "contrastive_pairs.jsonl": [
            {"claim": "g", "evidence": "e", "title": "T", "label": "SUPPORTS", "origin": "vitaminc_real"},
            {"claim": "h", "evidence": "e", "title": "", "label": "SUPPORTS", "origin": "anli_test"},
        ],
    }  # fmt: skip
    (tmp_path / "train").mkdir()
    for name, lines in rows.items():
        (tmp_path / "train" / name).write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    kept = pool_rows(tmp_path)
    assert [(r["claim"], r["title"]) for r in kept] == [("a", ""), ("d", ""), ("g", "T")]
    assert {part_of(r) for r in kept} <= {"train", "validation"}


def test_written_claims_come_from_the_sentences_given(nlp):
    sentences = [Passage("wiki:Ulm:0", "Ulm", 0, "Ulm", "Ulm was founded in 850 by the Franks.", "wiki")]
    written = written_claims([], sentences, nlp)
    assert [(w["claim"], w["origin"], w["passage"]) for w in written] == [
        ("Ulm was founded in 850.", "written-corpus", sentences[0])
    ]


def test_a_value_written_right_after_the_slots_word_is_never_swapped_in():
    born = "Duff Clark Jackson (born July 3, 1953, Freeport, New York) is an American jazz drummer."
    assert near_cue("Freeport", born, {"born", "birth"})  # it may be the slot's own value, inside the claim's town
    assert not near_cue("Toronto", CANADA, {"capital"})  # another role, far from the slot's word
    assert not near_cue("1921", "He was born in 1879. He received the 1921 Nobel Prize.", {"born"})
