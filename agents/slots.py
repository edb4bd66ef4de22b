"""Does a passage speak to what a claim says? Its subject, and a value for the claim's relation.

A reader of (claim, passage) pairs trained on single encyclopedia sentences reads a passage that names the
claim's subject but says something else about it as contradicting the claim ("The company is listed on the
Oslo Stock Exchange." against a passage about the company's headcount and headquarters: P(refutes) 0.95).
A passage can only contradict a claim when it states something for the same *slot*: the same subject, the
same relation, and a value of the kind the claim gives. :func:`speaks_to_slot` decides that from a spaCy
parse of the claim (:func:`claim_slot`) and of the passage; :func:`missing_values` names the numbers, dates
and names of a claim a passage does not contain (a reading of support without them is not support).

The claim's slot (first sentence, from its root):

* a verb ("was born in London", "is located in Mexico", "is listed on the Oslo Stock Exchange"): the
  relation is the verb's lemma, widened to its kin (:data:`RELATION_KIN`: born / birth / native, founded /
  founder / established, …); each object gives a value kind: a place (GPE, LOC, FAC, or a proper noun after
  "in"/"at"), a date (a DATE entity or a year), a person, an organisation, an amount (money, percent,
  quantity), another named thing (its entity label), a count (a number on a counted noun phrase), or a thing
  (a definite common noun: the passage must name it). An indefinite object ("published a 1987 novel",
  "has a dog") is **existential**: another novel or dog does not exclude it, so no passage speaks to it; and
  with an indefinite direct object the claim's other values are that thing's ("opened a factory in Paris in
  2020": a factory opened in Leipzig does not exclude it), so they are existential too.
* a copula with a relational noun ("The capital of Canada is Toronto", "Ottawa is the capital of Canada"):
  the relation is that noun (capital), the subject its "of" object (Canada), the value the named side
  (Toronto, a place).
* a copula with a class ("Misery is a 1987 novel"): the relation is the class noun, the value its date or
  number modifier, if any; a class alone ("Mozart was a composer") is a thing.

A count is its own slot: the counted noun phrase's head and modifiers must match ("two cousins" is not "two
sons"; "two People's Choice Awards" is not "two Emmy Awards"), and no verb is needed ("his two sons").

The passage is **about the subject** when it, or its title, names a word of the subject's name (or its head
noun), or it opens with a pronoun, or the claim's subject is a pronoun or a definite description ("It",
"The company": what they refer to was named elsewhere, so the passage is not ruled out). It **states the
slot** when, about the subject, it holds the relation (one of its kin, or for a count the counted phrase)
and a value of the claim's kind for it.

A copula slot whose relational noun is singular and definite ("Toronto is *the* capital of Canada", "Canada's
capital is Toronto") holds one value, so a passage can fill it with another: :func:`bound_slot` finds a
passage sentence that binds the same noun (the same words: "capital city" is the capital, "largest city" is not)
of the same subject ("its capital", "the capital of Canada"; not "the capital of Ontario") to names by a copula
or an apposition ("Its capital is Ottawa", "Ottawa is the capital city of Canada", "Canada's capital, Ottawa,
…"), none of which is the claimed one. Such a passage says otherwise even where it names the claimed value in
another role ("… its three largest metropolitan areas are Toronto, Montreal, and Vancouver"), which a reader of
pairs takes for support. Where a sentence binds the claimed name to the noun of another named owner ("Toronto is
… the capital city of the Canadian province of Ontario"), it states another subject's slot: not support.

A verb's year ("was born in 1921") has the same trap: :func:`dated_elsewhere` finds a passage that writes the
claimed year only as another thing's ("He received the 1921 Nobel Prize"), which is no support, and
:func:`dated_other_relation` one whose every year is the date of another known relation ("first published in
1687"), which does not say otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict
from spacy.tokens import Doc, Span, Token

from mermaid_verifier.agents.quantities import Quantity, found_in, quantities
from mermaid_verifier.agents.spacy_pipeline import load_pipeline

Parser = Callable[[str], Doc]

PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
AMOUNT_LABELS = frozenset({"MONEY", "PERCENT", "QUANTITY"})
DATE_LABELS = frozenset({"DATE", "TIME"})
NAME_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "EVENT", "WORK_OF_ART", "PRODUCT", "LAW", "LANGUAGE"}
)
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
OBJECT_DEPS = frozenset({"dobj", "attr", "oprd", "dative", "acomp"})
PRONOUNS = frozenset({"it", "he", "she", "they", "its", "his", "her", "their", "this", "these", "we", "i"})
INDEFINITE = frozenset({"a", "an", "some", "another", "any", "several", "many"})
YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})s?$")

# Words that say the same relation: a verb's lemma, its noun and the verbs used for it.
_KIN_GROUPS = [
    {"bear", "born", "birth", "birthplace", "native", "birthday"},
    {"die", "died", "death", "dead", "deceased"},
    {"found", "founded", "founding", "founder", "establish", "established", "establishment", "form", "formed"},
    {"release", "released", "publish", "published", "publication", "issue", "launch", "debut", "premiere"},
    {
        "locate",
        "located",
        "location",
        "situate",
        "situated",
        "lie",
        "lies",
        "base",
        "based",
        "headquarter",
        "headquartered",
        "headquarters",
        "seat",
        "site",
    },
    {"marry", "married", "marriage", "wife", "husband", "spouse", "wed", "wedding"},
    {"direct", "directed", "director"},
    {"write", "wrote", "written", "writer", "author", "authored", "pen"},
    {"list", "listed", "listing", "trade", "traded", "exchange", "stock"},
    {"employ", "employs", "employee", "employees", "staff", "workforce", "headcount"},
    {"win", "won", "award", "awarded", "receive", "received", "nominate", "nomination"},
    {"live", "reside", "resident", "residence", "home"},
    {"build", "built", "construct", "constructed", "construction", "complete", "completed", "completion"},
    {"open", "opened", "opening", "inaugurate", "inaugurated"},
    {"close", "closed", "closure", "shut"},
    {"elect", "elected", "election", "serve", "served", "appoint", "appointed", "appointment"},
    {
        "graduate",
        "graduated",
        "graduation",
        "study",
        "studied",
        "attend",
        "attended",
        "educate",
        "educated",
        "alumnus",
        "degree",
    },
    {"own", "owned", "owner", "ownership", "acquire", "acquired", "acquisition", "buy", "bought", "purchase"},
    {"sell", "sold", "sale", "sales"},
    {"capital"},
    {"population", "inhabitant", "inhabitants", "resident", "residents", "people"},
]
RELATION_KIN: dict[str, frozenset[str]] = {}
for _group in _KIN_GROUPS:
    for _word in _group:
        RELATION_KIN[_word] = RELATION_KIN.get(_word, frozenset()) | frozenset(_group)

NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14", "fifteen": "15",
    "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30",
    "forty": "40", "fifty": "50", "hundred": "100", "first": "1", "second": "2", "third": "3", "fourth": "4",
    "fifth": "5", "sixth": "6", "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
}  # fmt: skip
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_FUNCTION_WORDS = frozenset({"the", "of", "a", "an", "and", "de", "la", "le"})
GENERIC_HEADS = frozenset({"city", "town"})
# Nouns a definite article does not make single: "the son of freed slaves" is one of several.
MANY_HOLDERS = frozenset(
    {"son", "daughter", "child", "brother", "sister", "sibling", "grandson", "granddaughter", "grandchild",
     "nephew", "niece", "cousin", "uncle", "aunt", "descendant", "ancestor", "member", "friend", "student",
     "one", "part", "player", "winner", "recipient"}
)  # fmt: skip
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


class SlotReading(BaseModel):
    """Whether a passage speaks to a claim's slot, and why."""

    model_config = ConfigDict(frozen=True)

    about_subject: bool
    states_slot: bool
    reason: str


