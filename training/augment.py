"""Contrastive FEVER-style training pairs made from the gold pairs of the train part.

FEVER's REFUTES claims were written by mutating true claims: negating them or swapping an entity
for another of the same kind. The train part of ``paper_dev`` gives only ~850 gold pairs, too few
for the stance model to learn that a one-word change flips the label. For each gold pair we add
the same evidence with a mutated claim:

* negation flip: insert or remove the negation of the main verb; SUPPORTS <-> REFUTES;
* entity swap (SUPPORTS only): an entity of the claim that the evidence states is replaced by a
  different entity of the same type from other train-part claims; the result is REFUTES.

Mutations that spaCy cannot place are skipped, never guessed. Rules are simple on purpose and some
outputs are clumsy English; they are training signal, not claims anyone reads.
"""

from __future__ import annotations

import random
from collections import defaultdict

from spacy.language import Language
from spacy.tokens import Doc

SWAPPABLE = {"PERSON", "GPE", "NORP", "ORG", "DATE", "CARDINAL", "ORDINAL", "LANGUAGE", "LOC", "EVENT", "WORK_OF_ART"}
NUMERIC = {"DATE", "CARDINAL"}
NEGATIONS = {"not", "n't", "never"}
AUXILIARIES = {"be", "have", "do", "can", "could", "will", "would", "shall", "should", "may", "might", "must"}
FLIP = {"SUPPORTS": "REFUTES", "REFUTES": "SUPPORTS"}


def negation_flip(doc: Doc) -> str | None:
    """The claim with its main verb's negation inserted or removed; None when no rule applies."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in {"VERB", "AUX"}:
        return None
    if not any(t.dep_ in {"nsubj", "nsubjpass"} and t.i < root.i for t in root.children):
        return None  # no subject before the verb: the parse is unlikely to be a plain clause
    negation = next((t for t in root.children if t.dep_ == "neg"), None)
    if negation is not None:
        return _join(doc, skip={negation.i})
    aux = next((t for t in root.children if t.dep_ in {"aux", "auxpass"} and t.lemma_ in AUXILIARIES), None)
    if aux is not None:
        return _join(doc, after={aux.i: "not"})
    if root.lemma_ == "be" or (root.pos_ == "AUX" and root.lemma_ in AUXILIARIES):
        return _join(doc, after={root.i: "not"})
    if root.tag_ in {"VBD", "VBZ", "VBP"}:
        helper = {"VBD": "did", "VBZ": "does", "VBP": "do"}[root.tag_]
        return _join(doc, replace={root.i: f"{helper} not {root.lemma_}"})
    return None


def entity_swap(doc: Doc, evidence: str, title: str, pool: dict[str, list[str]], rng: random.Random) -> str | None:
    """Swap one entity the evidence states for a different one of the same type; None if none fits."""
    evidence_lower, title_lower = evidence.lower(), title.lower()
    candidates = [
        ent
        for ent in doc.ents
        if ent.label_ in SWAPPABLE
        and ent.text.lower() in evidence_lower
        and ent.text.lower() not in title_lower
        and _numeric_enough(ent.label_, ent.text)
    ]
    if not candidates:
        return None
    ent = rng.choice(candidates)
    options = [
        text
        for text in pool.get(ent.label_, [])
        if text.lower() not in evidence_lower and _numeric_enough(ent.label_, text)
    ]
    if not options:
        return None
    return (
        doc[: ent.start].text_with_ws
        + rng.choice(options)
        + doc[ent.start :].text_with_ws[len(ent.text_with_ws.rstrip()) :]
    )


def _numeric_enough(label: str, text: str) -> bool:
    """Dates and counts are swapped only when they hold a digit: spaCy also tags "monthly" or "annual" DATE."""
    return label not in NUMERIC or any(ch.isdigit() for ch in text)


def entity_pool(docs: list[Doc]) -> dict[str, list[str]]:
    pool: dict[str, set[str]] = defaultdict(set)
    for doc in docs:
        for ent in doc.ents:
            if ent.label_ in SWAPPABLE:
                pool[ent.label_].add(ent.text)
    return {label: sorted(texts) for label, texts in pool.items()}


def mutated_pairs(gold_pairs: list[dict], nlp: Language, rng: random.Random) -> list[dict]:
    """One negation flip per gold pair and one entity swap per SUPPORTS pair, where rules apply."""
    docs = list(nlp.pipe([p["claim"] for p in gold_pairs]))
    pool = entity_pool(docs)
    out = []
    for row, doc in zip(gold_pairs, docs):
        if row["label"] not in FLIP:
            continue
        flipped = negation_flip(doc)
        if flipped and flipped != row["claim"]:
            out.append(row | {"claim": flipped, "label": FLIP[row["label"]], "origin": "fever-negated"})
        if row["label"] == "SUPPORTS":
            swapped = entity_swap(doc, row["evidence"], row["title"], pool, rng)
            if swapped and swapped != row["claim"]:
                out.append(row | {"claim": swapped, "label": "REFUTES", "origin": "fever-swapped"})
    return out


def _join(
    doc: Doc, skip: set[int] = frozenset(), after: dict[int, str] | None = None, replace: dict[int, str] | None = None
) -> str:
    after, replace = after or {}, replace or {}
    parts = []
    for token in doc:
        if token.i in skip:
            continue
        text = replace.get(token.i, token.text)
        if token.i in after:
            text = f"{text} {after[token.i]}"
        parts.append(text + token.whitespace_)
    return "".join(parts).replace("  ", " ").strip()
