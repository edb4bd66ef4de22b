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
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
from augment import entity_pool
from build_pairs import fever_split, held_out, names_pattern, write_rows
from contrast import ROLE_CUES, ROLE_SWAPS, comparative_edit, date_edit, number_edit
from edits import evidence_text, mentions, replace_span
from failure_kinds import COUNTRIES
from nei_pairs import about_words, claim_slots, claim_words, settles_nothing
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc, Span
from synthesize import synthetic_pairs

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.evaluation.datasets import hash_bucket
from mermaid_verifier.names import without_disambiguator
from mermaid_verifier.tools.corpus_index import CorpusIndex, Passage, clean_fever_text, read_corpus

REPO = Path(__file__).resolve().parents[1]
NEI, SUPPORTS, REFUTES = "NOT ENOUGH INFO", "SUPPORTS", "REFUTES"
MAX_SENTENCES, MAX_CHARS = 4, 900
MIN_WORDS = 4  # a corpus "sentence" with fewer words is a heading or markup, never part of a passage
SYNTHETIC_CLAIMS = {"train": 3000, "validation": 600}
WICE_VALIDATION_BUCKETS = range(0, 15)  # WiCE subclaims whose Wikipedia title hashes here are kept for measuring
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
SLOT_LABELS = {"PERSON", "ORG", "GPE", "LOC", "NORP", "DATE", "CARDINAL"}  # the slots reader-slot-absent changes
# Countries and nationalities one of which includes another: never swapped for each other.
_SAME_STATE = [
    {"England", "Scotland", "Wales", "the United Kingdom", "Ireland"},
    {"English", "Scottish", "Welsh", "British", "Irish"},
    {"Korea", "South Korea"},
    {"Korean", "South Korean"},
    {"Argentine", "Argentinian"},
]
NATIONALITIES = sorted(COUNTRIES)
COUNTRY_NAMES = sorted(set(COUNTRIES.values()))
# Words whose place is single-valued: "born in X", "located in X", "a town in X", "the capital of X".
PLACE_HEADS = {
    "bear",
    "born",
    "die",
    "locate",
    "base",
    "headquarter",
    "situate",
    "bury",
    "capital",
    "city",
    "town",
    "village",
    "state",
    "county",
    "region",
    "province",
    "district",
    "municipality",
    "suburb",
    "commune",
    "borough",
    "neighborhood",
    "neighbourhood",
}
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?\"')])\s+(?=[A-Z0-9\"'(])")
_META_TITLE = re.compile(r"^\(meta data\) TITLE: (.+)$", re.MULTILINE)


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


# -- 1. own page ------------------------------------------------------------------------------------------
def own_page_nei(cases: list[Case], inputs: Inputs, rng: random.Random) -> list[dict]:
    """1-4 sentences of the claim's own page that do not state its fact -> NOT ENOUGH INFO.

    A verifiable claim: other sentences of its gold page, the gold sentences removed, that are ``silent``
    about it. A FEVER NOT ENOUGH INFO claim: the sentences around the one of its retrieved page sharing
    most words with it beyond the page's name (nothing in Wikipedia settles the claim)."""
    out = []
    for case in cases:
        page = inputs.pages.get(case.anchor, [])
        if not page:
            continue
        doc = inputs.docs[case.claim]
        if case.label == NEI:
            words = claim_words(case.claim) - claim_words(without_disambiguator(page[0].title)) - STOP_WORDS
            best = max(range(len(page)), key=lambda i: (len(words & claim_words(page[i].text)), -i))
            stretch = with_neighbours([page[best]], page, rng.randint(0, MAX_SENTENCES - 1), rng)
            while stretch and not fits(stretch):
                stretch = stretch[:-1]
            if stretch and not unsettled(case, doc, page[0].title, stretch, inputs):
                stretch = [page[best]] if unsettled(case, doc, page[0].title, [page[best]], inputs) else None
        else:
            others = [p for p in page if (p.page, p.line) not in case.gold]
            stretch = runs(others, lambda p, d=doc: silent(d, p.title, [p], inputs.entities), rng)
            if stretch and not silent(doc, stretch[0].title, stretch, inputs.entities):
                stretch = None
        if stretch:
            out.append(make_pair(case.claim, stretch, NEI, "reader-own-page-nei"))
    return out