@dataclass(frozen=True)
class Value:
    """One thing a claim says for its relation: its kind and, for a count or a thing, the words that pin it."""

    kind: str  # place | date | person | org | amount:<LABEL> | name:<LABEL> | count | thing | existential
    words: frozenset[str] = frozenset()  # a count's counted phrase, a thing's head
    text: str = ""


@dataclass(frozen=True)
class ClaimSlot:
    """The claim's subject words, the words of its relation, and the values it gives."""

    subject: frozenset[str]
    subject_open: bool  # a pronoun or a definite description: what it refers to was named elsewhere
    relation: frozenset[str]
    values: tuple[Value, ...] = field(default_factory=tuple)
    relation_text: str = ""
    single: frozenset[str] = frozenset()  # a singular definite relational noun's words: one value fills the slot
    dated: frozenset[str] = frozenset()  # the years a verb's date gives ("was born in 1921"), its relation named


def _parser(parse: Parser | None) -> Parser:
    return parse if parse is not None else load_pipeline()


def speaks_to_slot(claim: str, passage: str, title: str = "", parse: Parser | None = None) -> SlotReading:
    """Whether ``passage`` (of a document titled ``title``) is about the claim's subject and states a value
    for the claim's relation of the kind the claim gives. ``parse``: a spaCy pipeline (the shared one when
    not given)."""
    nlp = _parser(parse)
    slot = claim_slot(nlp(" ".join(claim.split())))
    return read_slot(slot, nlp(" ".join(passage.split())), title)


