"""List pairs: a title's year among other titles' years ("… Annie Hall (1977) and Manhattan (1979)").

A passage that lists works with their years in parentheses binds each year to its own title. Read one slot at a
time, the reader takes any listed year for the claim's: "Manhattan was released in 1977" looks supported because
1977 is there. Every pair here is a corpus or shared-file passage holding a list of two or more "Title (year)"
items with different years, the claim written from one item:

* ``reader-list-supports`` -- an item's title with its own year -> SUPPORTS;
* ``reader-list-refutes`` -- an item's title with another item's year -> REFUTES: the slot is stated and holds
  another value, the claimed one is bound to another title;
* ``reader-list-nei`` -- a title from another passage's list, named nowhere in this passage, with one of this
  passage's years -> NOT ENOUGH INFO: the year is present, the claim's subject is not.

The claim's verb follows what the passage lists: films, albums, songs, series and games are "released", books and
novels "published"; other lists (citations, treaties) are skipped. A title listed twice, a year that is not a bare
year ("(1977 film)") and items whose segment is not a plain title are skipped.

Sources: sentences of the bundled corpus on pages allowed for training (with one page neighbour half the time), and
the evidence of the shared training files ``value_pool.POOL_ORIGINS`` reads. Passages naming a held-out page
(``build_pairs.held_out``: the evaluation pages of ``paper_dev``, the evidence pages of ``paper_test_rest``, the
contrast set's pages) are dropped. Passages whose page title (or, untitled, whose text) hashes into
``value_pool.VALIDATION_BUCKETS`` are written to ``pairs_validation_list.jsonl`` for measuring, never for training.

    python -m training.list_pairs --shared ../shared/data --work training/work --seed 13
"""

from __future__ import annotations

import collections
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path

from mermaid_verifier.tools.corpus_index import Passage
from training.build_pairs import (
    builder_parser,
    corpus_and_held_out,
    distinct_pairs,
    names_pattern,
    shared_rows,
    write_parts,
)
from training.edits import evidence_text
from training.edits import plain_text as plain
from training.reader_cases import NEI, REFUTES, SUPPORTS, by_page, fits, joined
from training.value_pool import POOL_ORIGINS, part_for

PER_PASSAGE = 2  # at most this many SUPPORTS and this many REFUTES pairs per passage, so long lists do not swamp
ITEM_YEAR = re.compile(r"\(\s*(1[5-9]\d\d|20[0-2]\d)\s*\)")
JOINERS = {"of", "the", "a", "an", "and", "in", "on", "to", "for", "with", "at", "from", "vs.", "&", "de", "la", "le"}
VERBS = (  # (words just before and inside the list, the claim's verb), first match wins
    (
        re.compile(
            r"\b(?:films?|movies?|starred|starring|roles?|directed|appeared in|played|albums?|singles?|songs?|EPs?|series|sitcoms?"
            r"|shows?|musicals?)\b"
        ),
        "was released in",
    ),
    (re.compile(r"\b(?:novels?|books?|memoirs?|collections?|poems?)\b"), "was published in"),
)
WINDOW = 120  # characters before the first item searched for the words of the list's kind


@dataclass(frozen=True)
class Item:
    title: str
    year: str


def capitalised(word: str) -> bool:
    return word[:1].isupper() or word[:1].isdigit()


def title_words(words: list[str]) -> bool:
    """A plain title: capitalised words, with joining words only between capitalised ones."""
    return (
        0 < len(words) <= 8
        and capitalised(words[0])
        and capitalised(words[-1])
        and all(capitalised(w) or w.lower() in JOINERS for w in words)
    )


def list_items(text: str) -> list[Item]:
    """The "Title (year)" items of a list in ``text`` (plain), in order; [] where the list is not a clean one."""
    matches = list(ITEM_YEAR.finditer(text))
    items = []
    for k, m in enumerate(matches):
        before = text[: m.start()]
        if k == 0 and before.rstrip().endswith('"'):  # a quoted first title: back to its opening mark
            quoted = re.search(r'"([^"]*)"\s*$', before)
            segment = quoted.group(0).split() if quoted else []
        elif k == 0:  # back from the parenthesis while the words are a title's
            words = before.split()
            taken: list[str] = []
            while (
                words
                and not words[-1].endswith((":", ",", ";"))
                and (capitalised(words[-1]) or (words[-1].lower() in JOINERS and taken))
            ):
                taken.insert(0, words.pop())
            while taken and not capitalised(taken[0]):
                taken.pop(0)
            segment = taken
        else:  # between the previous item's parenthesis and this one: ", Title", ", and Title", " and Title"
            between = text[matches[k - 1].end() : m.start()].strip()
            found = re.fullmatch(r"[,;]?\s*(?:(?:and|or)\s+)?(.+)", between)
            if found is None or "," in found.group(1) or ";" in found.group(1):
                continue
            segment = found.group(1).split()
        # 'Baloo in "The Jungle Book"' -> the quoted title
        inside = re.fullmatch(r'(?:.*\s)?"([^"]+)"', " ".join(segment))
        words = inside.group(1).split() if inside else segment
        if '"' not in " ".join(words) and title_words(words):
            items.append(Item(" ".join(words), m.group(1)))
    titles = collections.Counter(i.title for i in items)
    items = [i for i in items if titles[i.title] == 1]
    return items if len(items) >= 2 and len({i.year for i in items}) >= 2 else []


