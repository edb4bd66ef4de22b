"""Pick labelled pairs of named origins out of a pairs file, as an extra file for ``reader_job prepare``.

A run's mix weighs kinds of pair by repeating files (``prepare --extra-file NAME`` once per repeat). To weigh up
pairs that already sit in the replay file -- the SUPPORTS pairs people wrote, where the claim says in other words
what the evidence says (SciFact, Fool Me Twice, VitaminC, FEVEROUS, Factcheck-Bench) -- this writes those rows to
their own file beside the others:

    python -m training.pick_pairs training/runs/NAME/pairs/pairs_train.jsonl \\
        --origin scifact --origin fool_me_twice_dev --origin vitaminc_real --label SUPPORTS --per-origin 1000 \\
        --seed 23 --out training/runs/RUN/pairs/pairs_train_worded.jsonl

``--years-among N`` keeps only the rows whose claim names a year that its evidence names beside at least N - 1 other
year mentions (a life's span, a founding and a release): the claimed year bound among several, which a reader
trained on pairs where another year fills the slot learns to doubt:

    python -m training.pick_pairs training/runs/NAME/pairs/pairs_train.jsonl --origin fever-gold --origin feverous \
        --origin vitaminc_real --label SUPPORTS --years-among 2 --seed 27 --out training/runs/RUN/pairs/pairs_train_years.jsonl

``--ordinals-among N`` and ``--numbers-among N`` do the same for a claimed rank ("the sixth planet … and the
second-largest") and a claimed count or measure other than a year ("13 games … 2 goals"): the other values a slot
pair puts in the claim's place, stated beside the claimed one.

An origin is matched on the part before ``:`` (``breaking_nli:numbers`` is ``breaking_nli``). Each origin keeps at
most ``--per-origin`` rows, a seeded draw; rows are written in the source file's order, so the same source, options
and seed write the same bytes. An origin named but absent, or one that keeps no row of the labels asked for, is
refused with the origins the file has: a typo must not leave a run's mix silently unchanged.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
ORDINAL = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
    r"fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|[0-9]{1,3}(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)
NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\w)")
FINDERS: dict[str, Callable[[str], list[str]]] = {
    "year": YEAR.findall,
    "ordinal": lambda text: [m.lower() for m in ORDINAL.findall(text)],
    "number": lambda text: [m for m in NUMBER.findall(text) if not YEAR.fullmatch(m)],
}
KINDS = tuple(FINDERS)


def origin_of(row: dict) -> str:
    return str(row.get("origin") or "").split(":")[0]


def mentions(text: str, kind: str) -> list[str]:
    """The ``kind`` values ``text`` names, each mention once, lower-cased: years; ranks (words or 3rd, 21st);
    numbers other than years."""
    return finder(kind)(text)


def finder(kind: str) -> Callable[[str], list[str]]:
    """What finds the mentions of ``kind``; a kind not in :data:`KINDS` is refused with the kinds there are."""
    if kind not in FINDERS:
        raise ValueError(f"a kind of value is one of {', '.join(KINDS)}, not {kind!r}")
    return FINDERS[kind]


def values_among(row: dict, least: int, kind: str = "year") -> bool:
    """Whether every ``kind`` value the claim names is in the evidence, which names at least ``least`` of that kind
    (mentions)."""
    claimed, stated = set(mentions(row["claim"], kind)), mentions(row["evidence"], kind)
    return bool(claimed) and claimed <= set(stated) and len(stated) >= least


def capped(groups: dict, most: int | None, rng: random.Random) -> list[int]:
    """The row numbers of every group (a dict of lists, drawn in its order), at most ``most`` of each by ``rng``,
    sorted: what a seeded sample per group keeps, in file order."""
    kept: list[int] = []
    for members in groups.values():
        kept += members if most is None or len(members) <= most else rng.sample(members, most)
    return sorted(kept)


def pick(
    rows: list[dict],
    origins: list[str],
    labels: list[str],
    per_origin: int | None,
    seed: int,
    among: int = 0,
    kind: str = "year",
) -> list[dict]:
    """The rows of ``origins`` with a label in ``labels`` (and with ``among``, the claimed values of ``kind`` among at
    least that many, :func:`values_among`), at most ``per_origin`` of each origin (seeded), in order."""
    if per_origin is not None and per_origin < 1:
        raise ValueError(f"--per-origin must be at least 1, not {per_origin}")
    if among < 0:
        raise ValueError(f"--{kind}s-among takes 0 (every row) or more, not {among}")
    finder(kind)
    present = collections.Counter(origin_of(row) for row in rows)
    absent = [origin for origin in origins if origin not in present]
    if absent:
        raise ValueError(f"no rows of origin {', '.join(absent)}; the file has: {', '.join(sorted(present))}")
    chosen: dict[str, list[int]] = {origin: [] for origin in origins}
    for i, row in enumerate(rows):
        origin = origin_of(row)
        if origin in chosen and row.get("label") in labels and (not among or values_among(row, among, kind)):
            chosen[origin].append(i)
    empty = [origin for origin, members in chosen.items() if not members]
    if empty:
        shape = f" whose claimed {kind} stands among {among} or more" if among else ""
        raise ValueError(f"origin {', '.join(empty)} has no rows labelled {' or '.join(labels)}{shape}")
    return [rows[i] for i in capped(chosen, per_origin, random.Random(seed))]


def read_sources(parser: argparse.ArgumentParser, out: Path, *sources: Path) -> list[list[dict]]:
    """Each source file's rows, after refusing (one line, through ``parser``) an ``out`` that exists or a source
    that does not: what a builder of an extra file checks before it writes."""
    if out.exists():
        parser.error(f"{out} exists; choose another --out")
    for path in sources:
        if not path.is_file():
            parser.error(f"{path}: no such pairs file")
    return [[json.loads(line) for line in path.open() if line.strip()] for path in sources]


def write_pairs(out: Path, rows: list[dict]) -> None:
    """``rows`` as a pairs file at ``out``, one JSON object a line, its folder made."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, help="a pairs file (claim, evidence, title, label, origin)")
    parser.add_argument("--origin", action="append", required=True, help="an origin to keep (repeat for more)")
    parser.add_argument("--label", action="append", choices=LABELS, help="keep only these labels (default: all)")
    parser.add_argument("--per-origin", type=int, default=None, help="at most this many rows of each origin")
    kinds = parser.add_mutually_exclusive_group()
    for kind, what in (("year", "year"), ("ordinal", "rank (first, 2nd)"), ("number", "number other than a year")):
        kinds.add_argument(
            f"--{kind}s-among",
            type=int,
            default=0,
            metavar="N",
            help=f"keep only rows whose claimed {what} the evidence names among at least N such mentions",
        )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, required=True, help="the file to write (refused if it exists)")
    args = parser.parse_args(argv)
    (rows,) = read_sources(parser, args.out, args.pairs)
    origins = list(dict.fromkeys(args.origin))
    try:
        kind = next((k for k in KINDS if getattr(args, f"{k}s_among")), "year")
        least = getattr(args, f"{kind}s_among")
        kept = pick(rows, origins, list(args.label or LABELS), args.per_origin, args.seed, least, kind)
    except ValueError as error:
        parser.error(f"{args.pairs}: {error}")
    write_pairs(args.out, kept)
    counts = collections.Counter((origin_of(row), row["label"]) for row in kept)
    print(f"{args.out}: {len(kept)} pairs of {len(rows)}")
    for (origin, label), n in sorted(counts.items()):
        print(f"  {origin} {label}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
