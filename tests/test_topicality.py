"""Topicality: which evidence items are about what the claim names (hand-checked cases)."""

import pytest

from mermaid_verifier.models import Evidence
from mermaid_verifier.weighing.topicality import Topicality, titled_after_claim


def page(title, text="…"):
    return Evidence(id=title, source="test", title=title, text=text)


@pytest.mark.parametrize(
    ("title", "claim", "entities", "expected"),
    [
        (
            "Tom Baker (English actor)",
            "Tom Baker has narrated audio books.",
            ["Tom Baker"],
            True,
        ),  # disambiguator dropped
        (
            "Middle-earth",
            "Middle-earth was created by J. K. Rowling.",
            ["J. K. Rowling"],
            True,
        ),  # title in claim, no entity
        ("Damon_Albarn", "Albarn's debut album came out in 2011.", ["Albarn"], True),  # entity inside the title
        ("Tim Hill (director)", "Marcus Bentley is a director.", ["Marcus Bentley"], False),
        ("Human", "Humans have had a dramatic effect.", [], False),  # whole words only
        ("", "Anything at all.", ["Anything"], False),
        ('"Freeway" Rick Ross', "Freeway Rick Ross was born in 1960.", ["Freeway Rick Ross"], True),  # quotes dropped
        ("``Weird_Al''_Yankovic", "Weird Al Yankovic is a singer.", [], True),  # FEVER's quotes too
        ("Conan O'Brien", "Conan O'Brien hosted a show.", [], True),  # an apostrophe is part of the name
    ],
)
def test_titled_after_claim(title, claim, entities, expected):
    assert titled_after_claim(page(title), claim, entities) is expected


def test_weights_titled_mentioned_and_off_topic():
    claim, entities = "Marcus Bentley is a director.", ["Marcus Bentley"]
    items = [
        page("Marcus Bentley"),
        page("Big Brother (UK)", "Narrated by Marcus Bentley."),
        page("Tim Hill (director)"),
    ]
    assert Topicality().weights(items, claim, entities) == [1.0, 0.5, 0.0]
    assert Topicality(mention_only=0.75, off_topic=0.25).weights(items, claim, entities) == [1.0, 0.75, 0.25]
    assert Topicality(enabled=False).weights(items, claim, entities) == [1.0, 1.0, 1.0]


def test_nothing_to_match_discounts_nothing():
    """Paper titles never occur in a claim: when no item is about anything the claim names, all count fully."""
    items = [page("Effect of supplementation on fracture risk", "A randomised trial ..."), page("A cohort study")]
    assert Topicality().weights(items, "Supplements reduce fractures in the elderly.", []) == [1.0, 1.0]
