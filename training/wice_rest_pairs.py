"""Grounding-shaped pairs: a WiCE subclaim against the sentences of its cited page that back nothing of it.

Grounding reads a claim against the passages of a web page that BM25 ranks highest for it. Where the page's
supporting sentences are gone, the best-ranked rest shares the claim's words -- its subject, its topic -- and the
reader should read NOT ENOUGH INFO; the held-out WiCE check with the supporting sentences deleted measures exactly
that. ``reader-wice-train`` (``reader_nei.wice_pairs``) teaches the supporting sentences of a partially supported
subclaim; this file adds the other side:

* ``reader-wice-rest-nei`` -- each WiCE training subclaim against the 1-3 consecutive lines of its page, outside
  every annotated supporting set, that share the most of its content words (the best line and its neighbours that
  are outside the sets too) -> NOT ENOUGH INFO. Meta lines and lines of fewer than ``MIN_WORDS`` words are never
  read; a subclaim whose unbacked words hold a digit is left out (the page may state another number, which says
  otherwise), as in ``reader_nei.wice_pairs``.

WiCE's train subclaims only (``grounding/wice_train_subclaims.jsonl``), none of a page titled as one of
``build_pairs.held_out``'s; those whose Wikipedia title hashes into
``reader_nei.WICE_VALIDATION_BUCKETS`` are written to ``pairs_validation_wice_rest.jsonl`` for measuring, never for
training. WiCE's dev file, which the grounding checks read, is never read here.

    python -m training.wice_rest_pairs --shared ../shared/data --work training/work --seed 13
"""

from __future__ import annotations

import random
import re
import time

from spacy.lang.en.stop_words import STOP_WORDS

from training.build_pairs import builder_parser, corpus_and_held_out, distinct_pairs, write_rows
from training.reader_cases import MAX_CHARS, NEI
from training.reader_nei import _META_TITLE, wice_part, wice_subclaims

MIN_WORDS = 5  # shorter lines (menus, bylines, dates) are never read
MAX_LINES = 3


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP_WORDS and len(w) > 2}


def readable(line: str) -> bool:
    return not line.startswith("(meta data)") and len(line.split()) >= MIN_WORDS


def rest_window(row: dict) -> list[str] | None:
    """The 1-3 consecutive readable lines outside every supporting set that share the most content words with the
    claim (ties: the earlier line), or None where no line shares any."""
    lines = [line.strip() for line in row["document"].split("\n")]
    supporting = {i for s in row["supporting_sentences"] for i in s}
    free = [i not in supporting and readable(line) for i, line in enumerate(lines)]
    words = content_words(row["claim"])
    scored = [(len(words & content_words(line)), -i) for i, line in enumerate(lines) if free[i]]
    if not scored or max(scored)[0] == 0:
        return None
    best = -max(scored)[1]
    window = [best]
    for step in (1, -1, 2, -2):  # widen to neighbours that are free too, while the window fits
        at = best + step
        if len(window) >= MAX_LINES or not 0 <= at < len(lines) or not free[at]:
            continue
        if abs(step) == 2 and best + step // 2 not in window:
            continue  # only next to the window, never across a gap
        if len(" ".join(lines[i] for i in sorted([*window, at]))) <= MAX_CHARS:
            window.append(at)
    return [lines[i] for i in sorted(window)]


def rest_pairs(rows: list[dict], part: str, held_out_titles: set[str]) -> list[dict]:
    """The part's pairs (module doc); a training subclaim of a page titled as a held-out page is left out."""
    out = []
    for row in rows:
        if wice_part(row, held_out_titles) != part:
            continue
        if any(re.search(r"\d", token) for token in row.get("non_supported_tokens") or []):
            continue
        window = rest_window(row)
        if window is None:
            continue
        title = _META_TITLE.search(row["document"])
        out.append(
            {
                "claim": row["claim"],
                "title": title.group(1).strip() if title else "",
                "evidence": " ".join(window),
                "label": NEI,
                "origin": "reader-wice-rest-nei",
            }
        )
    return distinct_pairs(out)


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    rows = wice_subclaims(args.shared)
    held_out_titles = corpus_and_held_out(args.shared)[2].titles
    for part, name in (("train", "pairs_train_wice_rest.jsonl"), ("validation", "pairs_validation_wice_rest.jsonl")):
        pairs = rest_pairs(rows, part, held_out_titles)
        write_rows(args.work / name, pairs, random.Random(f"{args.seed}:wice-rest:{part}:order"))
    print(f"wice-rest pairs written in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
