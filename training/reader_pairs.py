"""Passage pairs for the stance reader: "does not say" against "says otherwise", and sentences read together.

The single-sentence pairs of ``build_pairs.py`` teach the reader one sentence at a time. Read over a
passage, it takes text that mentions the claim's subject but not the claim's fact for a contradiction,
misses some plain contradictions, and misses support spread over two sentences. Every pair here is a
passage of 1-4 corpus sentences (at most ``MAX_CHARS`` characters), labelled by construction:

* ``reader-own-page-nei`` -- a claim against 1-4 other sentences of its own page, the gold sentences
  removed, that settle nothing about it (``nei_pairs.settles_nothing`` on each sentence and on the whole
  passage) and hold no value of the kinds the claim states (a place, a date, a number, a person, ...);
  FEVER's NOT ENOUGH INFO claims against sentences of the page retrieval finds for them;
* ``reader-slot-absent-nei`` -- a SUPPORTS claim with one value changed to another of the same kind,
  against sentences of its page (gold removed) that state no value of that kind;
* ``reader-topic-near-nei`` -- 2-3 neighbouring sentences of another page that BM25 ranks high for the
  claim (for a verifiable claim: only where they settle nothing about it, or do not name its subject);
* ``reader-slot-refutes`` -- FEVER REFUTES gold evidence inside its page neighbours, and a SUPPORTS claim's
  place, nationality, date, number, comparative or role changed (``contrast.py``'s edits, and a country or
  nationality swap for single-valued slots) where the passage states the original value and not the new;
* ``reader-multi-supports`` / ``reader-deletion-nei`` -- FEVER and FEVEROUS evidence sets of 2+ sentences
  (every sentence found in the corpus) joined in page order, with at most one neighbour, -> SUPPORTS; the
  same passage with one needed sentence deleted (it alone holds one of the claim's values) -> NOT ENOUGH INFO;
* ``reader-gold-context`` -- one SUPPORTS gold sentence with 1-2 of its page neighbours -> SUPPORTS (synthetic
  claims too: their own page is otherwise shown to them only where it is silent);
* ``reader-gold-among-others`` -- a gold set of 1-2 sentences beside 1-2 sentences of a topic-near page that
  are silent about the claim -> the gold's label, SUPPORTS or REFUTES (the other side of ``reader-topic-near-nei``);
* ``reader-wice-train`` -- WiCE's partially supported subclaims against their supporting sentences -> NOT
  ENOUGH INFO (partial support is not support).

Pages: the held-out pages of ``build_pairs.py`` (validation, calibration and test anchor pages of
``paper_dev``, the evidence pages of ``paper_test_rest``, the contrast set's pages) are never in a training
pair; ``pairs_validation_reader.jsonl`` runs the same generators on the validation part's pages (and a
slice of WiCE held out by title) for measuring, never for training. ``--with-replay`` first writes
``build_pairs.py``'s files, unchanged, into the same directory.
"""

from __future__ import annotations

import argparse
import collections
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.tools.corpus_index import CorpusIndex, Passage, read_corpus
from training.augment import entity_pool
from training.build_pairs import fever_split, held_out, names_pattern, write_rows
from training.reader_cases import (
    REPO,
    SUPPORTS,
    Case,
    Inputs,
    by_page,
    canonical,
    fever_cases,
    located_cases,
    sentence_entities,
    synthetic_cases,
)
from training.reader_nei import own_page_nei, slot_absent_nei, topic_near_nei, wice_pairs, wice_subclaims
from training.reader_slots import slot_refutes, value_elsewhere
from training.reader_supports import gold_among_others, gold_context, multi_sentence_pairs

