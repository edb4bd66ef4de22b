"""NOT ENOUGH INFO training pairs, built three ways from claims whose evidence we know.

A fact-checker must say "this does not settle it" for text that is *about* the claim's subject but not
about the claimed fact. Three kinds of such pairs:

* ``page_other_pairs`` — other sentences of the claim's own page (retrieved by page, not annotated as
  evidence) that mention none of the claim's facts: same topic, nothing decisive;
* ``span_removed_pairs`` — the gold evidence with the claim's decisive span (the object, a number, a
  date, a named qualifier) cut out, so it no longer settles the claim (the SufficientFacts idea);
* ``other_claim_pairs`` — the right page's sentence paired with a claim about another fact of that page.

"Mentions none of the claim's facts" is decided on the claim's *slots*: its named entities, numbers and
content words that are not part of the page's title. Rules are strict on purpose: a pair they cannot
make safely is skipped, never guessed.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

from spacy.language import Language
from spacy.tokens import Doc, Span

from mermaid_verifier.names import without_disambiguator

CONTENT_POS = {"NOUN", "PROPN", "NUM", "ADJ", "VERB"}
REMOVABLE_ENTITIES = {
    "PERSON",
    "GPE",
    "NORP",
    "ORG",
    "DATE",
    "CARDINAL",
    "ORDINAL",
    "LANGUAGE",
    "LOC",
    "EVENT",
    "WORK_OF_ART",
    "FAC",
    "PRODUCT",
    "MONEY",
    "QUANTITY",
    "PERCENT",
    "TIME",
}
NEI = "NOT ENOUGH INFO"


def claim_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _subject_words(doc: Doc) -> set[str]:
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    subject = next((t for t in (root.children if root is not None else []) if t.dep_ in {"nsubj", "nsubjpass"}), None)
    return claim_words("".join(t.text_with_ws for t in subject.subtree)) if subject is not None else set()


def about_words(doc: Doc, title: str) -> set[str]:
    """The words of what the claim is about, never cut from evidence: its page's name and its subject.

    Conservative: when the subject is itself the decisive span ("Fox 2000 Pictures released Soul Food")
    no pair is made."""
    return claim_words(without_disambiguator(title)) | _subject_words(doc)


def claim_slots(doc: Doc, title: str) -> tuple[set[str], set[str]]:
    """(entity texts, content lemmas) of the claim that are not the page's own name."""
    name_words = claim_words(without_disambiguator(title))
    entities = {ent.text.lower() for ent in doc.ents if not claim_words(ent.text) <= name_words}
    lemmas = {
        t.lemma_.lower()
        for t in doc
        if t.pos_ in CONTENT_POS
        and not t.is_stop
        and (t.is_alpha or t.like_num)
        and t.lower_ not in name_words
        and t.lemma_.lower() not in name_words
        and t.lemma_ != "be"
    }
    return entities, lemmas


def settles_nothing(sentence: str, slots: tuple[set[str], set[str]], lemma_share: float = 0.34) -> bool:
    """True when the sentence names none of the claim's entities and shares few of its content words."""
    entities, lemmas = slots
    lowered, words = sentence.lower(), claim_words(sentence)
    if any(entity in lowered for entity in entities):
        return False
    if not lemmas:
        return False  # a claim with no fact beyond its subject: any sentence of the page may settle it
    shared = sum(1 for lemma in lemmas if lemma in words or lemma[:5] in {w[:5] for w in words if len(w) >= 5})
    return shared / len(lemmas) < lemma_share


def page_other_pairs(
    claims: list[dict],
    page_sentences: dict[str, list[tuple[str, str]]],
    docs: list[Doc],
    rng: random.Random,
    per_claim: int = 1,
) -> list[dict]:
    """For each claim ``{claim, page, label, gold_texts}``: up to ``per_claim`` unannotated sentences of its page
    that settle nothing about it."""
    out = []
    for row, doc in zip(claims, docs):
        title, rows = row["title"], page_sentences.get(row["page"], [])
        slots = claim_slots(doc, title)
        options = [text for _, text in rows if text not in row["gold_texts"] and settles_nothing(text, slots)]
        for text in rng.sample(options, min(per_claim, len(options))):
            out.append({"claim": row["claim"], "title": title, "evidence": text, "label": NEI, "origin": row["origin"]})
    return out


