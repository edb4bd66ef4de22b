"""The NOT ENOUGH INFO builders of the stance model's training data (training/nei_pairs.py), on the real spaCy pipeline."""

from __future__ import annotations

import random

import pytest

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from training.nei_pairs import claim_slots, other_claim_pairs, page_other_pairs, settles_nothing, span_removed_pairs


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


def test_slots_leave_out_the_page_name(nlp):
    entities, lemmas = claim_slots(nlp("Soul Food was released by Fox 2000 Pictures."), "Soul Food (film)")
    assert entities == {"fox 2000 pictures"}
    assert "release" in lemmas and "soul" not in lemmas and "food" not in lemmas


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Soul Food stars Vanessa Williams and Vivica A. Fox.", True),  # about the film, not its release
        ("It was released by Fox 2000 Pictures in 1997.", False),  # names the distributor
        ("Fox released the film in 1997.", False),  # shares "Fox" and "release"
    ],
)
def test_settles_nothing(nlp, sentence, expected):
    slots = claim_slots(nlp("Soul Food was released by Fox 2000 Pictures."), "Soul Food (film)")
    assert settles_nothing(sentence, slots) is expected


def test_a_claim_with_no_fact_beyond_its_subject_is_never_paired(nlp):
    assert not settles_nothing("Anything at all.", claim_slots(nlp("Soul Food."), "Soul Food"))


@pytest.mark.parametrize(
    ("claim", "title", "label", "evidence", "gone", "kept"),
    [
        (
            "Soul Food was released by Fox 2000 Pictures.",
            "Soul Food (film)",
            "SUPPORTS",
            "Soul Food is a 1997 American comedy-drama film released by Fox 2000 Pictures.",
            "Fox 2000",
            "Soul Food",
        ),
        (
            "Anne Rice was born in Chicago.",
            "",
            "REFUTES",
            "Anne Rice was born in New Orleans and is an American author of gothic fiction.",
            "New Orleans",
            "Anne Rice",
        ),
    ],
)
def test_span_removal_cuts_the_decisive_span_and_keeps_the_subject(nlp, claim, title, label, evidence, gone, kept):
    rows = span_removed_pairs(
        [{"claim": claim, "title": title, "evidence": evidence, "label": label, "origin": "fever"}], nlp
    )
    assert len(rows) == 1
    cut = rows[0]["evidence"]
    assert rows[0]["label"] == "NOT ENOUGH INFO" and rows[0]["origin"] == "fever-span-removed"
    assert gone not in cut
    assert kept in cut  # what the claim is about is still there


@pytest.mark.parametrize(
    ("claim", "title", "evidence"),
    [
        # the subject is the decisive span: the rule protects subjects, so it makes no pair
        (
            "Fox 2000 Pictures released Soul Food.",
            "Soul Food (film)",
            "Soul Food is a 1997 American comedy-drama film released by Fox 2000 Pictures.",
        ),
        # a claim entity the parser misreads ("Fabian" as a nationality) is still named by the cut: no pair
        (
            "Fabian Nicieza was born on December 3, 1967.",
            "",
            "Fabian Nicieza (born December 3, 1967) is an Argentine-American comic book writer.",
        ),
    ],
)
def test_span_removal_skips_what_it_cannot_cut_safely(nlp, claim, title, evidence):
    row = {"claim": claim, "title": title, "evidence": evidence, "label": "SUPPORTS", "origin": "fever"}
    assert span_removed_pairs([row], nlp) == []


def test_span_removal_skips_evidence_that_still_states_the_fact(nlp):
    row = {
        "claim": "Mogadishu is a capital city.",
        "title": "Mogadishu",
        "label": "SUPPORTS",
        "origin": "fever",
        "evidence": "Mogadishu is the capital and most populous city of Somalia.",
    }
    assert span_removed_pairs([row], nlp) == []  # cutting "city" leaves "the capital"


def test_page_and_other_claim_pairs(nlp):
    records = [
        {
            "claim": "Soul Food was released by Fox 2000 Pictures.",
            "page": "Soul_Food",
            "title": "Soul Food",
            "label": "SUPPORTS",
            "gold_texts": ["Soul Food was released by Fox 2000 Pictures."],
            "origin": "fever-page-other",
        },
        {
            "claim": "Soul Food stars Vanessa Williams.",
            "page": "Soul_Food",
            "title": "Soul Food",
            "label": "SUPPORTS",
            "gold_texts": ["Soul Food stars Vanessa Williams and Vivica A. Fox."],
            "origin": "fever-page-other",
        },
    ]
    page = {
        "Soul_Food": [
            ("Soul Food", "Soul Food was released by Fox 2000 Pictures."),
            ("Soul Food", "Soul Food stars Vanessa Williams and Vivica A. Fox."),
            ("Soul Food", "It was filmed in Chicago over eight weeks."),
        ]
    }
    docs = list(nlp.pipe(r["claim"] for r in records))
    page_rows = page_other_pairs(records, page, docs, random.Random(0))
    assert {(r["claim"], r["evidence"]) for r in page_rows} >= {
        ("Soul Food was released by Fox 2000 Pictures.", "It was filmed in Chicago over eight weeks.")
    }
    assert all(
        r["label"] == "NOT ENOUGH INFO"
        and r["evidence"] not in next(x["gold_texts"] for x in records if x["claim"] == r["claim"])
        for r in page_rows
    )
    other = other_claim_pairs(records, docs, random.Random(0))
    assert {(r["claim"], r["evidence"]) for r in other} == {
        ("Soul Food was released by Fox 2000 Pictures.", "Soul Food stars Vanessa Williams and Vivica A. Fox."),
        ("Soul Food stars Vanessa Williams.", "Soul Food was released by Fox 2000 Pictures."),
    }
