"""Place pairs (training/place_pairs.py): a capital named beside the largest cities, claimed of one of them."""

from __future__ import annotations

import random

from training.place_pairs import CITIES, Place, geonames_places, part_of, place_pairs
from training.reader_cases import NEI, REFUTES, SUPPORTS


def _city(name: str, country: str, population: int) -> dict:
    return {"name": name, "countrycode": country, "population": population}


COUNTRIES = {
    "CA": {"name": "Canada", "iso": "CA", "capital": "Ottawa"},
    "KE": {"name": "Kenya", "iso": "KE", "capital": "Nairobi"},
    "XX": {"name": "Nowhere", "iso": "XX", "capital": ""},  # no capital: left out
    "YY": {"name": "Smallland", "iso": "YY", "capital": "Tiny"},  # too few other cities: left out
}
CITIES_ROWS = {
    str(n): row
    for n, row in enumerate(
        [
            _city("Toronto", "CA", 2_600_000),
            _city("Montreal", "CA", 1_600_000),
            _city("Vancouver", "CA", 600_000),
            _city("Calgary", "CA", 1_000_000),
            _city("Ottawa", "CA", 800_000),
            _city("Nairobi", "KE", 2_750_000),
            _city("Mombasa", "KE", 800_000),
            _city("Kisumu", "KE", 400_000),
            _city("Nakuru", "KE", 300_000),
            _city("Tiny", "YY", 20_000),
            _city("Tinier", "YY", 16_000),
        ]
    )
}


def test_each_country_keeps_its_capital_rank_and_most_populous_cities():
    places = {p.name: p for p in geonames_places(COUNTRIES, CITIES_ROWS)}
    assert set(places) == {"Canada", "Kenya"}
    assert places["Canada"] == Place("Canada", "Ottawa", ("Toronto", "Montreal", "Calgary"), 3)
    assert places["Kenya"] == Place("Kenya", "Nairobi", ("Mombasa", "Kisumu", "Nakuru"), 0)


def _pairs(place: Place, seed: int = 3) -> list[dict]:
    pool = ["Lyon", "Nice", "Ottawa", "Nairobi", *place.cities]
    return place_pairs([place], pool, random.Random(seed))


def test_a_named_city_claimed_to_be_the_capital_is_refuted_where_the_capital_is_stated():
    for seed in range(20):
        place = Place("Canada", "Ottawa", ("Toronto", "Montreal", "Calgary"), 3)
        stated = [p for p in _pairs(place, seed) if "Ottawa" in p["evidence"] and "capital" in p["evidence"]]
        assert stated, seed
        for pair in stated:
            claim = pair["claim"]
            capital_claim = "capital" in claim
            if capital_claim and "Ottawa" in claim:
                assert pair["label"] == SUPPORTS
            elif capital_claim:
                assert pair["label"] == REFUTES, pair
            if pair["origin"] == "reader-place-refutes-named":
                named = claim.replace("The capital city of Canada is ", "").replace("The capital of Canada is ", "")
                named = named.split(" is the capital")[0].removesuffix(".")
                assert named in pair["evidence"] and named in place.cities


def test_where_the_capital_is_not_stated_no_city_is_claimed_the_capital_either_way():
    place = Place("Kenya", "Nairobi", ("Mombasa", "Kisumu", "Nakuru"), 0)
    for seed in range(20):
        unstated = [p for p in _pairs(place, seed) if "capital" not in p["evidence"]]
        assert unstated
        for pair in unstated:
            if "capital" in pair["claim"]:
                assert pair["label"] == NEI, pair
            else:
                assert pair["label"] == SUPPORTS, pair
                city = pair["claim"].split(" is ")[0]
                assert city in pair["evidence"]


def test_what_a_passage_says_of_the_cities_is_so_by_population():
    # Kenya's capital is its largest city: no form calls another city the largest or lists cities without it as the
    # largest; Canada's capital is fourth: a form may list the three largest without it
    kenya = Place("Kenya", "Nairobi", ("Mombasa", "Kisumu", "Nakuru"), 0)
    for seed in range(30):
        for pair in _pairs(kenya, seed):
            if pair["claim"].endswith("is the largest city of Kenya."):
                assert pair["label"] == (SUPPORTS if pair["claim"].startswith("Nairobi") else REFUTES), pair
            assert "its largest cities are Mombasa" not in pair["evidence"]
    canada = Place("Canada", "Ottawa", ("Toronto", "Montreal", "Calgary"), 1)  # a capital second: never "listed"
    for seed in range(30):
        for pair in _pairs(canada, seed):
            assert "largest cities are Toronto" not in pair["evidence"]
            assert "followed by Montreal" not in pair["evidence"]


def test_held_out_probe_places_and_hash_buckets_are_never_trained_on():
    assert part_of(Place("Canada", "Ottawa", ("Toronto", "Montreal", "Calgary"), 4)) == "validation"
    parts = {part_of(Place(f"Place{n}", "X", ("A", "B", "C"), 0)) for n in range(200)}
    assert parts == {"train", "validation"}


def test_the_build_repeats_for_a_seed():
    places = [
        Place("Kenya", "Nairobi", ("Mombasa", "Kisumu", "Nakuru"), 0),
        Place("Canada", "Ottawa", ("Toronto", "Montreal", "Calgary"), 4),
    ]
    pool = ["Lyon", "Nice", "Ottawa", "Nairobi", "Toronto", "Montreal", "Calgary", "Mombasa", "Kisumu", "Nakuru"]
    first = place_pairs(places, pool, random.Random(5))
    assert first == place_pairs(places, pool, random.Random(5))
    assert len(first) >= 2 * 2 * CITIES
