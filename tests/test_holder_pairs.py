"""Holder pairs (training/holder_pairs.py): a single-valued slot given to one subject, claimed of another."""

from __future__ import annotations

import random

import pytest

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from training.holder_pairs import find_slot, holder_pairs, part_of, sentences_of, slots_in
from training.reader_cases import NEI, REFUTES, SUPPORTS

CANADA = "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."
CAST_AWAY = (
    "Cast Away is a 2000 American survival drama film directed by Robert Zemeckis and starring Tom Hanks, "
    "Helen Hunt, and Nick Searcy."
)
CHINATOWN = "Chinatown is a 1974 American neo-noir mystery film directed by Roman Polanski."
FROZEN = "Frozen is a 2013 American animated film directed by Chris Buck and Jennifer Lee."
KENYA = "Kenya's capital and largest city is Nairobi, and its official languages are English and Swahili."
ONTARIO = "Toronto is the capital city of the Canadian province of Ontario."
MUMBAI = "Mumbai, also known as Bombay, is the capital city of the Indian state of Maharashtra."
LANDON = "Happy Death Day is a 2017 American slasher film directed by Christopher Landon."
JAWS = "Jaws is a 1975 American thriller film directed by Steven Spielberg."


def slot_of(sentence: str, title: str = "", passage: str | None = None):
    return find_slot(sentence, title, passage if passage is not None else sentence)


def claims(slot) -> list[str]:
    return [form.format(h="Z", p=slot.place) for form in slot.forms]


def test_a_capital_stated_three_ways():
    slot = slot_of(CANADA, "Canada")
    assert (slot.holder, slot.place) == ("Ottawa", "Canada")
    assert claims(slot) == ["Z is the capital of Canada.", "The capital of Canada is Z."]
    assert slot.loose_claim("Z") == "Z is a city of Canada."
    slot = slot_of("Raleigh is the capital of the U.S. state of North Carolina and the county seat of Wake County.")
    assert (slot.holder, slot.place) == ("Raleigh", "the U.S. state of North Carolina")
    slot = slot_of("Born in Bonn, then the capital of the Electorate of Cologne, Beethoven displayed his talents.")
    assert (slot.holder, slot.place) == ("Bonn", "the Electorate of Cologne")
    assert claims(slot)[0] == "Z was the capital of the Electorate of Cologne."


def test_ordinals_and_superlatives_name_one_holder():
    slot = slot_of("A Game of Thrones is the first novel in A Song of Ice and Fire, a series by George R. R. Martin.")
    assert (slot.holder, slot.place, slot.kind) == ("A Game of Thrones", "A Song of Ice and Fire", "novel")
    assert claims(slot)[0] == "Z is the first novel in A Song of Ice and Fire."
    assert slot.loose_claim("Z") == "Z is a novel in A Song of Ice and Fire."
    slot = slot_of("It is the third and final installment of the Gears of War series.", "Gears of War 3")
    assert slot.holder == "Gears of War 3" and slot.place == "the Gears of War series"
    assert slot.loose_claim("Z") is None  # "Z is an and final installment" is no claim


def test_what_is_not_a_single_valued_slot_is_left():
    # a qualified superlative: the claim without "to do so" or "since 1954" would say more than the passage
    assert slot_of("Nantucket County, the last county in Massachusetts to do so, reported its first case.") is None
    assert (
        slot_of("It was also the first race in Switzerland since 1954, thanks to an amendment.", "Zürich ePrix") is None
    )
    # an office held in the past does not exclude others; in the present it does
    assert slot_of("Ed Koch was the mayor of New York City.") is None
    assert slot_of("Eric Adams is the mayor of New York City.").holder == "Eric Adams"
    # an appositive after "of" belongs to an earlier noun
    assert (
        slot_of("Mirny was a sloop-of-war of the Imperial Russian Navy, the second ship of the First Expedition.")
        is None
    )
    assert slot_of("The Faisal Mosque is a mosque in Islamabad.") is None


def test_a_pronoun_is_the_page_only_where_it_opens_the_passage():
    first = "It is the capital of the province of Fars."
    assert slot_of(first, "Shiraz").holder == "Shiraz"
    passage = "Shiraz is Iran's sixth most populous city. " + first
    assert find_slot(first, "Iran", passage) is None  # "It" is Shiraz here, not the page Iran


def test_makers_of_a_work():
    slot = slot_of(CAST_AWAY, "Cast Away")
    assert (slot.holder, slot.co_holders, slot.place, slot.kind) == (
        "Robert Zemeckis",
        ("Robert Zemeckis",),
        "Cast Away",
        "directed",
    )
    assert claims(slot) == ["Z directed Cast Away.", "Cast Away was directed by Z."]
    assert slot.loose_claim("Z") == "Z starred in Cast Away."
    assert slot.loose_holders == ("Tom Hanks", "Helen Hunt", "Nick Searcy")
    slot = slot_of("Moby-Dick is an 1851 novel by American writer Herman Melville.")
    assert (slot.holder, claims(slot)[0], slot.loose) == ("Herman Melville", "Z wrote Moby-Dick.", None)
    slot = slot_of(FROZEN)
    assert slot.co_holders == ("Chris Buck", "Jennifer Lee") and slot.loose_holders == ()