def other_claim_pairs(claims: list[dict], docs: list[Doc], rng: random.Random) -> list[dict]:
    """A claim paired with the evidence sentence of another claim about the same page, when that sentence
    settles nothing about it."""
    by_page: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(claims):
        by_page[row["page"]].append(i)
    out = []
    for i, (row, doc) in enumerate(zip(claims, docs)):
        slots = claim_slots(doc, row["title"])
        others = [
            claims[j]["gold_texts"][0]
            for j in by_page[row["page"]]
            if j != i and claims[j]["gold_texts"] and claims[j]["claim"] != row["claim"]
        ]
        options = [text for text in others if text not in row["gold_texts"] and settles_nothing(text, slots)]
        if options:
            out.append(
                {
                    "claim": row["claim"],
                    "title": row["title"],
                    "evidence": rng.choice(options),
                    "label": NEI,
                    "origin": row["origin"],
                }
            )
    return out


def _decisive_spans(claim: Doc, evidence: Doc, label: str, title: str) -> list[Span]:
    """Spans of the *evidence* that settle the claim: for SUPPORTS, the claim's entities (or its object's
    head word) as the evidence states them; for REFUTES, the evidence's entities of the type of a claim
    entity the evidence does not state (the value the claim got wrong). What the claim is *about*
    (``about_words``) is never removed."""
    protected = about_words(claim, title)
    evidence_lower = evidence.text.lower()
    claim_ents = [e for e in claim.ents if e.label_ in REMOVABLE_ENTITIES and not claim_words(e.text) & protected]
    if label == "SUPPORTS":
        wanted = {e.text.lower() for e in claim_ents if e.text.lower() in evidence_lower}
        if not wanted:
            root = next((t for t in claim if t.dep_ == "ROOT"), None)
            objects = [
                t for t in (root.children if root is not None else []) if t.dep_ in {"dobj", "attr", "pobj", "acomp"}
            ]
            wanted = {
                t.text.lower()
                for t in objects
                if t.pos_ in {"NOUN", "PROPN", "ADJ", "NUM"} and t.lower_ not in protected and not t.is_stop
            }
        spans = [e for e in evidence.ents if e.text.lower() in wanted]
        spans += [evidence[t.i : t.i + 1] for t in evidence if t.lower_ in wanted and not t.ent_type_]
        return spans
    stated = set().union(*(claim_words(e.text) for e in claim.ents)) | protected
    missing = {e.label_ for e in claim_ents if e.text.lower() not in evidence_lower}
    return [e for e in evidence.ents if e.label_ in missing and not claim_words(e.text) & stated]


def _removal_tokens(span: Span) -> set[int]:
    """The span, widened to the prepositional phrase or apposition it sits in, so the rest still reads."""
    root = span.root
    if root.dep_ == "pobj" and root.head.dep_ in {"prep", "agent"}:
        return {t.i for t in root.head.subtree}
    if root.dep_ in {"appos", "conj"}:
        return {t.i for t in root.subtree}
    return set(range(span.start, span.end))


def remove_spans(evidence: Doc, spans: list[Span]) -> str | None:
    """The evidence without the spans (and their phrases); None if what is left is too short to read."""
    drop: set[int] = set()
    for span in spans:
        drop |= _removal_tokens(span)
    kept = [t for t in evidence if t.i not in drop]
    if len(kept) < 5 or len(kept) > len(evidence) - 1:
        return None
    text = "".join(t.text_with_ws for t in kept)
    text = re.sub(r"\s+([,.;:])", r"\1", text)
    text = re.sub(r"(,\s*)+([.;])", r"\2", text)
    text = re.sub(r"\((?:\s*\w+)?\s*\)", "", text)  # "( )" or "(played )" left by a cut
    text = re.sub(r",\s*,", ",", text)
    return re.sub(r"\s{2,}", " ", text).strip(" ,")


def span_removed_pairs(rows: list[dict], nlp: Language) -> list[dict]:
    """Gold (claim, evidence) pairs with the decisive span cut out of the evidence → NOT ENOUGH INFO."""
    claim_docs = list(nlp.pipe([r["claim"] for r in rows], batch_size=256))
    evidence_docs = list(nlp.pipe([r["evidence"] for r in rows], batch_size=128))
    out = []
    for row, claim, evidence in zip(rows, claim_docs, evidence_docs):
        spans = _decisive_spans(claim, evidence, row["label"], row.get("title") or "")
        if not spans:
            continue
        cut = remove_spans(evidence, spans)
        if cut is None or any(span.text.lower() in cut.lower() for span in spans):
            continue  # the fact is stated twice, or nothing readable is left
        kept_subject = _subject_words(claim) & claim_words(evidence.text)
        if not kept_subject <= claim_words(cut):
            continue  # the cut took what the claim is about with it
        if row["label"] == "SUPPORTS" and not settles_nothing(cut, claim_slots(claim, row.get("title") or "")):
            continue  # the rest still states the claim's facts ("the capital" after cutting "city")
        out.append(row | {"evidence": cut, "label": NEI, "origin": row["origin"] + "-span-removed"})
    return out