# -- 2. a changed value the page is silent on -----------------------------------------------------------
def _other_value(ent: Span, page_text: str, pool: dict[str, list[str]], rng: random.Random) -> str | None:
    """Another value of the entity's kind that the page never states."""
    if ent.label_ == "NORP":  # a nationality for a nationality; other groups (religions, parties) are left alone
        options = [n for n in NATIONALITIES if not _same_state(n, ent.text) and not mentions(page_text, n)]
        options = options if ent.text in COUNTRIES else []
    elif ent.label_ == "DATE" and re.fullmatch(r"1[5-9]\d\d|20[0-2]\d", ent.text):
        year = int(ent.text)
        options = [str(year + d) for d in range(-12, 13) if d and not mentions(page_text, str(year + d))]
    else:
        options = [
            text
            for text in pool.get(ent.label_, [])
            if text.lower() not in ent.text.lower()
            and ent.text.lower() not in text.lower()
            and not mentions(page_text, text)
            and (ent.label_ not in {"DATE", "CARDINAL"} or any(ch.isdigit() for ch in text))
        ]
    return rng.choice(options) if options else None


def slot_absent_nei(cases: list[Case], inputs: Inputs, rng: random.Random) -> list[dict]:
    """A SUPPORTS claim with one value changed, against sentences of its page that state no value of that kind.

    The value changed is one the gold sentence states (not the page's name or the claim's subject); the new
    value appears nowhere on the page; the passage's sentences (gold removed) name no entity of the value's
    kind, so nothing in them states the slot, the old value or the new one."""
    out = []
    for case in cases:
        if case.label != SUPPORTS or len(case.sets[0]) != 1:
            continue
        gold = case.sets[0][0]
        page = inputs.pages.get(gold.page, [])
        page_text = evidence_text(joined(page))
        doc = inputs.docs[case.claim]
        about = about_words(doc, gold.title)
        ents = [
            e
            for e in doc.ents
            if e.label_ in SLOT_LABELS
            and not claim_words(e.text) & about
            and mentions(evidence_text(gold.text), e.text)
        ]
        rng.shuffle(ents)
        for ent in ents:
            new = _other_value(ent, page_text, inputs.pool, rng)
            if new is None:
                continue
            family = {FAMILY[ent.label_]}
            others = [p for p in page if (p.page, p.line) not in case.gold]
            values = (ent.text, new)
            stretch = runs(
                others,
                lambda p, f=family, a=about, v=values: (
                    not holds_value(p, f, inputs.entities, a)
                    and not any(mentions(evidence_text(p.text), value) for value in v)
                ),
                rng,
            )
            if stretch:
                claim = replace_span(doc, ent.start, ent.end, new)
                out.append(make_pair(claim, stretch, NEI, "reader-slot-absent-nei"))
            break
    return out


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


def topic_near_nei(
    cases: list[Case], inputs: Inputs, search: Callable[[str], list[Passage]], allowed: set[str], rng: random.Random
) -> list[dict]:
    """2-3 neighbouring sentences of another page that retrieval ranks high for the claim -> NOT ENOUGH INFO.

    For a verifiable claim the passage must not name what the claim is about, or else be ``silent`` about it
    (another page may state the claim's fact, or another value for it)."""
    out = []
    for case in cases:
        doc = inputs.docs[case.claim]
        title = inputs.pages[case.anchor][0].title if case.anchor in inputs.pages else ""
        for hit in other_page_hits(case, search, allowed, inputs):
            stretch = with_neighbours([hit], inputs.pages[hit.page], rng.randint(1, 2), rng)
            if not fits(stretch):
                continue
            if names_page(title, stretch) and not unsettled(case, doc, title, stretch, inputs):
                continue
            out.append(make_pair(case.claim, stretch, NEI, "reader-topic-near-nei"))
            break
    return out


# -- 4. says otherwise -----------------------------------------------------------------------------------
def _same_state(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in _SAME_STATE)


def _indefinite(doc: Doc, token_index: int) -> bool:
    """Whether the value sits where another could hold too: inside a noun phrase with "a"/"an" ("wrote a 1987
    novel"), or beside a non-copular verb's indefinite or bare plural object ("released an album in 2005")."""
    token = doc[token_index]
    for head in [token, *token.ancestors]:
        if head.pos_ in {"NOUN", "PROPN"} and any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in head.children):
            if head.dep_ != "attr":
                return True
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.lemma_ == "be":
        return False
    for child in root.children:
        if child.dep_ == "dobj":
            dets = [c.lower_ for c in child.children if c.dep_ == "det"]
            if (dets and dets[0] in {"a", "an"}) or (not dets and child.tag_ in {"NNS", "NNPS"}):
                return True
    return False


