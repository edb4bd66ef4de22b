"""A SUPPORTS twin for each SUPPORTS pair whose evidence holds more than one sentence: the same evidence, the claim
joined with "and" to another sentence the evidence states, as an extra file for ``reader_job prepare``.

The unstated twins (``training/unstated_twins.py``) join a supported claim to a statement its evidence lacks and
label the longer claim NOT ENOUGH INFO. Alone in a mix they teach a shortcut as well as the lesson: nearly every long
claim ", and …" a reader meets in training is then unsupported, and a student learns to read length as
specificity -- it scores the long, compound sentences of a long-form answer lower even where its passages state
every part. The twins here are the other side of that contrast: the pair's evidence and title, and a claim joined
to a second statement that the evidence itself makes -- one of its other sentences, not opening on a word that
points back ("He", "This", "However") so that the sentence reads alone -- labelled SUPPORTS:

    python -m training.stated_twins training/runs/RUN/pairs/pairs_train_reader.jsonl \\
        training/runs/RUN/pairs_train_worded.jsonl --seed 41 --out training/runs/RUN/pairs/pairs_train_stated.jsonl

Only SUPPORTS rows are read (a pairs file's other rows are passed over and counted). The second sentence must be another
statement on the claim's topic: it shares a content word with the claim but at most half of the claim's (not the
sentence the claim was drawn from), and adds at least two content words the claim lacks, at least half of its own. Twins carry the origin ``stated-twin:ORIGIN``. The draw is seeded and the rows follow
the files' order, so the same files, options and seed write the same bytes; a pair with no sentence that passes
gets no twin, and the command says how many.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

from mermaid_verifier.tools.article_html import split_paragraph
from training.pick_pairs import read_sources, write_pairs
from training.unstated_twins import content_words, first_twin

SUPPORTS = "SUPPORTS"
MIN_WORDS, MAX_WORDS = 6, 40
# a sentence opening on one of these leans on the one before it and does not read alone after "and"
POINTS_BACK = {
    "he", "she", "it", "they", "his", "her", "its", "their", "them", "this", "these", "that", "those", "such",
    "however", "but", "also", "moreover", "furthermore", "therefore", "thus", "then", "later", "after", "afterwards",
    "instead", "meanwhile", "yet", "still", "both", "another", "other", "others", "the latter", "the former",
    "specifically", "additionally", "similarly", "likewise", "not", "so", "as", "read", "click", "see",
}  # fmt: skip


def reads_alone(sentence: str) -> bool:
    first = sentence.split(maxsplit=1)[0].strip(",;:\"'()").lower() if sentence.strip() else ""
    two = " ".join(sentence.lower().split()[:2]).rstrip(",")
    return bool(first) and first not in POINTS_BACK and two not in POINTS_BACK


def second_statement(sentence: str, claim: str) -> bool:
    """``sentence`` is another statement on the claim's topic: it shares a content word with the claim but at most
    half of the claim's (it is not the sentence the claim was drawn from), and adds at least two content words the
    claim lacks, at least half of its own."""
    words, said = content_words(sentence), content_words(claim)
    new, shared = words - said, words & said
    return 1 <= len(shared) and 2 * len(shared) <= len(said) and len(new) >= 2 and 2 * len(new) >= len(words)


def whole(sentence: str) -> bool:
    """A sentence as a reader would quote it: it opens on a capital or a digit, its brackets close, and at most
    half of its words are capitalised (a web page's menu run into its prose is not a sentence)."""
    words = sentence.split()
    return (
        (sentence[:1].isupper() or sentence[:1].isdigit())
        and sentence.count("(") + sentence.count("[") == sentence.count(")") + sentence.count("]")
        and 2 * sum(word[:1].isupper() for word in words) <= len(words)
    )


def candidates(claim: str, evidence: str) -> list[str]:
    """The sentences of ``evidence`` that may join ``claim``: of a usable length, reading alone, a second
    statement; none where the evidence is a single sentence."""
    sentences = [s for paragraph in evidence.splitlines() for s in split_paragraph(paragraph.strip())]
    if len(sentences) < 2:
        return []
    return [
        s
        for s in sentences
        if MIN_WORDS <= len(s.split()) <= MAX_WORDS
        and s[-1:] in ".!?"
        and whole(s)
        and reads_alone(s)
        and second_statement(s, claim)
    ]


def twins(rows: list[dict], seed: int) -> list[dict]:
    """One twin for each SUPPORTS row a sentence of its evidence passes for, in the rows' order."""
    rng = random.Random(seed)
    out = []
    for row in rows:
        if row.get("label") != SUPPORTS:
            continue
        pool = candidates(row["claim"], row["evidence"])
        twin = first_twin(row, rng.sample(pool, len(pool)), SUPPORTS, "stated-twin")
        if twin is not None:
            out.append(twin)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, nargs="+", help="pairs files (claim, evidence, title, label, origin)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, required=True, help="the file to write (refused if it exists)")
    args = parser.parse_args(argv)
    sources = read_sources(parser, args.out, *args.pairs)
    rows = [row for source in sources for row in source]
    supports = sum(row.get("label") == SUPPORTS for row in rows)
    if not supports:
        parser.error(f"{', '.join(map(str, args.pairs))}: no SUPPORTS pair to make a twin of")
    made = twins(rows, args.seed)
    write_pairs(args.out, made)
    print(
        f"{args.out}: {len(made)} twins of {supports} SUPPORTS pairs ({supports - len(made)} without a sentence that "
        f"passes; {len(rows) - supports} rows of other labels passed over)"
    )
    for origin, n in sorted(collections.Counter(row["origin"] for row in made).items()):
        print(f"  {origin}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