def read_slot(slot: ClaimSlot, passage: Doc, title: str = "") -> SlotReading:
    """:func:`speaks_to_slot` on a parsed claim slot and passage. A passage of several sentences speaks to the
    slot only where one of its sentences does on its own: naming the subject in one sentence and a value of the
    kind in another ("The Great Wall … Ulm") is not stating the slot."""
    sentences = [s for s in passage.sents if s.text.strip()] if passage.has_annotation("SENT_START") else []
    if len(sentences) > 1:
        readings = [_read_sentence(slot, s.as_doc(), title) for s in sentences]
        return next((r for r in readings if r.states_slot), None) or next(
            (r for r in readings if r.about_subject), readings[0]
        )
    return _read_sentence(slot, passage, title)


def _read_sentence(slot: ClaimSlot, passage: Doc, title: str = "") -> SlotReading:
    """:func:`read_slot` on one sentence (or a passage read as one)."""
    words = _words_and_lemmas(passage)
    title_words = _words(title)
    named = slot.subject & (words | title_words)
    pronoun_led = len(passage) > 0 and passage[0].lower_ in PRONOUNS
    about = bool(named) or pronoun_led or slot.subject_open or not slot.subject
    if not about:
        return SlotReading(
            about_subject=False, states_slot=False, reason="the passage does not name the claim's subject"
        )
    why_about = (
        f"names {sorted(named)[0]!r}"
        if named
        else "opens with a pronoun"
        if pronoun_led
        else "the claim's subject is named elsewhere"
    )
    if not slot.values:
        return SlotReading(about_subject=True, states_slot=False, reason=f"{why_about}; the claim gives no value")
    for value in slot.values:
        if value.kind == "existential":
            continue
        found = _value_in(value, slot, passage, words)
        if found:
            return SlotReading(
                about_subject=True, states_slot=True, reason=f"{why_about}; states {_kind_words(value.kind)} {found!r}"
            )
    kinds = " or ".join(sorted({_kind_noun(v.kind) for v in slot.values if v.kind != "existential"}))
    if all(v.kind == "existential" for v in slot.values):
        return SlotReading(
            about_subject=True,
            states_slot=False,
            reason=f"{why_about}; the claim's object is existential (another one does not exclude it)",
        )
    return SlotReading(
        about_subject=True,
        states_slot=False,
        reason=f"{why_about}; states no {kinds} for {slot.relation_text or 'the claim'!r}",
    )


_KIND_NOUNS = {"place": "place", "date": "date", "person": "person", "org": "organisation", "count": "count"}


def _kind_noun(kind: str) -> str:
    """A value kind as a reader says it, without its article ("date"; "amount" for ``amount:MONEY``)."""
    if kind == "thing":
        return "word of the claim's"
    return _KIND_NOUNS.get(kind) or ("amount" if kind.startswith("amount:") else "name")


def _kind_words(kind: str) -> str:
    """A value kind with its article, as a reason says it ("a date", "an organisation", "the claim's word")."""
    if kind == "thing":
        return "the claim's word"
    noun = _kind_noun(kind)
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _value_in(value: Value, slot: ClaimSlot, passage: Doc, words: set[str]) -> str:
    """The passage's value for the claim's slot of this kind ('' when none)."""
    if value.kind == "count":
        for token in passage:
            if _counted_phrase(token) == value.words:
                return _phrase_text(token)
        return ""
    if slot.relation and not (slot.relation & words):
        return ""
    if value.kind == "thing":
        return next(iter(value.words & words), "")
    if value.kind == "date":
        for ent in passage.ents:
            if ent.label_ in DATE_LABELS:
                return ent.text
        return next((t.text for t in passage if YEAR.match(t.text)), "")
    if value.kind == "place":
        for ent in passage.ents:  # not the subject's own name ("The Great Wall of China" for the wall)
            if ent.label_ in PLACE_LABELS and not (_words(ent.text) - _FUNCTION_WORDS <= slot.subject):
                return ent.text
        for token in passage:
            if token.pos_ == "PROPN" and token.dep_ == "pobj" and token.head.lower_ in {"in", "at", "near"}:
                return token.text
        return ""
    labels = {"person": {"PERSON"}, "org": {"ORG"}}.get(value.kind) or {value.kind.split(":", 1)[-1]}
    for ent in passage.ents:
        if ent.label_ in labels and not (_words(ent.text) & slot.subject):
            return ent.text
    return ""


