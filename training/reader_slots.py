"""The reader's pairs about one slot's value: the value changed where the passage states the original
(``reader-slot-refutes``: place, nationality, date, number, comparative, role, kinship edits) and the claimed
value present in the passage but bound to another relation (``reader-value-elsewhere-refutes`` / ``-nei``).
"""

from __future__ import annotations

import collections
import random
import re
from collections.abc import Callable

from spacy.tokens import Doc, Span

from mermaid_verifier.names import without_disambiguator
from mermaid_verifier.tools.corpus_index import Passage
from training.contrast import ROLE_CUES, ROLE_SWAPS, comparative_edit, date_edit, number_edit
from training.edits import evidence_text, mentions, replace_span
from training.kind_words import COUNTRIES
from training.nei_pairs import about_words, claim_words
from training.reader_cases import (
    NEI,
    REFUTES,
    SUPPORTS,
    Case,
    Inputs,
    fits,
    in_page_order,
    joined,
    make_pair,
    names_page,
    other_page_hits,
    with_neighbours,
)

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


# -- 4. says otherwise -----------------------------------------------------------------------------------
def same_state(a: str, b: str) -> bool:
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
        options = [v for v in values if not same_state(v, ent.text) and not mentions(ev, v)]
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
            if own in text or text in own or same_state(text, own) or claim_words(text) & about:
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