SYNTHETIC_CLAIMS = {"train": 3000, "validation": 600}
ORIGIN_CAPS = {  # at most this many pairs per origin and part (a seeded sample), so no kind swamps the others
    "reader-own-page-nei": 2500,
    "reader-slot-absent-nei": 3000,
    "reader-topic-near-nei": 2500,
    "reader-slot-refutes": 4000,
    "reader-multi-supports": 3000,
    "reader-deletion-nei": 3000,
    "reader-gold-context": 2000,
    "reader-gold-among-others": 3000,
    "reader-wice-train": 1000,
    "reader-value-elsewhere-refutes": 2000,
    "reader-value-elsewhere-nei": 2000,
}


def keep_within(pairs: list[dict], allowed: set[str]) -> list[dict]:
    """The pairs whose every page is allowed, without their ``pages`` field."""
    return [{k: v for k, v in p.items() if k != "pages"} for p in pairs if set(p["pages"]) <= allowed]


def capped(pairs: list[dict], rng: random.Random) -> list[dict]:
    """At most ``ORIGIN_CAPS[origin]`` pairs per origin (a seeded sample), duplicates removed, in a fixed order."""
    seen, by_origin = set(), collections.defaultdict(list)
    for p in pairs:
        key = (p["claim"], p["title"], p["evidence"], p["label"])
        if key not in seen:
            seen.add(key)
            by_origin[p["origin"]].append(p)
    out = []
    for origin in sorted(by_origin):
        rows = by_origin[origin]
        cap = ORIGIN_CAPS.get(origin, len(rows))
        out += rows if len(rows) <= cap else rng.sample(rows, cap)
    return out


def generate(
    cases: list[Case],
    inputs: Inputs,
    search: Callable[[str], list[Passage]],
    allowed: set[str],
    seed: int,
    part: str,
    verbose: bool = False,
) -> list[dict]:
    """Every generator over one part's cases, each on a random stream of its own; pairs outside ``allowed`` dropped."""

    def stream(name: str) -> random.Random:
        return random.Random(f"{seed}:reader:{part}:{name}")

    cases = [c for c in cases if c.pages <= allowed]
    fever_like = [c for c in cases if c.source != "synthetic"]
    steps: list[tuple[str, Callable[[], list[dict]]]] = [
        ("own-page", lambda: own_page_nei(cases, inputs, stream("own-page"))),
        ("slot-absent", lambda: slot_absent_nei(cases, inputs, stream("slot-absent"))),
        ("topic-near", lambda: topic_near_nei(fever_like, inputs, search, allowed, stream("topic-near"))),
        ("slot-refutes", lambda: slot_refutes(cases, inputs, stream("slot-refutes"))),
        ("value-elsewhere", lambda: value_elsewhere(cases, inputs, stream("value-elsewhere"), search, allowed)),
        ("multi", lambda: multi_sentence_pairs(fever_like, inputs, stream("multi"))),
        ("gold-context", lambda: gold_context(cases, inputs, stream("gold-context"))),
        (
            "gold-among-others",
            lambda: gold_among_others(cases, inputs, search, allowed, stream("gold-among-others")),
        ),
    ]
    pairs = []
    for name, step in steps:
        started = time.monotonic()
        pairs += step()
        if verbose:
            print(f"  {part} {name}: {len(pairs)} pairs so far, {time.monotonic() - started:.0f} s")
    return keep_within(pairs, allowed)


