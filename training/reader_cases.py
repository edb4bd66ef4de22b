"""What the reader's pair generators share: claims located in the corpus (``Case``), what every generator
reads (``Inputs``), and the passage building blocks (a page's sentences in order, runs of neighbours, the
size limits of a passage, whether sentences settle nothing about a claim).

The generators are ``reader_nei.py`` (NOT ENOUGH INFO), ``reader_slots.py`` (a slot's value changed or found
elsewhere) and ``reader_supports.py`` (support over one or more sentences); ``reader_pairs.py`` runs them.
"""

from __future__ import annotations

import collections
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc

from mermaid_verifier.names import without_disambiguator
from mermaid_verifier.tools.corpus_index import Passage, clean_fever_text
from training.nei_pairs import about_words, claim_slots, claim_words, settles_nothing
from training.synthesize import synthetic_pairs

REPO = Path(__file__).resolve().parents[1]
NEI, SUPPORTS, REFUTES = "NOT ENOUGH INFO", "SUPPORTS", "REFUTES"
MAX_SENTENCES, MAX_CHARS = 4, 900
MIN_WORDS = 4  # a corpus "sentence" with fewer words is a heading or markup, never part of a passage
# Entity labels grouped into kinds of value: a passage holding a value of the claim's kind may settle it.
FAMILY = {
    "PERSON": "person",
    "ORG": "org",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "NORP": "place",
    "LANGUAGE": "place",
    "DATE": "time",
    "TIME": "time",
    "CARDINAL": "number",
    "QUANTITY": "number",
    "MONEY": "number",
    "PERCENT": "number",
    "ORDINAL": "number",
    "WORK_OF_ART": "work",
    "PRODUCT": "work",
    "EVENT": "work",
    "LAW": "work",
}
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?\"')])\s+(?=[A-Z0-9\"'(])")


@dataclass(frozen=True)
class Case:
    """A claim with its gold evidence sets located in the corpus (none for NOT ENOUGH INFO) and the page it
    is about: its first gold page, or the page retrieval finds first for a NOT ENOUGH INFO claim."""

    claim: str
    label: str
    sets: tuple[tuple[Passage, ...], ...]
    anchor: str
    source: str

    @property
    def gold(self) -> set[tuple[str, int | None]]:
        return {(p.page, p.line) for evidence_set in self.sets for p in evidence_set}

    @property
    def pages(self) -> set[str]:
        return {self.anchor} | {p.page for evidence_set in self.sets for p in evidence_set}


@dataclass
class Inputs:
    """What every generator reads: the corpus pages (sentences in line order), the named entities of each
    sentence, the parsed claims, the entity pool of the swaps, and which sentences come from the Wikipedia
    dump FEVER's annotators searched (the corpus also holds later versions of its pages)."""

    pages: dict[str, list[Passage]]
    entities: dict[str, tuple[tuple[str, str], ...]]  # sentence text -> ((label, text), ...)
    docs: dict[str, Doc]  # claim text -> parse
    pool: dict[str, list[str]]
    fever_dump: frozenset[tuple[str, int | None]] = frozenset()  # (page, line) of the FEVER 2017 dump's sentences