def place_edit(doc: Doc, passage: str, rng: random.Random, title: str = "") -> str | None:
    """A country the passage states, in a single-valued slot ("born in", "located in", "a town in", "the
    capital of"), or a nationality of "X is a <nationality> <noun>", swapped for another the passage lacks."""
    ev = evidence_text(passage)
    title_words = claim_words(without_disambiguator(title))
    candidates = []
    for ent in doc.ents:
        if not mentions(ev, ent.text) or claim_words(ent.text) <= title_words or _indefinite(doc, ent.root.i):
            continue
        root = ent.root
        if ent.label_ == "NORP" and ent.text in COUNTRIES:
            if root.dep_ in {"amod", "compound"} and root.head.dep_ == "attr" and root.head.head.lemma_ == "be":
                candidates.append((ent, NATIONALITIES))
        elif ent.label_ in {"GPE", "LOC"} and ent.text in COUNTRY_NAMES:
            prep = root.head
            if root.dep_ == "pobj" and prep.lower_ in {"in", "of"} and prep.head.lemma_.lower() in PLACE_HEADS:
                candidates.append((ent, COUNTRY_NAMES))
    rng.shuffle(candidates)
    for ent, values in candidates:
        options = [v for v in values if not _same_state(v, ent.text) and not mentions(ev, v)]
        if options:
            return replace_span(doc, ent.start, ent.end, rng.choice(options))
    return None


def _unless_indefinite(doc: Doc, edit: str | None) -> str | None:
    """The edit, unless the value it changed sits where another could hold too (``_indefinite``)."""
    if edit is None:
        return None
    offset = next((i for i, (a, b) in enumerate(zip(doc.text, edit)) if a != b), min(len(doc.text), len(edit)))
    changed = next((t.i for t in doc if t.idx + len(t.text) > offset), len(doc) - 1)
    return None if _indefinite(doc, changed) else edit


def date_edit_or_none(doc: Doc, passage: str, rng: random.Random) -> str | None:
    """``contrast.date_edit`` on the passage, for a date no other value could share."""
    return _unless_indefinite(doc, date_edit(doc, passage, rng))


def number_edit_or_none(doc: Doc, passage: str, rng: random.Random) -> str | None:
    """``contrast.number_edit`` on the passage, for a count no other value could share."""
    return _unless_indefinite(doc, number_edit(doc, passage, rng))


KINSHIP = {"father", "mother", "son", "daughter"}


def kinship_edit(doc: Doc, passage: str) -> str | None:
    """ "father of" <-> "son of", "mother of" <-> "daughter of" (``contrast.ROLE_SWAPS``' exclusive pairs) when the
    passage has the original role's cue and none of the new one's. The other role swaps are left out: born in
    and died in, directed and starred in, can both hold, so a swap of them does not say otherwise."""
    ev = evidence_text(passage)
    for pattern, new, old_role, new_role in ROLE_SWAPS:
        if old_role not in KINSHIP or (match := re.search(pattern, doc.text, flags=re.IGNORECASE)) is None:
            continue
        if any(mentions(ev, cue) for cue in ROLE_CUES[old_role]) and not any(
            mentions(ev, cue) for cue in ROLE_CUES[new_role]
        ):
            edited = doc.text[: match.start()] + new + doc.text[match.end() :]
            return edited[:1].upper() + edited[1:]
    return None