def claim_slot(doc: Doc) -> ClaimSlot:
    """The subject, relation and values of a parsed claim (its first sentence)."""
    sentences = list(doc.sents)
    if not sentences:
        return ClaimSlot(subject=frozenset(), subject_open=False, relation=frozenset())
    root = sentences[0].root
    subject_token = next((c for c in root.children if c.dep_ in SUBJECT_DEPS), None)
    objects = _objects(root)
    if root.lemma_ == "be":
        attribute = next((o for o in objects if o.dep_ in {"attr", "acomp"}), None)
        if subject_token is not None and attribute is not None:
            relational = _copula_relation(subject_token, attribute)
            if relational is not None:
                return relational
            # a class: "Misery is a 1987 novel" -> the novel's date; "Mozart was a composer" -> a thing
            values = tuple(_modifier_values(attribute)) or (
                Value("thing", frozenset({attribute.lemma_.casefold()}), attribute.text),
            )
            return ClaimSlot(
                subject=_name_words(subject_token),
                subject_open=_is_open(subject_token),
                relation=_kin(attribute),
                values=values,
                relation_text=f"is {attribute.text}",
            )
    values = tuple(_object_value(o) for o in objects)
    if any(v.kind == "existential" for o, v in zip(objects, values) if o.dep_ == "dobj"):
        # "opened a factory in Paris in 2020": the place and date are the indefinite factory's, and another
        # factory elsewhere does not exclude it
        values = tuple(v if v.kind == "count" else Value("existential", text=v.text) for v in values)
    relation = _kin(root) | {p.lower_ for p in root.children if p.dep_ == "prt"}
    if root.lemma_ in {"have", "be", "do", "get", "make", "include"}:
        relation = frozenset()  # too general to name a relation: the values alone must match
    years = {word for v in values if v.kind == "date" for word in v.text.split() if YEAR.match(word)}
    return ClaimSlot(
        subject=_name_words(subject_token) if subject_token is not None else frozenset(),
        subject_open=subject_token is None or _is_open(subject_token),
        relation=frozenset(relation),
        values=values,
        relation_text=" ".join(t.text for t in _verb_group(root)),
        dated=frozenset(years) if relation else frozenset(),
    )


def _copula_relation(subject: Token, attribute: Token) -> ClaimSlot | None:
    """'The capital of Canada is Toronto' / 'Ottawa is the capital (city) of Canada' / "Canada's capital is
    Toronto": the relational noun's slot."""
    for noun, named in ((subject, attribute), (attribute, subject)):
        if noun.pos_ != "NOUN":
            continue
        anchors = _anchors(noun)
        if anchors and named.pos_ == "PROPN":
            relation = _kin(noun) | {c.lemma_.casefold() for c in noun.children if c.dep_ == "compound"}
            negated = any(c.dep_ == "neg" for c in noun.head.children)
            return ClaimSlot(
                subject=frozenset().union(*(_name_words(a) for a in anchors)),
                subject_open=False,
                relation=frozenset(relation),
                values=(_object_value(named),),
                relation_text=f"{noun.text} of {anchors[0].text}",
                single=frozenset() if negated or not _definite_singular(noun) else _noun_key(noun),
            )
    return None


def _anchors(noun: Token) -> list[Token]:
    """Whose the relational noun is: its "of" objects, or a named possessor ("Canada's capital")."""
    return _prep_objects(noun, {"of"}) or [c for c in noun.children if c.dep_ == "poss" and c.pos_ == "PROPN"]


def _prep_objects(noun: Token, prepositions: set[str]) -> list[Token]:
    """The objects of a noun's prepositions of these words ("the capital *of Canada*")."""
    return [
        o
        for p in noun.children
        if p.dep_ == "prep" and p.lower_ in prepositions
        for o in p.children
        if o.dep_ == "pobj"
    ]


def _name_text(token: Token) -> str:
    """A proper noun's name as written: its entity, or its phrase."""
    entity = _entity_of(token)
    return entity.text if entity is not None else _phrase_text(token)


def _definite_singular(noun: Token) -> bool:
    """'the capital', "Canada's capital", 'its capital': one of it (not 'the son of': :data:`MANY_HOLDERS`)."""
    return (
        noun.tag_ in {"NN", "NNP"}
        and noun.lemma_.casefold() not in MANY_HOLDERS
        and any(c.dep_ == "poss" or (c.dep_ == "det" and c.lower_ == "the") for c in noun.children)
    )


def _noun_key(noun: Token) -> frozenset[str]:
    """A relational noun phrase's words: the noun with its compounds and adjectives (and theirs: 'next largest'), a
    generic head dropped where a modifier names the relation ('capital city' is the capital; 'largest city' is
    not)."""
    modifiers = [c for c in noun.children if c.dep_ in {"compound", "amod"} and c.pos_ in {"NOUN", "ADJ"}]
    modifiers += [a for m in modifiers for a in m.children if a.dep_ in {"advmod", "amod"}]  # "next largest"
    words = {noun.lemma_.casefold()} | {m.lemma_.casefold() for m in modifiers}
    return frozenset(words - GENERIC_HEADS if words - GENERIC_HEADS else words)


@dataclass(frozen=True)
class BoundSlot:
    """What a passage binds to the claim's slot: another name for its single-valued slot (``value``), the
    claimed name as the slot of another owner (``owner``: "Toronto is the capital of Ontario" for "… of
    Canada"), or the claimed year as the date of another thing (``holder``: "the 1921 Nobel Prize" for "was
    born in 1921"; ``year``)."""

    value: str = ""
    owner: str = ""
    holder: str = ""
    year: str = ""