def test_sentences_split_but_not_at_initials():
    assert sentences_of("He is the only child of Doris M. L. Dupree. He was born in Dartford.") == [
        "He is the only child of Doris M. L. Dupree.",
        "He was born in Dartford.",
    ]


DIRECTORS = {"Roman Polanski", "Chris Buck", "Jennifer Lee", "Steven Spielberg", "Christopher Landon"}
DIRECTORS |= {"Christopher B. Landon"}


@pytest.fixture(scope="module")
def pairs():
    items = [
        ("Canada", CANADA, None),
        ("Ottawa", "Ottawa is the capital city of Canada.", None),
        ("Wellington", "Wellington is the capital of New Zealand.", None),
        ("Canberra", "Canberra is the capital city of Australia.", None),
        ("Cast Away", CAST_AWAY, None),
        ("Chinatown", CHINATOWN, None),
        ("Frozen", FROZEN, None),
        ("Jaws", JAWS, None),
        ("Mumbai", MUMBAI, None),
        ("Toronto", ONTARIO, None),
        ("Happy Death Day", LANDON, None),
        ("The Marked Ones", "The Marked Ones is a 2014 American film directed by Christopher B. Landon.", None),
        # a SUPPORTS claim's slot, read from the claim with its evidence
        ("Kenya", KENYA, "Nairobi is the capital of Kenya."),
    ]
    slots = slots_in(items)
    return [pair for seed in range(8) for pair in holder_pairs(slots, load_pipeline(), random.Random(seed))]


def test_the_pairs(pairs):
    by_claim = {(p["claim"], p["evidence"]): p["label"] for p in pairs}
    # the claim's subject named in the passage in another role: refuted
    named = {(p["claim"], p["label"]) for p in pairs if p["origin"] == "reader-holder-refutes-named"}
    assert named & {("Toronto is the capital of Canada.", REFUTES), ("The capital of Canada is Toronto.", REFUTES)}
    assert {c for c, _ in named if "Cast Away" in c} <= {
        f"{actor} directed Cast Away." for actor in ("Tom Hanks", "Helen Hunt", "Nick Searcy")
    } | {f"Cast Away was directed by {actor}." for actor in ("Tom Hanks", "Helen Hunt", "Nick Searcy")}
    # every way of claiming the slot for its holder is supported
    assert by_claim[("Robert Zemeckis directed Cast Away.", CAST_AWAY)] == SUPPORTS
    assert by_claim[("Cast Away was directed by Robert Zemeckis.", CAST_AWAY)] == SUPPORTS
    assert by_claim[("Ottawa is the capital of Canada.", CANADA)] == SUPPORTS
    assert by_claim[("Nairobi is the capital of Kenya.", KENYA)] == SUPPORTS
    # the loose claim is true of a name the passage gives it to: the loose wording alone never decides
    cast = {p["claim"] for p in pairs if p["origin"] == "reader-holder-loose-supports"}
    assert cast and cast <= {f"{actor} starred in Cast Away." for actor in ("Tom Hanks", "Helen Hunt", "Nick Searcy")}
    assert all(by_claim[(claim, CAST_AWAY)] == SUPPORTS for claim in cast)
    # another holder of the kind, unnamed: refuted for the slot, not settled for the loose claim
    for (claim, evidence), label in by_claim.items():
        if claim.endswith("directed Cast Away.") and evidence == CAST_AWAY and label == REFUTES:
            assert claim.split(" directed")[0] in DIRECTORS | {"Tom Hanks", "Helen Hunt", "Nick Searcy"}
        if claim.endswith("starred in Cast Away."):
            assert label == (SUPPORTS if claim.split(" starred")[0] in CAST_AWAY else NEI)
    # a co-holder is never claimed against the slot it shares
    assert ("Jennifer Lee directed Frozen.", FROZEN) not in {k for k, v in by_claim.items() if v == REFUTES}
    assert all(not (p["label"] == REFUTES and "Ottawa" in p["claim"] and "Canada" in p["claim"]) for p in pairs)
    # the holder's slot of another place: the passage does not say
    place = {(p["claim"], p["label"]) for p in pairs if p["origin"] == "reader-holder-nei-place"}
    own = [p["claim"] for p in pairs if p["origin"] == "reader-holder-nei-place" and p["evidence"] == ONTARIO]
    assert {c for c, label in place if label == NEI and c.startswith("Toronto is the capital")} >= {
        "Toronto is the capital city of Canada."
    } or ("The capital city of Canada is Toronto.", NEI) in place
    assert all(label == NEI for _, label in place)
    assert own and not [c for c in own if "Ontario" in c]  # never its own place
    # nor another name of the holder: written before the slot (an alias), or a longer form of it
    assert not [p for p in pairs if p["label"] == REFUTES and "Bombay" in p["claim"]]
    assert [p for p in pairs if p["evidence"] == LANDON and p["label"] == REFUTES]
    assert not [p for p in pairs if p["evidence"] == LANDON and p["label"] == REFUTES and "Landon" in p["claim"]]


def test_parts_follow_the_place():
    canada = slot_of(CANADA, "Canada")
    other = slot_of("Toronto is the capital of Canada.", "Toronto")
    assert part_of(canada) == part_of(other)
    assert {part_of(slot_of(f"X{i} is the capital of Place{i}.")) for i in range(60)} == {"train", "validation"}
