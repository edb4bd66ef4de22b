"""A passage speaks to a claim's slot only when it is about the claim's subject and states a value of the claim's
kind for the same relation (agents/slots.py): what may contradict a claim in grounding."""

from __future__ import annotations

import pytest

from mermaid_verifier.agents.slots import ClaimReader, speaks_to_slot

SAME_SLOT = [
    ("Mozart was born in London.", "Mozart was born in Salzburg."),
    ("Mozart was born in London.", "Wolfgang Amadeus Mozart (born 27 January 1756 in Salzburg) was a composer."),
    ("The Great Pyramid of Giza is located in Mexico.", "The Great Pyramid of Giza is located in Giza, Egypt."),
    ("The capital of Canada is Toronto.", "Ottawa is the capital city of Canada."),
    ("Smith has two cousins.", "Smith had two cousins and a sister."),
    ("Acme employs 2,000 people.", "It employs 450 people."),
]

OTHER_SLOT = [
    ("Smith has two cousins.", "Smith has two sons."),  # another counted noun
    ("Lucas won two People's Choice Awards.", "Lucas won two Emmy Awards."),  # another award
    ("Stephen King published a 1987 novel.", "The Tommyknockers, his fourth novel (1988), was a bestseller."),
    (
        "The company is listed on the Oslo Stock Exchange.",
        "Acme Robotics employs 450 people. Its headquarters are in Berlin.",
    ),
    ("Mozart was born in London.", "Beethoven was born in Bonn."),  # another subject
]


@pytest.mark.parametrize(("claim", "passage"), SAME_SLOT)
def test_a_passage_stating_the_same_subject_and_relation_speaks_to_the_slot(claim, passage):
    reading = speaks_to_slot(claim, passage)
    assert reading.about_subject and reading.states_slot, reading.reason


@pytest.mark.parametrize(("claim", "passage"), OTHER_SLOT)
def test_a_passage_about_something_else_does_not(claim, passage):
    reading = speaks_to_slot(claim, passage)
    assert not reading.states_slot, reading.reason
    assert reading.reason


def test_the_subject_may_be_named_by_the_title_and_an_indefinite_object_is_existential():
    assert speaks_to_slot("Mozart was born in London.", "He was born in Salzburg.", title="Mozart").states_slot
    other = speaks_to_slot("Beethoven was born in London.", "The composer was born in Salzburg.", title="Mozart")
    assert not other.about_subject and not other.states_slot
    reading = speaks_to_slot("Acme sells a robot.", "Acme sells the Model X robot.")
    assert not reading.states_slot and "existential" in reading.reason


def test_support_needs_the_claims_numbers_dates_and_names():
    reader = ClaimReader.of("Acme opened a factory in Leipzig in 2020 with 300 workers.")
    assert reader.missing("In 2020 Acme opened a second factory in Leipzig. It employs 300 workers.") == []
    assert reader.missing("In 2020 Acme opened a factory in Leipzig.") == ["300"]
    assert reader.missing("Acme opened a factory in Dresden with three hundred workers in 2021.") == [
        "2020",
        "300",
        "Leipzig",
    ]
    assert ClaimReader.of("Acme has two plants.").missing("It runs 2 plants.") == []  # a number word is the number