def bound_sides(supports: float, refutes: float, bound: BoundSlot | None) -> tuple[float, float]:
    """A reading's (support, refutation) once what its passage binds to the claim's single-valued slot is known:
    read as support and binding another name, the two trade places (it says otherwise); binding the claimed name
    as another owner's, it supports nothing; else as read. The judge weighs items and grounding reads passages by
    this one rule."""
    if bound is None or supports <= refutes:
        return supports, refutes
    return (refutes, supports) if bound.value else (0.0, refutes)


def bound_slot(slot: ClaimSlot, passage: Doc, title: str = "") -> BoundSlot | None:
    """Where a passage sentence binds the claim's single-valued relational noun (the same words: "capital
    city" is the capital, "largest city" is not) to names by a copula or an apposition ("Its capital is Ottawa",
    "Ottawa is the capital city of Canada", "Canada's capital, Ottawa, …"): another name for the claim's
    subject's slot, none of them the claimed one (``value``, first found over the whole passage); else the
    claimed name bound to the slot of another named owner (``owner``). None when the slot is not single-valued
    or the passage binds nothing to it. Whose the noun is: its named owner ("of Canada", "Canada's", "by Tom
    Waits"); else, owned by a pronoun or a definite description ("its capital", "the country's capital", "the
    capital of the country"), the subject the passage is about, as a reader that took it for support of the
    claim read it; else (no owner, or one unnamed and indefinite) the claim's subject only where the passage or
    its ``title`` names it. See the module's doc."""
    if not slot.single or not slot.values:
        return None
    claimed = _words(slot.values[0].text) - _FUNCTION_WORDS
    if not claimed:
        return None
    other_owner = None
    seen: set[int] = set()
    for token in passage:
        noun = token.head if token.dep_ == "compound" and token.head.pos_ == "NOUN" else token
        if token.pos_ != "NOUN" or noun.pos_ != "NOUN" or noun.i in seen:
            continue
        seen.add(noun.i)  # "capital city": the head once, not again for its compound
        if _noun_key(noun) != slot.single:
            continue
        bound = _bound_names(noun)
        if not bound:
            continue
        owners, referring = _owners(noun)
        holds_claimed = any(claimed & _words(name) for name in bound)
        if owners and not any(_words(o) - _FUNCTION_WORDS <= slot.subject for o in owners):
            if holds_claimed and other_owner is None:
                other_owner = BoundSlot(owner=owners[0])
            continue
        if not owners and not referring and not slot.subject & (_words(passage.text) | _words(title)):
            continue  # whose it is, the passage does not say
        if not holds_claimed:
            return BoundSlot(value=bound[0])
    return other_owner


def dated_elsewhere(slot: ClaimSlot, passage: Doc) -> BoundSlot | None:
    """Where the passage holds the claim's year only as the date of another thing: each time the year is written,
    it modifies a noun ("He received *the 1921 Nobel Prize*" for "Albert Einstein was born in 1921") in a sentence
    that says nothing of the claim's relation (none of its kin: "born", "birth", …) nor names another of the
    claim's values. That passage names the year in another role and does not state the claim's date, which a
    reader of pairs takes for support. Left to the reader (None): a sentence of the relation, or naming another
    value of the claim ("the 2004 film Troy" for "starred in Troy in 2004"); a year written any other way (a
    parenthesis, "in 1921"); a noun that is the subject itself or may be ("Avatar is *a 2009 film*", "*The 2009
    film* stars …"), names it, or is its own ("*their 2002 single*"); a claim without a named relation or a year
    (:attr:`ClaimSlot.dated`); a passage without the year."""
    if not slot.dated:
        return None
    others = set().union(*(_words(v.text) for v in slot.values if v.kind != "date")) - _FUNCTION_WORDS
    holders: list[tuple[str, str]] = []
    for token in passage:
        if token.text not in slot.dated:
            continue
        sentence = token.sent
        if slot.relation & _words_and_lemmas(sentence) or others & _words(sentence.text):
            return None
        noun = _dated_noun(token)
        if noun is None or noun.dep_ in {"attr", "appos", "ROOT"} or slot.subject & _words(_subtree_text(noun)):
            return None
        if any(c.dep_ == "poss" and c.lower_ in PRONOUNS for c in noun.children):
            return None  # "their 2002 single": the subject's own thing, dated
        if noun.dep_ in SUBJECT_DEPS and not any(t.pos_ == "PROPN" for t in noun.subtree):
            return None  # "The 2009 film stars …": it may be the claim's subject
        holders.append((_phrase_text(noun), token.text))
    if not holders:
        return None
    return BoundSlot(holder=holders[0][0], year=holders[0][1])


