"""Passage pairs from SciFact abstracts: the same stretch of an abstract with and without its rationale.

The FEVER corpus holds 2.8 sentences a page, so the passage pairs of ``reader_pairs.py`` mostly show a claim its
gold sentence with one neighbour, and few passages with the deciding sentence deleted. A SciFact abstract is a
whole text of about nine sentences, and its rationale sentences are annotated, so it gives matched pairs:

* ``scifact-passage`` -- a stretch of 2-5 consecutive sentences of a cited abstract that holds a whole rationale
  set -> the set's label (SUPPORTS for SUPPORT, REFUTES for CONTRADICT);
* ``scifact-passage-deleted`` -- the same stretch with every rationale sentence of that abstract for the claim
  deleted (at least one sentence left) -> NOT ENOUGH INFO, the counterweight to "the passage that holds the
  gold sentence supports";
* ``scifact-passage-unsettled`` -- a claim SciFact gives no evidence for, against a stretch of 2-4 sentences of
  its cited abstract -> NOT ENOUGH INFO.

Only claims of ``build_pairs.scifact_split``'s train part are used (its held-out part stays unseen), so the
pairs carry SciFact's licence (CC BY-NC 2.0), which the shipped reader already learnt from. Writes
``pairs_train_scifact.jsonl`` into ``--work``; ``reader_job.py prepare --extra-file`` adds it to the passage pairs.
"""

from __future__ import annotations

import collections
import random

import orjson

from training.build_pairs import builder_parser, pair, scifact_split, write_rows

NEI, SUPPORTS, REFUTES = "NOT ENOUGH INFO", "SUPPORTS", "REFUTES"
LABELS = {"SUPPORT": SUPPORTS, "CONTRADICT": REFUTES}
MAX_CHARS = 900
MAX_SENTENCES = 5
OUT_FILE = "pairs_train_scifact.jsonl"


def stretch_around(sentences: list[str], needed: set[int], rng: random.Random) -> list[int] | None:
    """Indices of consecutive sentences holding every index of ``needed`` and 1-3 more, within the limits.

    ``None`` when the needed sentences alone are too far apart or too long, or when no sentence fits beside them
    (the deletion pair needs one)."""
    first, last = min(needed), max(needed)
    if last >= len(sentences) or last - first + 1 > MAX_SENTENCES - 1:
        return None
    span = list(range(first, last + 1))
    extra = rng.randint(1, 3)
    while extra > 0 and len(span) < MAX_SENTENCES:
        sides = [i for i in (span[0] - 1, span[-1] + 1) if 0 <= i < len(sentences)]
        if not sides:
            break
        side = rng.choice(sides)
        grown = sorted([*span, side])
        if len(" ".join(sentences[i] for i in grown)) > MAX_CHARS:
            break
        span, extra = grown, extra - 1
    if len(span) == last - first + 1 or len(" ".join(sentences[i] for i in span)) > MAX_CHARS:
        return None
    return span


def passage_pairs(
    records: list[dict], abstracts: dict[str, dict], split: dict[str, str], rng: random.Random
) -> list[dict]:
    """Every pair of the three kinds above from the train part's claims, in record order."""
    out = []
    for record in records:
        if split[str(record["id"])] != "train":
            continue
        claim, evidence = record["claim"], record.get("evidence") or {}
        for doc_id, rationales in sorted(evidence.items()):
            doc = abstracts.get(str(doc_id))
            if doc is None:
                continue
            sentences = doc["abstract"]
            every_rationale = {i for rationale in rationales for i in rationale["sentences"]}
            for rationale in rationales:
                span = stretch_around(sentences, set(rationale["sentences"]), rng)
                if span is None:
                    continue
                label = LABELS[rationale["label"]]
                out.append(pair(claim, doc["title"], " ".join(sentences[i] for i in span), label, "scifact-passage"))
                rest = [i for i in span if i not in every_rationale]
                if rest:
                    text = " ".join(sentences[i] for i in rest)
                    out.append(pair(claim, doc["title"], text, NEI, "scifact-passage-deleted"))
        if evidence:
            continue
        for doc_id in record.get("cited_doc_ids") or []:
            doc = abstracts.get(str(doc_id))
            if doc is None or len(doc["abstract"]) < 2:
                continue
            sentences = doc["abstract"]
            size = rng.randint(2, min(4, len(sentences)))
            start = rng.randrange(len(sentences) - size + 1)
            while size > 1 and len(" ".join(sentences[start : start + size])) > MAX_CHARS:
                size -= 1
            text = " ".join(sentences[start : start + size])
            if len(text) <= MAX_CHARS:
                out.append(pair(claim, doc["title"], text, NEI, "scifact-passage-unsettled"))
    return out


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    records, split = scifact_split(args.shared)
    with (args.shared / "corpus" / "scifact_abstracts.jsonl").open("rb") as handle:
        abstracts = {str(row["doc_id"]): row for row in map(orjson.loads, handle)}
    rng = random.Random(f"{args.seed}:scifact-passages")
    rows = passage_pairs(records, abstracts, split, rng)
    args.work.mkdir(parents=True, exist_ok=True)
    write_rows(args.work / OUT_FILE, rows, rng)
    print("  claims", len({r["claim"] for r in rows}), dict(collections.Counter(r["origin"] for r in rows)))


if __name__ == "__main__":
    main()
