"""FEVER-style training claims written from corpus sentences, the way FEVER's annotators wrote theirs.

FEVER claims were made by taking one Wikipedia sentence, writing a short claim it supports, and then
mutating that claim (negation, substitution of an entity) into ones it refutes. The train part of
``paper_dev`` gives only ~850 such gold pairs; the wiki corpus holds thousands of sentences on pages
no evaluation part uses. From each such sentence we write:

* SUPPORTS — a short claim: the sentence's subject (a pronoun becomes the page's title) + its main
  verb + the verb's first complement, with parentheses, appositions, relative clauses and
  conjuncts dropped (dropping a conjunct or a modifier generalises, so the sentence still supports it);
* REFUTES — that claim with its main verb's negation flipped (for half of them), and with one entity the sentence
  states swapped for another of the same type (``augment.py``'s rules);
* NOT ENOUGH INFO — the swapped claim against *another* sentence of the same page that does not
  mention the swapped slot: related text that settles nothing, the case the model confuses with REFUTES.

Only pages that are not the anchor page of any validation, calibration or test claim are used.
Rules are simple on purpose; a sentence they cannot place is skipped, never guessed.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

from spacy.language import Language
from spacy.tokens import Doc, Token

from mermaid_verifier.memory.evidence import without_disambiguator
from training.augment import entity_pool, entity_swap, negation_flip

COMPLEMENTS = {"attr", "dobj", "acomp", "oprd", "xcomp", "prep", "agent", "dative", "ccomp"}
DROPPED = {"appos", "relcl", "acl", "conj", "cc", "advcl", "parataxis", "punct", "meta", "dep", "preconj"}
PRONOUNS = {"he", "she", "it", "they", "this", "its"}
KEPT_VERB_CHILDREN = {"aux", "auxpass", "neg"}
MIN_WORDS, MAX_WORDS = 4, 18
NEGATED_SHARE = 0.5  # negation is easy to write and easy to learn: flip half the claims, not all


def _span_tokens(head: Token) -> list[Token]:
    """The head's subtree without the dependents that add a second fact (clauses, appositions, conjuncts)."""
    kept = [head]
    for child in head.children:
        if child.dep_ in DROPPED:
            continue
        kept += _span_tokens(child)
    return kept


def _inside_parentheses(doc: Doc) -> set[int]:
    inside, depth = set(), 0
    for token in doc:
        if token.text in "([":
            depth += 1
        if depth:
            inside.add(token.i)
        if token.text in ")]" and depth:
            depth -= 1
    return inside


def simple_claim(doc: Doc, title: str) -> str | None:
    """A short claim the sentence supports, or None when the parse is not a plain subject-verb-complement clause."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in {"VERB", "AUX"} or not _balanced_brackets(doc.text):
        return None
    subject = next((t for t in root.children if t.dep_ in {"nsubj", "nsubjpass"} and t.i < root.i), None)
    complement = next((t for t in root.children if t.dep_ in COMPLEMENTS and t.i > root.i), None)
    if subject is None or complement is None or (subject.lower_ == "it" and complement.dep_ == "ccomp"):
        return None  # no plain clause, or an expletive "it was agreed that ..."
    skip = _inside_parentheses(doc)
    verb = [root] + [t for t in root.children if t.dep_ in KEPT_VERB_CHILDREN]
    body = sorted({t.i for t in verb + _span_tokens(complement)} - skip)
    if subject.lower_ in PRONOUNS and subject.i == min(t.i for t in subject.subtree):
        words = [without_disambiguator(title) + ("'s" if subject.lower_ == "its" else "")]
    else:
        words = [doc[i].text for i in sorted({t.i for t in _span_tokens(subject)} - skip)]
    words += [doc[i].text for i in body]
    if any(doc[i].lower_ in PRONOUNS for i in body) or not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None  # an unresolved pronoun, or too short/long to read as a FEVER claim
    text = " ".join(words)
    text = re.sub(r"\s+([,.;:%'])", r"\1", text).replace(" 's", "'s").replace(" n't", "n't")
    return text[0].upper() + text[1:].rstrip(" ,;:") + "."


def _balanced_brackets(text: str) -> bool:
    return "[" not in text and "]" not in text and text.count("(") == text.count(")")


def _mentions(sentence: str, phrase: str) -> bool:
    return phrase.lower() in sentence.lower()


def synthetic_pairs(
    passages_by_page: dict[str, list[tuple[str, str]]], nlp: Language, rng: random.Random, max_sentences: int
) -> list[dict]:
    """Pairs from up to ``max_sentences`` sentences of the given pages (page -> [(title, text)])."""
    chosen = [(page, title, text) for page, rows in passages_by_page.items() for title, text in rows]
    rng.shuffle(chosen)
    sources = []
    for (page, title, text), doc in zip(chosen, nlp.pipe([text for _, _, text in chosen], batch_size=256)):
        claim = simple_claim(doc, title)
        if claim:
            sources.append((page, title, text, claim))
        if len(sources) >= max_sentences:
            break
    claim_docs = list(nlp.pipe([claim for *_, claim in sources], batch_size=256))
    pool = entity_pool(claim_docs)
    out = []
    for (page, title, text, claim), doc in zip(sources, claim_docs):
        row = {"claim": claim, "title": title, "evidence": text, "label": "SUPPORTS", "origin": "synthetic"}
        out.append(row)
        flipped = negation_flip(doc) if rng.random() < NEGATED_SHARE else None
        if flipped and flipped != claim:
            out.append(row | {"claim": flipped, "label": "REFUTES", "origin": "synthetic-negated"})
        swapped = entity_swap(doc, text, title, pool, rng)
        if not swapped or swapped == claim:
            continue
        out.append(row | {"claim": swapped, "label": "REFUTES", "origin": "synthetic-swapped"})
        unrelated = _unrelated_sentence(doc, swapped, text, title, passages_by_page[page], rng)
        if unrelated is not None:
            out.append(
                row
                | {"claim": swapped, "evidence": unrelated, "label": "NOT ENOUGH INFO", "origin": "synthetic-unsettled"}
            )
    return out


def _unrelated_sentence(
    doc: Doc, swapped: str, source: str, title: str, page_rows: list[tuple[str, str]], rng: random.Random
) -> str | None:
    """Another sentence of the page that mentions neither the entity swapped out nor the one swapped in."""
    name = without_disambiguator(title).lower()
    slots = [ent.text for ent in doc.ents if ent.text.lower() not in name]
    slots += [word for word in swapped.split() if word not in doc.text.split()]
    if not slots:
        return None
    others = [text for _, text in page_rows if text != source and not any(_mentions(text, s) for s in slots)]
    return rng.choice(others) if others else None


def group_by_page(passages) -> dict[str, list[tuple[str, str]]]:
    by_page: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for passage in passages:
        by_page[passage.page].append((passage.title, passage.text))
    return dict(by_page)