def dated_other_relation(slot: ClaimSlot, passage: Doc) -> str:
    """The word of another known relation that every year of the passage is the date of, where the passage says
    nothing of the claim's relation ('published' in "Principia, first published in 1687" for "Isaac Newton was
    born in 1643"; 'received' in "He received the 1921 Nobel Prize" for "born in 1879"): such a passage gives
    other dates, not another one for the claim's slot. '' when the claim has no verb's year
    (:attr:`ClaimSlot.dated`), the passage names the relation or has no year, or a year is not governed by a word
    of :data:`RELATION_KIN` (a birth–death span in parentheses: it may well be the claim's)."""
    if not slot.dated or slot.relation & _words_and_lemmas(passage):
        return ""
    words: list[str] = []
    for token in passage:
        if not YEAR.match(token.text):
            continue
        governor = _relation_governor(token)
        if governor is None or _kin(governor) & slot.relation:
            return ""
        words.append(governor.text)
    return words[0] if words else ""


def _relation_governor(year: Token) -> Token | None:
    """The nearest word above a year that names a known relation ("published in 1687" -> published; "received the
    1921 Nobel Prize" -> received), up to its clause's verb; None when there is none."""
    token = year
    while token.head.i != token.i:  # spaCy gives a new Token each time: compare positions, not objects
        token = token.head
        if token.lemma_.casefold() in RELATION_KIN or token.lower_ in RELATION_KIN:
            return token
        if token.pos_ in {"VERB", "AUX"}:
            return None
    return None


def _dated_noun(year: Token) -> Token | None:
    """The noun a year is written into as its modifier ("the 1921 Nobel Prize" -> Prize), past the rest of its
    date ("the March 1921 election"); None when the year is not such a modifier."""
    entity = _entity_of(year)
    token = year
    while token.head.i != token.i and entity is not None and entity.start <= token.head.i < entity.end:
        if token.head.pos_ == "NOUN" or token.dep_ not in {"nummod", "compound", "npadvmod", "amod"}:
            break  # "the 1921 season" read as one date: the season holds the year
        token = token.head
    if token.dep_ not in {"nummod", "compound", "npadvmod", "amod"}:
        return None
    noun = token.head
    while noun.dep_ == "compound" and noun.head.pos_ in {"NOUN", "PROPN"} and noun.head.i != noun.i:
        noun = noun.head  # "the 2004 film Troy": the year's noun is a compound of Troy
    return noun if noun.pos_ in {"NOUN", "PROPN"} and noun.i != token.i else None


def _subtree_text(token: Token) -> str:
    return " ".join(t.text for t in token.subtree)


def _owners(noun: Token) -> tuple[list[str], bool]:
    """The names that own a relational noun: a named possessor ("Canada's"), or the names in its "of" or "by"
    phrase ("of Canada", "of the Canadian province of Ontario" -> Ontario, "by Tom Waits"); and, where none is
    named, whether a pronoun or a definite description owns it ("its", "the country's", "of the country"). A noun
    with none of its own shares its conjunct's ("the capital and most populous city *of South Australia*")."""
    owners = [c for c in noun.children if c.dep_ == "poss"] + _prep_objects(noun, {"of", "by"})
    if not owners:
        for conjunct in [c for c in noun.children if c.dep_ == "conj" and c.pos_ == "NOUN"]:
            owners += _prep_objects(conjunct, {"of", "by"})
    names = [
        _name_text(token)
        for owner in owners
        for token in owner.subtree
        if token.pos_ == "PROPN" and token.dep_ != "compound"
    ]
    referring = any(
        o.lower_ in PRONOUNS or any(c.dep_ == "det" and c.lower_ in {"the", "this", "that"} for c in o.children)
        for o in owners
    )
    return names, referring


def _bound_names(noun: Token) -> list[str]:
    """The names a copula or an apposition binds to a noun ('Its capital is Ottawa', 'Ottawa is the capital', 'X
    is the largest city and the capital', 'the capital, Ottawa,'), each with the names joined to it ('Sucre and
    La Paz'); none where it is negated."""
    first = noun
    while first.dep_ == "conj" and first.head.i != first.i:
        first = first.head  # "… the most populous city and the capital city of …": bound as the first conjunct
    head = first.head
    sides: list[Token] = []
    negated = any(c.dep_ == "neg" for c in head.children)
    if head.lemma_ == "be" and first.dep_ in SUBJECT_DEPS | {"attr"} and not negated:
        wanted = {"attr"} if first.dep_ in SUBJECT_DEPS else SUBJECT_DEPS
        sides += [c for c in head.children if c.dep_ in wanted and c is not first]
    sides += [c for c in noun.children if c.dep_ == "appos"]
    if noun.dep_ == "appos":
        sides.append(noun.head)
    joined = [token for side in sides for token in [side, *(c for c in side.children if c.dep_ == "conj")]]
    return [_name_text(token) for token in joined if token.pos_ == "PROPN"]


def _objects(root: Token) -> list[Token]:
    out = []
    for child in root.children:
        if child.dep_ in OBJECT_DEPS:
            out.append(child)
        elif child.dep_ in {"prep", "agent"}:
            out += [o for o in child.children if o.dep_ in {"pobj", "pcomp"}]
    return out