def slot_refutes(cases: list[Case], inputs: Inputs, rng: random.Random) -> list[dict]:
    """ "Says otherwise" -> REFUTES: a REFUTES gold set inside its page neighbours; a SUPPORTS claim's value
    changed where the passage (its gold sentence with 1-2 neighbours, or its gold set of several sentences in
    page order) states the original and not the new one."""
    out = []
    counts: collections.Counter = collections.Counter()
    for case in cases:
        if case.label not in {SUPPORTS, REFUTES}:
            continue
        gold = in_page_order(case.sets[0])
        page = inputs.pages[gold[0].page]
        if len({p.page for p in gold}) == 1:
            stretch = with_neighbours(gold, page, rng.randint(1, 2), rng, exclude=case.gold)
            if len(stretch) == len(gold) and len(gold) == 1:
                continue  # a lone sentence is what the single-sentence pairs already show
        else:
            first = [p for p in gold if p.page == gold[0].page]
            stretch = with_neighbours(first, page, int(rng.random() < 0.5), rng, exclude=case.gold)
            stretch += [p for p in gold if p.page != gold[0].page]
        if not fits(stretch):
            continue
        if case.label == REFUTES:
            out.append(make_pair(case.claim, stretch, REFUTES, "reader-slot-refutes"))
            continue
        doc, passage = inputs.docs[case.claim], evidence_text(joined(stretch))
        edits = {
            "place": place_edit(doc, passage, rng, gold[0].title),
            "date": date_edit_or_none(doc, passage, rng),
            "number": number_edit_or_none(doc, passage, rng),
            "comparative": comparative_edit(doc, passage),
            "kinship": kinship_edit(doc, passage),
        }
        edits = {
            k: v
            for k, v in edits.items()
            if v and re.sub(r"\W+", "", v.lower()) != re.sub(r"\W+", "", case.claim.lower())
        }
        if edits:
            fewest = min(counts[k] for k in edits)
            kind = rng.choice(sorted(k for k in edits if counts[k] == fewest))
            counts[kind] += 1
            out.append(make_pair(edits[kind], stretch, REFUTES, "reader-slot-refutes"))
    return out


# -- 4b. the claim's value present in another role ----------------------------------------------------
# Single-valued slots a value is bound to, by the word that governs it, and the words that would state the
# slot in a passage ("born in 1879" is stated by a sentence saying "born" or "birth").
SLOT_CUES = {
    "bear": {"born", "birth", "birthplace"},
    "born": {"born", "birth", "birthplace"},
    "die": {"died", "death", "dies"},
    "locate": {"located", "lies", "situated", "location"},
    "situate": {"located", "lies", "situated", "location"},
    "base": {"based", "headquartered", "headquarters"},
    "headquarter": {"based", "headquartered", "headquarters"},
    "bury": {"buried", "burial", "interred"},
    "capital": {"capital"},
    "found": {"founded", "established", "formed", "foundation"},
    "establish": {"founded", "established", "formed", "foundation"},
    "form": {"founded", "established", "formed", "foundation"},
    "release": {"released", "release"},
    "publish": {"published", "publication"},
    "open": {"opened", "opening"},
    "complete": {"completed", "completion"},
    "build": {"built", "constructed", "construction"},
    "premiere": {"premiered", "premiere"},
    "launch": {"launched", "launch"},
}
YEAR_ONLY = {"release", "publish", "open", "complete", "build", "premiere", "launch", "found", "establish", "form"}
YEAR = re.compile(r"1[5-9]\d\d|20[0-2]\d")


def bound_value(doc: Doc, title: str) -> tuple[Span, set[str]] | None:
    """An entity of the claim in a single-valued slot, with the words that would state that slot: a place after
    "born in", "located in", "the capital of", …; a place that "is the capital of" something; a year after
    "born in", "died in", "founded in". Never what the claim is about, never a value another could share."""
    about, name = about_words(doc, title), claim_words(without_disambiguator(title))
    for ent in doc.ents:
        root = ent.root
        if claim_words(ent.text) & name or _indefinite(doc, root.i):
            continue
        place = ent.label_ in {"GPE", "LOC"}
        year = ent.label_ == "DATE" and YEAR.fullmatch(ent.text) is not None
        if not (place or year):
            continue
        if root.dep_ == "pobj" and root.head.lower_ in {"in", "of", "at"} and not claim_words(ent.text) & about:
            governor = root.head.head.lemma_.lower()
            if place and governor in PLACE_HEADS and governor not in SLOT_CUES:  # "a town in X", "a county of X"
                return ent, {governor, "located", "lies", "situated"}
            if (
                governor in SLOT_CUES
                and (year or governor not in YEAR_ONLY)
                and (place or governor not in {"locate", "situate", "capital", "base"})
            ):
                return ent, SLOT_CUES[governor]
        if place and root.dep_ == "nsubj" and root.head.lemma_ == "be":
            attr = next((c for c in root.head.children if c.dep_ == "attr"), None)
            if attr is not None and attr.lemma_.lower() == "capital" and any(c.lower_ == "the" for c in attr.children):
                return ent, SLOT_CUES["capital"]
    return None


def _same_kind(label: str, value: str) -> bool:
    return label in {"GPE", "LOC"} if not YEAR.fullmatch(value) else label == "DATE"


