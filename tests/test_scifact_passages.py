"""SciFact passage pairs: a stretch with its rationale keeps the label, the same stretch without it is NEI."""

from __future__ import annotations

import random

import pytest

from training import scifact_passages

SENTENCES = [f"Sentence {i} of the abstract says thing number {i}." for i in range(9)]
ABSTRACTS = {"7": {"doc_id": 7, "title": "A study", "abstract": SENTENCES}}


def pairs_for(evidence: dict, cited=("7",), split="train", seed=0):
    record = {"id": 1, "claim": "Thing four holds.", "evidence": evidence, "cited_doc_ids": list(cited)}
    return scifact_passages.passage_pairs([record], ABSTRACTS, {"1": split}, random.Random(seed))


@pytest.mark.parametrize("seed", range(20))
def test_the_rationale_stretch_keeps_its_label_and_the_stretch_without_it_is_not_enough_info(seed):
    rows = pairs_for({"7": [{"sentences": [4], "label": "CONTRADICT"}]}, seed=seed)
    labelled, deleted = rows
    assert labelled["origin"] == "scifact-passage" and labelled["label"] == "REFUTES"
    assert SENTENCES[4] in labelled["evidence"] and labelled["evidence"].count("Sentence") in range(2, 5)
    assert deleted["origin"] == "scifact-passage-deleted" and deleted["label"] == "NOT ENOUGH INFO"
    assert SENTENCES[4] not in deleted["evidence"]
    assert deleted["evidence"] == labelled["evidence"].replace(SENTENCES[4], "").replace("  ", " ").strip()


def test_every_rationale_set_of_the_abstract_is_deleted_not_only_the_one_shown():
    evidence = {"7": [{"sentences": [3], "label": "SUPPORT"}, {"sentences": [4], "label": "SUPPORT"}]}
    for seed in range(20):
        for row in pairs_for(evidence, seed=seed):
            if row["origin"] == "scifact-passage-deleted":
                assert SENTENCES[3] not in row["evidence"] and SENTENCES[4] not in row["evidence"]


def test_a_claim_without_evidence_reads_its_cited_abstract_as_unsettled_and_held_out_claims_give_nothing():
    (row,) = pairs_for({})
    assert row["origin"] == "scifact-passage-unsettled" and row["label"] == "NOT ENOUGH INFO"
    assert 2 <= row["evidence"].count("Sentence") <= 4
    assert pairs_for({"7": [{"sentences": [4], "label": "SUPPORT"}]}, split="held_out") == []


def test_rationales_too_far_apart_or_too_long_make_no_pair():
    assert pairs_for({"7": [{"sentences": [0, 8], "label": "SUPPORT"}]}) == []
    long = {"7": {"doc_id": 7, "title": "A study", "abstract": ["word " * 200] * 3}}
    record = {"id": 1, "claim": "c", "evidence": {"7": [{"sentences": [1], "label": "SUPPORT"}]}, "cited_doc_ids": []}
    assert scifact_passages.passage_pairs([record], long, {"1": "train"}, random.Random(0)) == []