def print_lengths(rows: list[dict]) -> None:
    """Per origin: pairs and the (claim + title + evidence) length in characters: min / median / p90 / max."""
    lengths = collections.defaultdict(list)
    for r in rows:
        lengths[r["origin"]].append(len(r["claim"]) + len(r["title"]) + len(r["evidence"]))
    for origin, values in sorted(lengths.items()):
        values.sort()
        median, p90 = values[len(values) // 2], values[min(len(values) - 1, int(0.9 * len(values)))]
        print(f"  {origin}: {len(values)} pairs, chars min {values[0]} median {median} p90 {p90} max {values[-1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--work", type=Path, default=REPO / "training" / "work")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--with-replay",
        action="store_true",
        help="first run build_pairs.py into --work (pairs_train.jsonl and the validation files, as it writes them)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.with_replay:
        command = [sys.executable, "-m", "training.build_pairs", "--shared", str(args.shared)]
        subprocess.run([*command, "--work", str(args.work), "--seed", str(args.seed)], check=True)
    nlp = load_pipeline()
    index = CorpusIndex.build(list(read_corpus(args.shared / "corpus" / "wiki_sentences.jsonl")))
    claims, split, anchors = fever_split(args.shared, index)
    kept_out = held_out(args.shared, index, split, anchors)
    all_pages = {p.page for p in index.passages}
    allowed = {"train": all_pages - kept_out.pages, "validation": kept_out.validation - kept_out.never}
    held_out_titles = kept_out.titles

    fever_dump = frozenset(
        (r["page"], r["line"])
        for r in map(orjson.loads, (args.shared / "corpus" / "wiki_sentences.jsonl").open("rb"))
        if r.get("origin") == "fever2017"
    )
    pages = by_page(index.passages)
    by_key = canonical(index.passages, pages)
    by_text: dict[str, Passage] = {}
    for p in index.passages:
        if (p.page, p.line) in by_key:
            by_text.setdefault(p.text, by_key[(p.page, p.line)])
    gold_rows = [orjson.loads(line) for line in (args.shared / "train" / "fever_gold_pairs.jsonl").open("rb")]
    gold_rows = [r for r in gold_rows if r.get("fever_split") != "paper_dev"]
    names = names_pattern(held_out_titles)
    feverous = [
        r
        for r in map(orjson.loads, (args.shared / "train" / "claim_evidence_pairs.jsonl").open("rb"))
        if r["origin"] == "feverous"
    ]
    wice = wice_subclaims(args.shared)

    print(f"index and split: {time.monotonic() - started:.0f} s")
    cases: dict[str, list[Case]] = {}
    for part in ("train", "validation"):
        located = located_cases(gold_rows, by_text, "fever-gold") + located_cases(feverous, by_text, "feverous")
        if part == "train" and names is not None:
            located = [c for c in located if not names.search(c.claim)]
        synthetic = synthetic_cases(
            pages, allowed[part], nlp, random.Random(f"{args.seed}:reader:{part}:synthetic"), SYNTHETIC_CLAIMS[part]
        )
        cases[part] = [
            c
            for c in fever_cases(claims, split, anchors, part, by_key) + located + synthetic
            if c.pages <= allowed[part]
        ]
        print(part, "cases", dict(collections.Counter((c.source, c.label) for c in cases[part])))
    print(f"cases: {time.monotonic() - started:.0f} s")
    texts = sorted({c.claim for part_cases in cases.values() for c in part_cases})
    docs = dict(zip(texts, nlp.pipe(texts, batch_size=256)))
    pool = entity_pool([docs[c.claim] for c in cases["train"] if c.label == SUPPORTS])
    inputs = Inputs(pages, sentence_entities(nlp, (p.text for p in index.passages)), docs, pool, fever_dump)

    print(f"parsed: {time.monotonic() - started:.0f} s")

    def search(claim: str) -> list[Passage]:
        return [passage for passage, _ in index.search(claim, k=12)]

    for part, name in (("train", "pairs_train_reader.jsonl"), ("validation", "pairs_validation_reader.jsonl")):
        rows = generate(cases[part], inputs, search, allowed[part], args.seed, part, verbose=True)
        rows += [{k: v for k, v in r.items() if k != "pages"} for r in wice_pairs(wice, part, held_out_titles)]
        rows = capped(rows, random.Random(f"{args.seed}:reader:{part}:caps"))
        write_rows(args.work / name, rows, random.Random(f"{args.seed}:reader:{part}:order"))
        print(" ", dict(sorted(collections.Counter((r["origin"], r["label"]) for r in rows).items())))
        print_lengths(rows)
    print(f"reader pairs written in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