def other_values(ent: Span, sentences: list[Passage], entities, about: set[str]) -> list[tuple[str, Passage]]:
    """Values of the entity's kind that the sentences name, none of them the entity's own, one including the other
    or what the claim is about: (value as the sentence writes it, the sentence)."""
    own = ent.text.lower()
    out = []
    for sentence in sentences:
        for label, text in entities[sentence.text]:
            if not _same_kind(label, ent.text) or (YEAR.fullmatch(ent.text) and not YEAR.fullmatch(text)):
                continue
            if own in text or text in own or _same_state(text, own) or claim_words(text) & about:
                continue
            match = re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", sentence.text, flags=re.IGNORECASE)
            if match:
                out.append((sentence.text[match.start() : match.end()], sentence))
    return sorted(set(out), key=lambda v: (v[0], v[1].line or 0))


def exclusive(value: str, other: str, sentences: list[Passage]) -> bool:
    """Whether a single-valued slot holding ``value`` cannot hold ``other`` too: two years; two countries, or two
    places neither of which is a country, never written within a few words of each other (a place "in" another,
    "Ulm, in the Kingdom of Württemberg", may hold both)."""
    if YEAR.fullmatch(value):
        return True
    if (value in COUNTRY_NAMES) != (other in COUNTRY_NAMES):
        return False
    for sentence in sentences:
        text = sentence.text.lower()
        for a in re.finditer(re.escape(value.lower()), text):
            for b in re.finditer(re.escape(other.lower()), text):
                if max(a.start(), b.start()) - min(a.end(), b.end()) < 40:
                    return False
    return True


def value_elsewhere(
    cases: list[Case],
    inputs: Inputs,
    rng: random.Random,
    search: Callable[[str], list[Passage]] | None = None,
    allowed: set[str] = frozenset(),
) -> list[dict]:
    """The claim's value present in the passage in another role ("Toronto is the capital of Canada" against "Its
    capital is Ottawa and its largest metropolitan areas are Toronto, Montreal and Vancouver").

    From a SUPPORTS claim whose gold sentence binds a value to a single-valued slot (``bound_value``), the value
    is changed to another of its kind that the passage names in another role:
    * against its gold sentences with the sentence naming the new value -> REFUTES
      (``reader-value-elsewhere-refutes``): the slot is stated, and holds the original;
    * against sentences of its page (gold removed) that name neither the original value nor any word stating the
      slot, with the sentence naming the new value -> NOT ENOUGH INFO (``reader-value-elsewhere-nei``): present
      is not stated.
    The sentence naming the new value is the gold's own or a page neighbour's where the page has one; otherwise
    (the corpus holds few sentences a page) one of another page that retrieval ranks high for the claim and that
    does not name the claim's page. Pairs carry the claim's page's title."""
    out = []
    for case in cases:
        if case.label != SUPPORTS:
            continue
        gold = in_page_order(case.sets[0])
        if len({p.page for p in gold}) != 1:
            continue
        page = inputs.pages.get(gold[0].page, [])
        doc, title = inputs.docs[case.claim], gold[0].title
        found = bound_value(doc, title)
        if found is None or not mentions(evidence_text(joined(gold)), found[0].text):
            continue
        ent, cues = found
        about = about_words(doc, title)

        def quiet(p: Passage, e: Span = ent, c: set[str] = cues) -> bool:
            text = evidence_text(p.text)
            return not mentions(text, e.text) and not (claim_words(text) & c)

        others = [p for p in page if (p.page, p.line) not in case.gold]
        silent_own = [p for p in others if quiet(p)]
        stretch = with_neighbours(gold, page, rng.randint(1, 2), rng, exclude=case.gold)
        values = [v for v in other_values(ent, stretch, inputs.entities, about) if exclusive(ent.text, v[0], stretch)]
        nei = other_values(ent, silent_own, inputs.entities, about)
        if not values:  # the gold beside a sentence of its page that names another value of the kind
            order = {(p.page, p.line): i for i, p in enumerate(page)}
            for value, sentence in other_values(ent, page, inputs.entities, about):
                joint = sorted({*gold, sentence}, key=lambda p: order.get((p.page, p.line), -1))
                if fits(joint) and exclusive(ent.text, value, joint):
                    stretch, values = joint, [(value, sentence)]
                    break
        if (not values or not nei) and search is not None:  # a topic-near sentence of another page
            for hit in other_page_hits(case, search, allowed, inputs):
                named = [v for v in other_values(ent, [hit], inputs.entities, about) if quiet(hit)]
                if named and not names_page(title, [hit]):
                    if not values and fits(gold + [hit]) and exclusive(ent.text, named[0][0], gold + [hit]):
                        stretch = gold + [hit] if rng.random() < 0.5 else [hit] + gold
                        values = named[:1]
                    if not nei and silent_own:
                        nei = [(named[0][0], hit)]
                    break
        if values and fits(stretch):
            new, _ = rng.choice(values)
            pair = make_pair(replace_span(doc, ent.start, ent.end, new), stretch, REFUTES,
                             "reader-value-elsewhere-refutes")  # fmt: skip
            out.append(pair | {"title": title})
        if nei:
            new, sentence = rng.choice(nei)
            passage = [] if sentence.page == gold[0].page else [rng.choice(silent_own)]
            passage = [sentence, *passage] if rng.random() < 0.5 else [*passage, sentence]
            if fits(passage):
                pair = make_pair(replace_span(doc, ent.start, ent.end, new), passage, NEI,
                                 "reader-value-elsewhere-nei")  # fmt: skip
                out.append(pair | {"title": title})
    return out


