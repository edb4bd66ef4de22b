"""Numbers compared as quantities where the grounding reader asks whether a passage holds a claim's values."""

from __future__ import annotations

import pytest

from mermaid_verifier.agents.quantities import found_in, quantities
from mermaid_verifier.agents.slots import ClaimReader


@pytest.mark.parametrize(
    "claim, passage",
    [
        ("Mount Everest is about 8,849 metres high.", "It was measured in 2020 as 8,848.86 m."),
        ("Mount Everest is 8,849 metres high.", "It was measured in 2020 as 8,848.86 m."),  # its rounding
        ("Mount Everest is 29,032 feet high.", "It was measured in 2020 as 8,848.86 m."),  # another unit
        ("The city has over 3 million inhabitants.", "The city had 3,200,000 inhabitants in 2010."),
        ("The city has under 4 million inhabitants.", "The city had 3,200,000 inhabitants in 2010."),
        ("The bridge is 1.5 km long.", "The bridge is 1,480 metres long."),
        ("The lake is between 40 and 50 metres deep.", "The lake is 46 m deep."),
        ("Albert Einstein was born in 1879.", "Albert Einstein (1879–1955) was a physicist."),
        ("The team won 3 titles.", "The team won three titles."),
    ],
)
def test_a_value_written_otherwise_is_found(claim, passage):
    assert ClaimReader.of(claim).missing(passage) == []


@pytest.mark.parametrize(
    "claim, passage, missing",
    [
        ("The city has under 3 million inhabitants.", "The city had 3,200,000 inhabitants in 2010.", "3"),
        ("The city has over 4 million inhabitants.", "The city had 3,200,000 inhabitants in 2010.", "4"),
        ("Albert Einstein was born in 1880.", "Albert Einstein was born on 14 March 1879 in Ulm.", "1880"),
        ("The tower is 330 metres tall.", "The tower is 324 metres tall.", "330"),
        ("The tower is 330 metres tall.", "The tower is 330 kg.", "330"),  # another dimension
        ("The lake is 46 metres deep.", "The lake is 40–50 m deep.", "46"),  # a range states its ends only
    ],
)
def test_another_value_is_not_found(claim, passage, missing):
    assert ClaimReader.of(claim).missing(passage) == [missing]


def test_what_a_quantity_says_of_itself():
    (about,) = quantities("about 8,849 metres")
    assert about.bound == "about" and about.dimension == "length" and about.value == 8849 and about.step == 1
    (scaled,) = quantities("1.5 million people")
    assert scaled.value == 1_500_000 and scaled.step == 100_000 and scaled.dimension is None
    (year,) = quantities("born in 1879 in Ulm")  # "in" after a number is the preposition, not inches
    assert year.dimension is None and found_in(year, quantities("14 March 1879")) is not None
