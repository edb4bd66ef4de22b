"""The reader's SUPPORTS passage pairs and their deletions: evidence sets of 2+ sentences joined in page order
(``reader-multi-supports``) and the same passage with a needed sentence deleted (``reader-deletion-nei``), gold
with its page neighbours (``reader-gold-context``) and gold beside sentences of a topic-near page that are
silent about the claim (``reader-gold-among-others``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from spacy.tokens import Doc

from mermaid_verifier.names import without_disambiguator
from mermaid_verifier.tools.corpus_index import Passage
from training.nei_pairs import about_words, claim_words
from training.reader_cases import (
    NEI,
    REFUTES,
    SUPPORTS,
    Case,
    Inputs,
    fits,
    in_page_order,
    make_pair,
    names_page,
    other_page_hits,
    silent,
    with_neighbours,
)


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