# -- building blocks ----------------------------------------------------------------------------------
def _text_key(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[a-z0-9]+", text.lower()))


def near_duplicate(a: Passage, b: Passage) -> bool:
    """Two sentences that open with the same six words: one page's sentence taken from two datasets."""
    return _text_key(a.text)[:6] == _text_key(b.text)[:6]


def by_page(passages: Iterable[Passage]) -> dict[str, list[Passage]]:
    """Each page's sentences in line order; a sentence whose words repeat an earlier one of its page is left out,
    and so is one of fewer than ``MIN_WORDS`` words (a heading or markup such as "__ TOC __")."""
    pages: dict[str, list[Passage]] = collections.defaultdict(list)
    for passage in sorted(passages, key=lambda p: (p.page, p.line or 0)):
        if len(re.findall(r"[^\W\d_]+", passage.text)) < MIN_WORDS:
            continue
        if all(_text_key(passage.text) != _text_key(q.text) for q in pages[passage.page]):
            pages[passage.page].append(passage)
    return dict(pages)


def canonical(passages: Iterable[Passage], pages: dict[str, list[Passage]]) -> dict[tuple[str, int | None], Passage]:
    """Each sentence's (page, line) -> the sentence ``by_page`` kept for its words (none for one it left out)."""
    kept = {(p.page, _text_key(p.text)): p for rows in pages.values() for p in rows}
    return {(p.page, p.line): kept[key] for p in passages if (key := (p.page, _text_key(p.text))) in kept}


def sentence_entities(nlp: Language, texts: Iterable[str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each distinct text's named entities as (label, lower-cased text), from the pipeline's recogniser only."""
    unique = sorted(set(texts))
    with nlp.select_pipes(enable=[name for name in ("tok2vec", "ner") if name in nlp.pipe_names]):
        docs = nlp.pipe(unique, batch_size=256)
        return {text: tuple((e.label_, e.text.lower()) for e in doc.ents) for text, doc in zip(unique, docs)}


def fits(sentences: list[Passage]) -> bool:
    return 0 < len(sentences) <= MAX_SENTENCES and len(joined(sentences)) <= MAX_CHARS


def joined(sentences: list[Passage]) -> str:
    return " ".join(p.text for p in sentences)


def make_pair(claim: str, sentences: list[Passage], label: str, origin: str) -> dict:
    """A pair titled by its first sentence's page; ``pages`` (dropped before writing) names every page it shows."""
    return {
        "claim": claim,
        "title": sentences[0].title,
        "evidence": joined(sentences),
        "label": label,
        "origin": origin,
        "pages": sorted({p.page for p in sentences}),
    }


def claim_families(doc: Doc, title: str) -> set[str]:
    """The kinds of value the claim states, beyond what it is about (its page's name, its subject)."""
    about = about_words(doc, title)
    return {FAMILY[e.label_] for e in doc.ents if e.label_ in FAMILY and not claim_words(e.text) <= about}


def holds_value(sentence: Passage, families: set[str], entities, about: set[str]) -> bool:
    """Whether the sentence names an entity of one of ``families`` that is not what the claim is about."""
    return any(
        FAMILY.get(label) in families and not claim_words(text) <= about for label, text in entities[sentence.text]
    )


def silent(doc: Doc, title: str, sentences: list[Passage], entities) -> bool:
    """The passage settles nothing about the claim: every sentence and the whole passage share none of its
    entities and few of its content words, and no sentence holds a value of a kind the claim states."""
    slots = claim_slots(doc, title)
    families, about = claim_families(doc, title), about_words(doc, title)
    return (
        all(settles_nothing(p.text, slots) for p in sentences)
        and settles_nothing(joined(sentences), slots)
        and not any(holds_value(p, families, entities, about) for p in sentences)
    )


def unsettled(case: Case, doc: Doc, title: str, sentences: list[Passage], inputs: Inputs) -> bool:
    """Whether the passage leaves the claim open: ``silent`` about it, or, for a FEVER NOT ENOUGH INFO claim,
    made of sentences of the dump its annotators found nothing in (a later version of a page may settle it)."""
    if case.label == NEI and case.source == "fever" and all((p.page, p.line) in inputs.fever_dump for p in sentences):
        return True
    return silent(doc, title, sentences, inputs.entities)


def runs(sequence: list[Passage], ok: Callable[[Passage], bool], rng: random.Random) -> list[Passage] | None:
    """A random stretch of 1-``MAX_SENTENCES`` consecutive sentences of ``sequence`` that all pass ``ok``."""
    good = [ok(p) for p in sequence]
    starts = [i for i, g in enumerate(good) if g]
    if not starts:
        return None
    start = rng.choice(starts)
    size = rng.randint(1, MAX_SENTENCES)
    stretch = [sequence[start]]
    for i in range(start + 1, min(start + size, len(sequence))):
        if not good[i] or not fits(stretch + [sequence[i]]) or any(near_duplicate(sequence[i], q) for q in stretch):
            break
        stretch.append(sequence[i])
    return stretch if fits(stretch) else None


def with_neighbours(
    gold: list[Passage], page: list[Passage], extra: int, rng: random.Random, exclude: set = frozenset()
) -> list[Passage]:
    """The gold sentences of one page with up to ``extra`` sentences next to them (not in ``exclude``), in page order."""
    index = {(p.page, p.line): i for i, p in enumerate(page)}
    block = {index[(p.page, p.line)] for p in gold if (p.page, p.line) in index}
    for _ in range(extra):
        options = sorted(
            {j for i in block for j in (i - 1, i + 1)}
            - block
            - {j for j, p in enumerate(page) if (p.page, p.line) in exclude}
        )
        options = [
            j for j in options if 0 <= j < len(page) and not any(near_duplicate(page[j], page[i]) for i in block)
        ]
        if not options:
            break
        block.add(rng.choice(options))
    return [page[i] for i in sorted(block)]


def in_page_order(evidence_set: tuple[Passage, ...]) -> list[Passage]:
    """A set's sentences grouped by page (pages in the order the set names them), each page in line order."""
    order = list(dict.fromkeys(p.page for p in evidence_set))
    return sorted(set(evidence_set), key=lambda p: (order.index(p.page), p.line or 0))


# -- 3. topic-near sentences of other pages ------------------------------------------------------------
def names_page(title: str, sentences: list[Passage]) -> bool:
    """Whether the sentences hold a word of the page's name (``title``, its disambiguator and stop words aside)."""
    return bool(
        {w for w in claim_words(without_disambiguator(title)) if w not in STOP_WORDS} & claim_words(joined(sentences))
    )


def other_page_hits(
    case: Case, search: Callable[[str], list[Passage]], allowed: set[str], inputs: Inputs
) -> Iterator[Passage]:
    """Retrieval's hits for the claim, best first, on allowed pages of at least two sentences that are not the
    claim's own: where its topic-near sentences come from."""
    for hit in search(case.claim):
        if hit.page not in case.pages and hit.page in allowed and len(inputs.pages.get(hit.page, [])) >= 2:
            yield hit


# -- claims ---------------------------------------------------------------------------------------------
def locate(evidence: str, by_text: dict[str, Passage]) -> tuple[Passage, ...] | None:
    """The corpus sentences an evidence text is made of (in its order), or None when one is not in the corpus."""
    pieces = _SENTENCE_SPLIT.split(clean_fever_text(evidence))
    found, i = [], 0
    while i < len(pieces):
        for j in range(len(pieces), i, -1):
            passage = by_text.get(" ".join(pieces[i:j]))
            if passage is not None:
                found.append(passage)
                i = j
                break
        else:
            return None
    return tuple(found)


def fever_cases(claims, split: dict[str, str], anchors: dict[str, set[str]], part: str, by_key) -> list[Case]:
    """paper_dev claims of one part: their gold sets found in the corpus, NOT ENOUGH INFO ones with their anchor."""
    out = []
    for claim in claims:
        if split[claim.id] != part:
            continue
        if claim.label.value == NEI:
            if anchors[claim.id]:
                out.append(Case(claim.claim, NEI, (), sorted(anchors[claim.id])[0], "fever"))
            continue
        sets = []
        for evidence_set in claim.evidence_sets:
            passages = tuple(dict.fromkeys(by_key.get(key) for key in sorted(evidence_set)))
            if passages and None not in passages and passages not in sets:
                sets.append(passages)
        if sets:
            out.append(Case(claim.claim, claim.label.value, tuple(sets), sets[0][0].page, "fever"))
    return out


def located_cases(rows: Iterable[dict], by_text: dict[str, Passage], source: str) -> list[Case]:
    """(claim, evidence text, label) rows whose every evidence sentence is in the corpus, one case per claim."""
    grouped: dict[tuple[str, str], list[tuple[Passage, ...]]] = collections.defaultdict(list)
    for row in rows:
        if row["label"] not in {SUPPORTS, REFUTES}:
            continue
        found = locate(row["evidence"], by_text)
        found = tuple(dict.fromkeys(found)) if found else None
        if found and found not in grouped[(row["claim"], row["label"])]:
            grouped[(row["claim"], row["label"])].append(found)
    return [Case(claim, label, tuple(sets), sets[0][0].page, source) for (claim, label), sets in grouped.items()]


def synthetic_cases(
    pages: dict[str, list[Passage]], allowed: set[str], nlp: Language, rng: random.Random, count: int
) -> list[Case]:
    """``synthesize.py``'s SUPPORTS claims written from sentences of the allowed pages."""
    chosen = {page: [(p.title, p.text) for p in rows] for page, rows in sorted(pages.items()) if page in allowed}
    by_title_text = {(p.title, p.text): p for page in chosen for p in pages[page]}
    out = []
    for row in synthetic_pairs(chosen, nlp, rng, count):
        source = by_title_text.get((row["title"], row["evidence"]))
        if row["origin"] == "synthetic" and source is not None:
            out.append(Case(row["claim"], SUPPORTS, ((source,),), source.page, "synthetic"))
    return out