# -- 5. several sentences together --------------------------------------------------------------------
def _covers(slot: str, text: str) -> bool:
    words = claim_words(text)
    if " " in slot or not slot.isalnum():
        return slot in text.lower()
    return slot in words or (len(slot) >= 5 and slot[:5] in {w[:5] for w in words if len(w) >= 5})


def needed_slots(doc: Doc, title: str) -> set[str]:
    """The claim's entities and its noun and number words, beyond its page's name and its subject."""
    about = about_words(doc, title)
    name_words = claim_words(without_disambiguator(title))
    entities = {e.text.lower() for e in doc.ents if not claim_words(e.text) <= about}
    nouns = {
        t.lemma_.lower()
        for t in doc
        if t.pos_ in {"NOUN", "PROPN", "NUM"}
        and not t.is_stop
        and (t.is_alpha or t.like_num)
        and t.lower_ not in name_words | about
    }
    return entities | nouns


def multi_sentence_pairs(cases: list[Case], inputs: Inputs, rng: random.Random) -> list[dict]:
    """A SUPPORTS set of 2+ sentences in page order (with one neighbour, half the time) -> SUPPORTS, and the same
    passage without one sentence that alone holds one of the claim's values -> NOT ENOUGH INFO.

    A deletion is kept only when no other gold set of the claim is left whole in the passage."""
    out = []
    for case in cases:
        if case.label != SUPPORTS:
            continue
        for evidence_set in case.sets:
            gold = in_page_order(evidence_set)
            if len(gold) < 2:
                continue
            first_page = [p for p in gold if p.page == gold[0].page]
            with_one = with_neighbours(first_page, inputs.pages[gold[0].page], int(rng.random() < 0.5), rng, case.gold)
            passage = with_one + [p for p in gold if p.page != gold[0].page]
            if not fits(passage):
                continue
            out.append(make_pair(case.claim, passage, SUPPORTS, "reader-multi-supports"))
            slots = needed_slots(inputs.docs[case.claim], gold[0].title)
            needed = []
            for sentence in gold:
                rest = [p for p in passage if p != sentence]
                if any(set(other) <= set(rest) for other in case.sets):
                    continue
                if any(_covers(s, sentence.text) and not any(_covers(s, p.text) for p in rest) for s in slots):
                    needed.append(sentence)
            if needed:
                dropped = rng.choice(needed)
                rest = [p for p in passage if p != dropped]
                out.append(make_pair(case.claim, rest, NEI, "reader-deletion-nei"))
            break
    return out


def gold_context(cases: list[Case], inputs: Inputs, rng: random.Random) -> list[dict]:
    """One SUPPORTS gold sentence with 1-2 of its page neighbours -> SUPPORTS (context does not flip it).

    Every SUPPORTS claim with a one-sentence gold set, the synthetic ones among them: their own page's other
    sentences are what ``reader-own-page-nei`` shows them with, so without this the reader would meet a claim
    beside its own page only where the page is silent on it."""
    out = []
    for case in cases:
        if case.label != SUPPORTS or len(case.sets[0]) != 1:
            continue
        gold = case.sets[0][0]
        stretch = with_neighbours([gold], inputs.pages[gold.page], rng.randint(1, 2), rng, exclude=case.gold)
        if len(stretch) >= 2 and fits(stretch):
            out.append(make_pair(case.claim, stretch, SUPPORTS, "reader-gold-context"))
    return out


