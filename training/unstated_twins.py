"""A NOT ENOUGH INFO twin for each SUPPORTS pair: the same evidence, the claim with a second statement it does not
make, as an extra file for ``reader_job prepare``.

Weighing up the SUPPORTS pairs people wrote (``training/pick_pairs.py``) raises a reader's P(supports) of every
claim worded loosely against its evidence, the unsupported ones too: it learns how loose a wording may be, not
which loose wording the evidence backs. A long answer sentence that is half backed is the case it then misses.
Each twin here holds the SUPPORTS pair's evidence and title, and a claim that joins to the pair's claim, with
"and", another true claim -- the claim of a SUPPORTS pair on the same page (title), else of the same origin that
shares at least two content words with the pair's claim, so that the twin stays on its topic -- most of whose content words the
evidence and the first claim lack:

    python -m training.unstated_twins training/runs/RUN/pairs/pairs_train_worded.jsonl \\
        --pool training/runs/NAME/pairs/pairs_train.jsonl --seed 24 --out training/runs/RUN/pairs/pairs_train_twins.jsonl

Twins are labelled NOT ENOUGH INFO with the origin ``unstated-twin:ORIGIN``. The draw is seeded and the rows
follow the first file's order, so the same files, options and seed write the same bytes. A pair with no
partner that passes the test gets no twin; the command says how many.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

from training.pick_pairs import origin_of, read_sources, write_pairs

NEI = "NOT ENOUGH INFO"
MAX_CLAIM_CHARS = 400
FROM_ORIGIN = 1000  # partners drawn from the origin when the page has none that passes
# a partner's first word lowercased after "and" (a name keeps its capital)
LOWERED = {"a", "an", "the", "it", "its", "this", "these", "there", "in", "on", "he", "she", "they", "his", "her"}


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP_WORDS and len(w) > 2}


def unstated(partner: str, claim: str, evidence: str) -> bool:
    """At least two of the partner's content words, and at least half of them, are in neither the evidence nor the
    claim: the joined statement is not one the evidence makes."""
    words = content_words(partner)
    missing = words - content_words(evidence) - content_words(claim)
    return len(missing) >= 2 and 2 * len(missing) >= len(words)


def joined(claim: str, partner: str) -> str:
    first, _, rest = partner.strip().partition(" ")
    if first.lower() in LOWERED:
        first = first.lower()
    return f"{claim.strip().rstrip('. ')}, and {first} {rest}".rstrip(" .") + "."


def twins(rows: list[dict], pool: list[dict], seed: int) -> list[dict]:
    """One twin for each row a partner passes for, in the rows' order; every row must be a SUPPORTS pair."""
    wrong = [i for i, row in enumerate(rows, 1) if row.get("label") != "SUPPORTS"]
    if wrong:
        raise ValueError(f"twins are made of SUPPORTS pairs; line {wrong[0]} is not ({len(wrong)} such lines)")
    by_origin: dict[str, list[str]] = collections.defaultdict(list)
    by_page: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for row in pool:
        if row.get("label") == "SUPPORTS":
            by_origin[origin_of(row)].append(row["claim"])
            if row.get("title"):
                by_page[(origin_of(row), row["title"])].append(row["claim"])
    rng = random.Random(seed)
    out = []
    for row in rows:
        origin, claim, evidence = origin_of(row), row["claim"], row["evidence"]
        page = by_page.get((origin, row.get("title") or ""), [])
        everyone = by_origin.get(origin, [])
        topic = content_words(claim)
        near = [p for p in rng.sample(everyone, min(FROM_ORIGIN, len(everyone))) if len(content_words(p) & topic) >= 2]
        partners = (p for p in rng.sample(page, len(page)) + near if p != claim and unstated(p, claim, evidence))
        twin = first_twin(row, partners, NEI, "unstated-twin")
        if twin is not None:
            out.append(twin)
    return out


def first_twin(row: dict, partners: Iterable[str], label: str, kind: str) -> dict | None:
    """The pair's twin: its evidence and title, its claim joined to the first of ``partners`` that keeps the claim
    within :data:`MAX_CLAIM_CHARS`, labelled ``label``, with the origin ``KIND:ORIGIN``; None if none does."""
    for partner in partners:
        text = joined(row["claim"], partner)
        if len(text) <= MAX_CLAIM_CHARS:
            return {
                "claim": text,
                "title": row.get("title") or "",
                "evidence": row["evidence"],
                "label": label,
                "origin": f"{kind}:{origin_of(row)}",
            }
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, help="SUPPORTS pairs (claim, evidence, title, label, origin)")
    parser.add_argument("--pool", type=Path, required=True, help="the pairs file partners are drawn from")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, required=True, help="the file to write (refused if it exists)")
    args = parser.parse_args(argv)
    rows, pool = read_sources(parser, args.out, args.pairs, args.pool)
    try:
        made = twins(rows, pool, args.seed)
    except ValueError as error:
        parser.error(f"{args.pairs}: {error}")
    write_pairs(args.out, made)
    print(f"{args.out}: {len(made)} twins of {len(rows)} pairs ({len(rows) - len(made)} without a partner)")
    for origin, n in sorted(collections.Counter(row["origin"] for row in made).items()):
        print(f"  {origin}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