def _object_value(token: Token) -> Value:
    """The kind of value an object gives."""
    entity = _entity_of(token)
    counted = _counted_phrase(token)
    if counted and (entity is None or entity.label_ not in DATE_LABELS):
        return Value("count", counted, _phrase_text(token))
    if entity is not None:
        label = entity.label_
        if label in PLACE_LABELS:
            return Value("place", text=entity.text)
        if label in DATE_LABELS:
            return Value("date", text=entity.text)
        if label == "PERSON":
            return Value("person", text=entity.text)
        if label == "ORG":
            return Value("org", text=entity.text)
        if label in AMOUNT_LABELS:
            return Value(f"amount:{label}", text=entity.text)
        if label in {"CARDINAL", "ORDINAL"}:
            return Value(f"amount:{label}", text=entity.text)
        return Value(f"name:{label}", text=entity.text)
    if YEAR.match(token.text):
        return Value("date", text=token.text)
    if token.pos_ == "PROPN":
        if token.head.lower_ in {"in", "at", "near"}:
            return Value("place", text=token.text)
        return Value("name:ORG", text=token.text)
    determiners = {c.lower_ for c in token.children if c.dep_ in {"det", "nummod", "quantmod"}}
    if determiners & INDEFINITE or (token.tag_ == "NNS" and not determiners):
        return Value("existential", text=token.text)
    return Value("thing", frozenset({token.lemma_.casefold()}), token.text)


def _modifier_values(noun: Token) -> Iterable[Value]:
    """A class noun's date or number: 'a 1987 novel' -> date 1987."""
    for child in noun.children:
        if child.dep_ in {"nummod", "amod", "compound", "npadvmod"}:
            entity = _entity_of(child)
            if YEAR.match(child.text) or (entity is not None and entity.label_ in DATE_LABELS):
                yield Value("date", text=child.text)


def _entity_of(token: Token) -> Span | None:
    doc = token.doc
    for ent in doc.ents:
        if ent.start <= token.i < ent.end:
            return ent
    return None


def _counted_phrase(token: Token) -> frozenset[str]:
    """The lemmas of a noun phrase counted by a number ('two People's Choice Awards' -> {award, choice,
    people}); empty when no number counts it (a year is no count)."""
    if token.pos_ not in {"NOUN", "PROPN"}:
        return frozenset()
    counted = [token] + [c for c in token.children if c.dep_ in {"compound", "poss"}]
    numbers = [c for t in counted for c in t.children if c.dep_ == "nummod" and not YEAR.match(c.text)]
    if not numbers:
        return frozenset()
    words = {token.lemma_.casefold()}
    for child in token.children:
        if child.dep_ in {"compound", "poss", "amod"} and child.pos_ in {"NOUN", "PROPN", "ADJ"}:
            words.add(child.lemma_.casefold())
            words |= {c.lemma_.casefold() for c in child.children if c.dep_ == "compound"}
    return frozenset(words)


def _phrase_text(token: Token) -> str:
    left = min([token.i] + [c.i for c in token.children if c.i < token.i])
    return token.doc[left : token.i + 1].text


def _kin(token: Token) -> frozenset[str]:
    lemma, text = token.lemma_.casefold(), token.lower_
    return RELATION_KIN.get(lemma, frozenset()) | RELATION_KIN.get(text, frozenset()) | {lemma, text}


def _name_words(token: Token) -> frozenset[str]:
    """The words that name a subject: its proper nouns, or its head noun."""
    span = [t for t in token.subtree if t.dep_ not in {"relcl", "acl"}]
    proper = {t.lower_ for t in span if t.pos_ == "PROPN" and len(t.text) > 1}
    if proper:
        return frozenset(proper)
    if token.lower_ in PRONOUNS:
        return frozenset()
    return frozenset({token.lemma_.casefold(), token.lower_})


def _is_open(token: Token) -> bool:
    """A pronoun, or a definite description without a name ('The company'): named elsewhere."""
    if token.lower_ in PRONOUNS or token.pos_ == "PRON":
        return True
    has_name = any(t.pos_ == "PROPN" for t in token.subtree)
    definite = any(c.lower_ in {"the", "this", "that", "its", "his", "her", "their"} for c in token.children)
    return definite and not has_name


def _verb_group(root: Token) -> list[Token]:
    group = [c for c in root.children if c.dep_ in {"aux", "auxpass", "neg", "prt"}] + [root]
    group += [c for c in root.children if c.dep_ in {"prep", "agent"}][:1]
    return sorted(group, key=lambda t: t.i)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def _words_and_lemmas(span: Doc | Span) -> set[str]:
    """A passage's or sentence's words and their lemmas ("born", "bear"), as a relation's kin is matched."""
    return _words(span.text) | {t.lemma_.casefold() for t in span}


# --------------------------------------------------------------------------- coverage