def unrelated(doc: Doc, title: str, sentences: list[Passage], entities) -> bool:
    """Sentences that do not name the claim's page and are ``silent`` about it."""
    return not names_page(title, sentences) and silent(doc, title, sentences, entities)


def gold_among_others(
    cases: list[Case], inputs: Inputs, search: Callable[[str], list[Passage]], allowed: set[str], rng: random.Random
) -> list[dict]:
    """A one-page gold set of 1-2 sentences beside 1-2 neighbouring sentences of another page that retrieval ranks
    high for the claim, that do not name the claim's page and are ``silent`` about it -> the gold's label, SUPPORTS
    or REFUTES (MiniCheck's chunks: sentences that say nothing of the claim change nothing). The gold comes first or
    last at random, and the pair carries the gold page's title.

    ``reader-topic-near-nei`` shows such sentences without the gold as NOT ENOUGH INFO; this is the other side
    of that contrast, so that a passage's unrelated sentences never decide its label. FEVEROUS cases are left
    out: their evidence text may lack the table cell that decides them (see ``reader-slot-refutes``)."""
    out = []
    for case in cases:
        if case.label not in {SUPPORTS, REFUTES} or case.source == "feverous":
            continue
        gold = in_page_order(case.sets[0])
        if len({p.page for p in gold}) != 1 or len(gold) > 2:
            continue
        doc, title = inputs.docs[case.claim], gold[0].title
        for hit in other_page_hits(case, search, allowed, inputs):
            stretch = with_neighbours([hit], inputs.pages[hit.page], rng.randint(0, 1), rng)
            if not stretch:  # a sentence its page leaves out (a heading, a repeat)
                continue
            others = next((o for o in (stretch, [hit]) if unrelated(doc, title, o, inputs.entities)), None)
            if others is None:
                continue
            passage = gold + others if rng.random() < 0.5 else others + gold
            if not fits(passage):
                continue
            pair = make_pair(case.claim, passage, case.label, "reader-gold-among-others")
            out.append(pair | {"title": gold[0].title})
            break
    return out


# -- 6. WiCE --------------------------------------------------------------------------------------------
def wice_pairs(rows: list[dict], part: str, held_out_titles: set[str]) -> list[dict]:
    """WiCE's partially supported subclaims against their supporting sentences (all annotated sets, in document
    order; the smallest set alone when together they are too long) -> NOT ENOUGH INFO. A subclaim whose
    unbacked words hold a digit is left out: "106 reviews" against a page's "All Critics (110)" says otherwise. ``part`` "validation"
    takes the subclaims whose Wikipedia title hashes into ``WICE_VALIDATION_BUCKETS``, "train" the others."""
    out = []
    for row in rows:
        if row.get("label") != "partially_supported" or row.get("supported") or not row.get("non_supported_tokens"):
            continue
        held = hash_bucket(f"wice:{row['title']}") in WICE_VALIDATION_BUCKETS
        if held != (part == "validation") or (part == "train" and row["title"] in held_out_titles):
            continue
        if any(re.search(r"\d", token) for token in row["non_supported_tokens"]):
            continue  # an unbacked number or date: the page may state another one, which says otherwise
        lines = row["document"].split("\n")
        sets = sorted((sorted(set(s)) for s in row["supporting_sentences"] if s), key=len)
        for chosen in [sorted({i for s in sets for i in s}), *sets]:
            if not chosen or chosen[-1] >= len(lines):
                break
            sentences = [lines[i].strip() for i in chosen if lines[i].strip()]
            text = " ".join(sentences)
            if 0 < len(sentences) <= MAX_SENTENCES and len(text) <= MAX_CHARS:
                title = _META_TITLE.search(row["document"])
                out.append(
                    {
                        "claim": row["claim"],
                        "title": title.group(1).strip() if title else "",
                        "evidence": text,
                        "label": NEI,
                        "origin": "reader-wice-train",
                        "pages": [],
                    }
                )
                break
    return out


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
        command = [sys.executable, str(REPO / "training" / "build_pairs.py"), "--shared", str(args.shared)]
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
    wice = [orjson.loads(line) for line in (args.shared / "grounding" / "wice_train_subclaims.jsonl").open("rb")]

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
