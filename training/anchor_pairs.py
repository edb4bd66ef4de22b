"""Anchor pairs: what grounding reads on a cited web page, to be learnt as the starting model reads it.

Every run that moved the reader on Wikipedia-shaped pairs ranked long-form answer sentences against web pages a
little worse (grounding dev read whole, docs/training.md): a reader made surer on short passages is surer on long,
unrelated ones too. These pairs hold that reading in place. Each is a claim and one passage of a web page exactly as
grounding reads it for that claim (``texts.grounding.passages_for`` under the bundled setting: the BM25 hits of 1-3
sentences, then windows around the best; the claim's numbers aligned as the runtime aligns them). They carry no
label (``"label": null``): ``reader_job train --keep-shipped`` learns each from the starting model's own reading
alone, so they hold the new reader to the old one on this kind of input while the labelled pairs move it
elsewhere.

* ``reader-anchor-claim`` -- each WiCE training subclaim against what grounding reads for it on its cited page;
* ``reader-anchor-sentence`` -- up to ``SENTENCES_PER_PAGE`` sentences of the page itself (5-40 words, not meta or
  heading lines), each as a claim against what grounding reads for it on the same page: the long, explanatory
  sentences long-form answers are made of.

WiCE's train subclaims only (``grounding/wice_train_subclaims.jsonl``), none whose Wikipedia title hashes into
``reader_nei.WICE_VALIDATION_BUCKETS`` or names a held-out page; WiCE dev and LFQA dev, which the grounding checks
read, are never read here.

    python -m training.anchor_pairs --shared ../shared/data --work training/work --seed 13
"""

from __future__ import annotations

import random
import time

from mermaid_verifier.agents.quantities import aligned
from mermaid_verifier.models import ExtractedClaim, GivenDocument
from mermaid_verifier.texts.grounding import GroundingConfig, passages_for
from mermaid_verifier.tools.passages import PassageIndex
from training.build_pairs import builder_parser, corpus_and_held_out, distinct_pairs, write_rows
from training.reader_nei import wice_part, wice_subclaims

SENTENCES_PER_PAGE = 4
MIN_WORDS, MAX_WORDS = 5, 40


def as_claim(text: str) -> ExtractedClaim:
    return ExtractedClaim(text=text, sentence=text, start=0, end=len(text))


def read_for(index: PassageIndex, claim: str, reading: GroundingConfig, origin: str) -> list[dict]:
    """The pairs grounding reads for ``claim``: every passage it would read, as the reader is given it."""
    return [
        {"claim": claim, "title": p.title, "evidence": aligned(claim, p.text), "label": None, "origin": origin}
        for p in passages_for(index, as_claim(claim), reading)
    ]


def page_sentences(document: str) -> list[str]:
    """The page's lines that read as sentences: 5-40 words, ending as a sentence ends, not meta data or a heading."""
    out = []
    for line in document.split("\n"):
        line = line.strip()
        if line.startswith(("(meta data)", "#")) or not MIN_WORDS <= len(line.split()) <= MAX_WORDS:
            continue
        if line[-1] in ".!?" and line[0].isupper():
            out.append(line)
    return out


def anchor_pairs(rows: list[dict], held_out_titles: set[str], reading: GroundingConfig, seed: int) -> list[dict]:
    """The training part's pairs (module doc): each subclaim's, then each page's sentences' (a page once)."""
    out, pages = [], {}
    for row in rows:
        if wice_part(row, held_out_titles) != "train":
            continue
        index = pages.get(row["document"])
        if index is None:
            index = pages[row["document"]] = PassageIndex(
                [GivenDocument(name="cited page", title="", text=row["document"])], reading.sizes
            )
            sentences = page_sentences(row["document"])
            rng = random.Random(f"{seed}:anchor:{row['id']}")
            for sentence in rng.sample(sentences, min(SENTENCES_PER_PAGE, len(sentences))):
                out.extend(read_for(index, sentence, reading, "reader-anchor-sentence"))
        out.extend(read_for(index, row["claim"], reading, "reader-anchor-claim"))
    return distinct_pairs(out)


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    rows = wice_subclaims(args.shared)
    held_out_titles = corpus_and_held_out(args.shared)[2].titles
    pairs = anchor_pairs(rows, held_out_titles, GroundingConfig.bundled(), args.seed)
    write_rows(args.work / "pairs_train_anchor.jsonl", pairs, random.Random(f"{args.seed}:anchor:order"))
    print(f"anchor pairs written in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