def claim_values(doc: Doc, subject_words: frozenset[str] = frozenset()) -> tuple[set[str], list[tuple[str, set[str]]]]:
    """The claim's numbers (normalised) and its names other than the subject's (each with its words)."""
    numbers = {_normal_number(m.group()) for m in _NUMBER.finditer(doc.text)}
    for token in doc:
        if token.lower_ in NUMBER_WORDS and token.like_num:
            numbers.add(NUMBER_WORDS[token.lower_])
    names: list[tuple[str, set[str]]] = []
    for ent in doc.ents:
        if ent.label_ not in NAME_LABELS:
            continue
        words = {t.lower_ for t in ent if t.is_alpha and not t.is_stop and len(t.text) > 2}
        if words and not (words & subject_words):
            names.append((ent.text, words))
    return numbers, names


def missing_values(claim: Doc, passage: str, title: str = "", subject_words: frozenset[str] = frozenset()) -> list[str]:
    """The numbers, dates and names of the claim that ``passage`` (with its title) does not contain: a
    reading of support without them is not support. The subject's own names are not asked for (a passage
    may call it "it")."""
    numbers, names = claim_values(claim, subject_words)
    text = f"{title} {passage}"
    have_numbers = {_normal_number(m.group()) for m in _NUMBER.finditer(text)}
    words = _words(text)
    have_numbers |= {NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS}
    # a number the claim writes as a quantity is looked for as one: rounded, hedged, bounded, in other units (and
    # never found in another dimension); a number word ("three") as written
    claimed: dict[str, Quantity] = {}
    for quantity in quantities(claim.text):
        claimed.setdefault(_normal_number(quantity.number), quantity)
        if quantity.upper_number:
            claimed.setdefault(_normal_number(quantity.upper_number), quantity)
    stated = quantities(text)
    missing = sorted(n for n in numbers if not _number_found(n, claimed.get(n), stated, have_numbers))
    for name, name_words in names:
        if not any(w in words or any(h.startswith(w[:5]) for h in words if len(w) >= 5) for w in name_words):
            missing.append(name)
    return missing


def _number_found(number: str, claimed: Quantity | None, stated: list[Quantity], written: set[str]) -> bool:
    """Whether the passage holds the claim's number: as a quantity (rounded, hedged, bounded, in other units), or
    written alike where the claim says nothing more of it than the number ("3 titles": "three titles")."""
    if claimed is None:
        return number in written
    plain = claimed.bound is None and claimed.dimension is None
    return found_in(claimed, stated) is not None or (plain and number in written)


def _normal_number(text: str) -> str:
    bare = text.replace(",", "")
    if "." in bare:
        bare = bare.rstrip("0").rstrip(".")
    return bare.lstrip("0") or "0"


@dataclass(frozen=True)
class ClaimReader:
    """A claim parsed once, for its passages: which of its values a passage lacks, and whether a passage speaks
    to its slot (each passage parsed only when asked)."""

    doc: Doc
    slot: ClaimSlot
    parse: Parser

    @classmethod
    def of(cls, claim: str, parse: Parser | None = None) -> ClaimReader:
        nlp = _parser(parse)
        doc = nlp(" ".join(claim.split()))
        return cls(doc=doc, slot=claim_slot(doc), parse=nlp)

    def missing(self, passage: str, title: str = "") -> list[str]:
        return missing_values(self.doc, passage, title, self.slot.subject)

    def speaks(self, passage: str, title: str = "") -> SlotReading:
        return read_slot(self.slot, self.parse(" ".join(passage.split())), title)

    def bound(self, passage: str, title: str = "") -> BoundSlot | None:
        """:func:`bound_slot` for a single-valued slot, :func:`dated_elsewhere` for a verb's year (the passage
        parsed only for those)."""
        if self.slot.single:
            return bound_slot(self.slot, self.parse(" ".join(passage.split())), title)
        if self.slot.dated:
            return dated_elsewhere(self.slot, self.parse(" ".join(passage.split())))
        return None

    def other_relation(self, passage: str, title: str = "") -> str:
        """:func:`dated_other_relation` (the passage parsed only for a claim with a verb's year)."""
        if not self.slot.dated:
            return ""
        return dated_other_relation(self.slot, self.parse(" ".join(passage.split())))

    def bound_reason(self, bound: BoundSlot) -> str:
        """What a passage's binding of the claim's slot says, in words ('gives the capital of Canada as
        'Ottawa', not 'Toronto'')."""
        claimed = self.slot.values[0].text if self.slot.values else "the claimed one"
        if bound.holder:
            return f"gives {bound.year!r} as the year of {bound.holder!r}, not for {self.slot.relation_text!r}"
        if bound.value:
            return f"gives the {self.slot.relation_text} as {bound.value!r}, not {claimed!r}"
        return f"gives {claimed!r} as the {self.slot.relation_text.split(' of ')[0]} of {bound.owner!r}, not of the claim's subject"