def verb_for(text: str) -> str | None:
    """The claim's verb for the list in ``text``: from the words just before its first item and inside it."""
    matches = list(ITEM_YEAR.finditer(text))
    if not matches:
        return None
    window = text[max(0, matches[0].start() - WINDOW) : matches[-1].end()]
    return next((verb for pattern, verb in VERBS if pattern.search(window)), None)


@dataclass
class Listing:
    key: str  # the page title, or the text where untitled
    sentences: list[Passage]  # the passage shown
    items: list[Item]
    verb: str
    source: str


def corpus_listings(pages: dict[str, list[Passage]], allowed: set[str], rng: random.Random) -> list[Listing]:
    out = []
    for page, sentences in sorted(pages.items()):
        if page not in allowed:
            continue
        for at, p in enumerate(sentences):
            text = plain(p.text)
            items, verb = list_items(text), verb_for(text)
            if not items or verb is None:
                continue
            shown = [p]
            near = [sentences[j] for j in (at - 1, at + 1) if 0 <= j < len(sentences)]
            if near and rng.random() < 0.5:
                shown = sorted([p, rng.choice(near)], key=lambda s: s.line or 0)
            out.append(Listing(p.title, shown if fits(shown) else [p], items, verb, "corpus"))
    return out


def shared_listings(shared: Path) -> list[Listing]:
    seen, out = set(), []
    for row, title in shared_rows(shared, POOL_ORIGINS):
        evidence = row["evidence"]
        text = plain(evidence)
        if text in seen:
            continue
        seen.add(text)
        items, verb = list_items(text), verb_for(text)
        passage = Passage(f"list:{len(out)}", f"list:{len(out)}", None, title, evidence, "pool")
        if items and verb is not None and fits([passage]):
            out.append(Listing(title or text, [passage], items, verb, row["origin"]))
    return out


def claim(item_title: str, verb: str, year: str) -> str:
    return f"{item_title} {verb} {year}."


def pairs_of(listings: list[Listing], rng: random.Random) -> list[dict]:
    out = []
    for listing in listings:
        evidence = joined(listing.sentences)
        base = {"title": listing.sentences[0].title, "evidence": evidence, "source_origin": listing.source}
        items = rng.sample(listing.items, len(listing.items))
        for item in items[:PER_PASSAGE]:
            out.append(
                base
                | {
                    "claim": claim(item.title, listing.verb, item.year),
                    "label": SUPPORTS,
                    "origin": "reader-list-supports",
                }
            )
        for item in items[-PER_PASSAGE:]:
            others = sorted({i.year for i in listing.items} - {item.year})
            out.append(
                base
                | {
                    "claim": claim(item.title, listing.verb, rng.choice(others)),
                    "label": REFUTES,
                    "origin": "reader-list-refutes",
                }
            )
        # another list's title, named nowhere here, with one of this passage's years
        lowered = evidence_text(evidence)
        for _ in range(5):
            other = listings[rng.randrange(len(listings))]
            if other is listing:
                continue
            title = rng.choice(other.items).title
            if title.lower() not in lowered and not any(w.lower() in lowered for w in title.split() if len(w) > 3):
                year = rng.choice(listing.items).year
                out.append(
                    base | {"claim": claim(title, listing.verb, year), "label": NEI, "origin": "reader-list-nei"}
                )
                break
    return distinct_pairs(out)


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    index, _, kept_out = corpus_and_held_out(args.shared)
    allowed = {p.page for p in index.passages} - kept_out.pages
    names = names_pattern(kept_out.titles)
    listings = corpus_listings(by_page(index.passages), allowed, random.Random(f"{args.seed}:list:corpus"))
    listings += shared_listings(args.shared)
    listings = [
        s
        for s in listings
        if s.key not in kept_out.titles and (names is None or not names.search(plain(joined(s.sentences))))
    ]
    print(
        f"listings {len(listings)} ({dict(collections.Counter(s.source for s in listings))}), "
        f"{time.monotonic() - started:.0f} s"
    )
    write_parts(args.work, "list", listings, lambda listing: part_for(listing.key), pairs_of, args.seed)
    print(f"list pairs written in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
