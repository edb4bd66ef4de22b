"""The reader's NOT ENOUGH INFO passage pairs: a claim against sentences of its own page that settle nothing
about it (``reader-own-page-nei``), a claim whose value was changed against sentences that state no value of
that kind (``reader-slot-absent-nei``), neighbouring sentences of a page retrieval ranks high
(``reader-topic-near-nei``) and WiCE's partially supported subclaims (``reader-wice-train``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import orjson
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Span

from mermaid_verifier.evaluation.datasets import hash_bucket
from mermaid_verifier.names import without_disambiguator
from mermaid_verifier.tools.corpus_index import Passage
from training.edits import evidence_text, mentions, replace_span
from training.kind_words import COUNTRIES
from training.nei_pairs import about_words, claim_words
from training.reader_cases import (
    FAMILY,
    MAX_CHARS,
    MAX_SENTENCES,
    NEI,
    SUPPORTS,
    Case,
    Inputs,
    fits,
    holds_value,
    joined,
    make_pair,
    names_page,
    other_page_hits,
    runs,
    silent,
    unsettled,
    with_neighbours,
)
from training.reader_slots import NATIONALITIES, same_state

WICE_VALIDATION_BUCKETS = range(0, 15)  # WiCE subclaims whose Wikipedia title hashes here are kept for measuring
SLOT_LABELS = {"PERSON", "ORG", "GPE", "LOC", "NORP", "DATE", "CARDINAL"}  # the slots reader-slot-absent changes
_META_TITLE = re.compile(r"^\(meta data\) TITLE: (.+)$", re.MULTILINE)


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
        options = [n for n in NATIONALITIES if not same_state(n, ent.text) and not mentions(page_text, n)]
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


# -- 6. WiCE --------------------------------------------------------------------------------------------
def wice_subclaims(shared: Path) -> list[dict]:
    """WiCE's training subclaims with their cited pages (``grounding/wice_train_subclaims.jsonl``)."""
    return [orjson.loads(line) for line in (shared / "grounding" / "wice_train_subclaims.jsonl").open("rb")]


def wice_part(row: dict, held_out_titles: set[str]) -> str | None:
    """ "validation" for a subclaim whose Wikipedia title hashes into ``WICE_VALIDATION_BUCKETS``, "train" for the
    others, None for one of a page titled as a held-out page (neither part: never trained on, never measured)."""
    if hash_bucket(f"wice:{row['title']}") in WICE_VALIDATION_BUCKETS:
        return "validation"
    return None if row["title"] in held_out_titles else "train"


def wice_pairs(rows: list[dict], part: str, held_out_titles: set[str]) -> list[dict]:
    """WiCE's partially supported subclaims against their supporting sentences (all annotated sets, in document
    order; the smallest set alone when together they are too long) -> NOT ENOUGH INFO. A subclaim whose
    unbacked words hold a digit is left out: "106 reviews" against a page's "All Critics (110)" says otherwise. ``part`` "validation"
    takes the subclaims whose Wikipedia title hashes into ``WICE_VALIDATION_BUCKETS``, "train" the others."""
    out = []
    for row in rows:
        if row.get("label") != "partially_supported" or row.get("supported") or not row.get("non_supported_tokens"):
            continue
        if wice_part(row, held_out_titles) != part:
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
