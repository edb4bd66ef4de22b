"""Contrastive training pairs: one-word edits of SUPPORTS claims, some that make them false, some that do not.

The stance model confirms false claims that differ from the evidence by one word ("the Pacific is the
*smallest* ocean", "Armstrong walked on the Moon in *1972*"). From each SUPPORTS pair (claim, evidence that
supports it) we write at most one REFUTES and one SUPPORTS edit of the claim, against the same evidence:

REFUTES (the evidence states the original and not the new value):

* ``comparative`` -- a superlative/comparative/ordinal/direction from a short explicit table
  (largest <-> smallest, first <-> last, older <-> younger, before <-> after, north <-> south, ...);
* ``antonym`` -- a WordNet direct antonym of an adjective or a common noun (organic <-> inorganic,
  major <-> minor, comedy <-> tragedy), taken from the word's most frequent sense only;
* ``number`` -- a count or amount the evidence states, changed to another plausible value;
* ``date`` -- a year (or the month of a full date) the evidence states, changed;
* ``entity`` -- a named entity the evidence states, swapped for another of the same spaCy type from a pool;
* ``role`` -- a relation from a small table (directed <-> starred in, written by <-> directed by,
  born in <-> died in, ...), only when the evidence states the original role and not the new one;
* ``negation`` -- ``augment.negation_flip``.

SUPPORTS (true by construction):

* ``synonym`` -- a WordNet synonym of a non-entity adjective or singular noun, from the word's most
  frequent sense, among lemmas attested in WordNet's sense counts;
* ``format`` -- "1,200" <-> "1200", "July 13, 2007" <-> "13 July 2007", "three" <-> "3" (counts 2-10);
* ``paraphrase`` -- active <-> passive for "X directed/wrote/founded ... Y" <-> "Y was directed/... by X".

A rule that cannot place an edit returns None: skipped, never guessed. Outputs are training signal, not
prose; some are clumsy English.

Lexical resource: WordNet through ``edits.py`` (its docstring says which package, and why).
"""

from __future__ import annotations

import random
import re
from collections import Counter

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from training.augment import negation_flip
from training.edits import (
    NUMBER_WORDS,
    evidence_text,
    first_sense,
    mentions,
    numbers_in,
    replace_span,
    same_case,
    wordnet_antonym,
    wordnet_synonym,
)

REFUTE_KINDS = ("comparative", "antonym", "number", "date", "role", "entity", "negation")
SUPPORT_KINDS = ("synonym", "format", "paraphrase")

# Opposites WordNet covers poorly (it has "large"/"small", not "largest"/"smallest"). Symmetric.
_OPPOSITES = [
    ("largest", "smallest"),
    ("larger", "smaller"),
    ("biggest", "smallest"),
    ("bigger", "smaller"),
    ("highest", "lowest"),
    ("higher", "lower"),
    ("tallest", "shortest"),
    ("taller", "shorter"),
    ("longest", "shortest"),
    ("longer", "shorter"),
    ("oldest", "youngest"),
    ("older", "younger"),
    ("earliest", "latest"),
    ("earlier", "later"),
    ("first", "last"),
    ("before", "after"),
    ("most", "least"),
    ("more", "less"),
    ("best", "worst"),
    ("better", "worse"),
    ("fastest", "slowest"),
    ("faster", "slower"),
    ("heaviest", "lightest"),
    ("heavier", "lighter"),
    ("richest", "poorest"),
    ("deepest", "shallowest"),
    ("widest", "narrowest"),
    ("wider", "narrower"),
    ("hottest", "coldest"),
    ("warmer", "colder"),
    ("strongest", "weakest"),
    ("stronger", "weaker"),
    ("maximum", "minimum"),
    ("north", "south"),
    ("east", "west"),
    ("northern", "southern"),
    ("eastern", "western"),
    ("northernmost", "southernmost"),
    ("easternmost", "westernmost"),
    ("above", "below"),
    ("upper", "lower"),
    ("inside", "outside"),
    ("increased", "decreased"),
    ("beginning", "end"),
]
OPPOSITES = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
OPPOSITES.update(
    {
        "smallest": "largest",
        "smaller": "larger",
        "shortest": "longest",
        "shorter": "longer",
        "latest": "earliest",
        "later": "earlier",
        "lower": "higher",
    }
)
# "named after", "after all": the preposition does not order two events there.
_NO_ORDER_HEADS = {"name", "look", "take", "run", "go", "come"}

# Relation swaps: (pattern in the claim, replacement, evidence cues of the original, cues of the new role).
ROLE_CUES = {
    "direct": ("directed", "director", "directs", "directing", "co-directed"),
    "star": ("starred", "starring", "stars", "star", "co-starred", "co-starring"),
    "write": ("written", "wrote", "writer", "writes", "writing", "screenplay", "co-written", "co-wrote"),
    "produce": ("produced", "producer", "produces", "producing", "co-produced"),
    "born": ("born", "birth"),
    "die": ("died", "death", "dies", "deceased"),
    "found": ("founded", "founder", "co-founded", "established"),
    "father": ("father",),
    "mother": ("mother",),
    "son": ("son",),
    "daughter": ("daughter",),
}
ROLE_SWAPS = [
    (r"\bdirected by\b", "written by", "direct", "write"),
    (r"\bdirected by\b", "produced by", "direct", "produce"),
    (r"\bwritten by\b", "directed by", "write", "direct"),
    (r"\bproduced by\b", "directed by", "produce", "direct"),
    (r"\bdirected(?! by\b)\b", "starred in", "direct", "star"),
    (r"\bdirected(?! by\b)\b", "wrote", "direct", "write"),
    (r"\bstarred in\b", "directed", "star", "direct"),
    (r"\bwrote(?! for\b)\b", "directed", "write", "direct"),
    (r"\bstars in\b", "directs", "star", "direct"),
    (r"\b(?:was |were )?born in\b", "died in", "born", "die"),
    (r"\b(?:was |were )?born on\b", "died on", "born", "die"),
    (r"\bdied in\b", "was born in", "die", "born"),
    (r"\bfather of\b", "son of", "father", "son"),
    (r"\bson of\b", "father of", "son", "father"),
    (r"\bmother of\b", "daughter of", "mother", "daughter"),
    (r"\bdaughter of\b", "mother of", "daughter", "mother"),
]

WORDS_OF = {i: w for w, i in NUMBER_WORDS.items()}
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTH_RE = "|".join(MONTHS)
_MDY = re.compile(rf"^({_MONTH_RE}) (\d{{1,2}}), (\d{{4}})$")
_DMY = re.compile(rf"^(\d{{1,2}}) ({_MONTH_RE}) (\d{{4}})$")
_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
_NUMERIC_LABELS = {"CARDINAL", "QUANTITY", "MONEY", "PERCENT"}
ENTITY_LABELS = {"PERSON", "GPE", "NORP", "ORG", "LANGUAGE", "LOC", "EVENT", "WORK_OF_ART", "FAC", "PRODUCT"}

# Active verbs with their participles, for the active <-> passive paraphrase.
PARTICIPLES = {
    "directed": "directed",
    "wrote": "written",
    "founded": "founded",
    "created": "created",
    "produced": "produced",
    "composed": "composed",
    "designed": "designed",
    "developed": "developed",
    "published": "published",
    "released": "released",
    "recorded": "recorded",
    "painted": "painted",
    "built": "built",
    "invented": "invented",
    "discovered": "discovered",
    "acquired": "acquired",
    "established": "established",
    "edited": "edited",
    "illustrated": "illustrated",
    "sang": "sung",
    "co-wrote": "co-written",
    "co-founded": "co-founded",
    "narrated": "narrated",
    "hosted": "hosted",
    "won": "won",
    "owned": "owned",
    "manufactured": "manufactured",
    "distributed": "distributed",
}
PAST_OF = {p: v for v, p in PARTICIPLES.items()}
NOT_ANTONYMS = {"former", "latter", "other", "same", "own", "certain", "particular", "general", "real"}
_SUBJECT_PRONOUNS = {"he", "she", "it", "they", "we", "i", "you", "who", "this", "that"}


def _in_entity(token: Token) -> bool:
    return token.ent_type_ != ""


# --- REFUTES edits ------------------------------------------------------------------------------


def comparative_edit(doc: Doc, evidence: str) -> str | None:
    """largest -> smallest, first -> last, before -> after ... when the evidence has the word and not its opposite."""
    ev = evidence_text(evidence)
    for token in doc:
        opposite = OPPOSITES.get(token.lower_)
        if opposite is None or (token.ent_type_ and token.ent_type_ not in {"ORDINAL", "DATE"}):
            continue
        if token.i > 0 and token.text[:1].isupper():
            continue  # "Best Actor", "North Korea": part of a name
        if token.lower_ in {"before", "after"} and (token.head.lemma_ in _NO_ORDER_HEADS or token.dep_ != "prep"):
            continue
        if token.lower_ in {"more", "less", "most", "least"} and token.dep_ not in {"amod", "advmod"}:
            continue
        if token.lower_ in {"north", "south", "east", "west"} and token.pos_ not in {"ADJ", "NOUN", "ADV"}:
            continue
        if mentions(ev, token.lower_) and not mentions(ev, opposite):
            return replace_span(doc, token.i, token.i + 1, same_case(token.text, opposite))
    return None


def antonym_edit(doc: Doc, evidence: str) -> str | None:
    """A WordNet antonym of a plain adjective or singular common noun the evidence states (organic -> inorganic)."""
    ev = evidence_text(evidence)
    for token in doc:
        if (
            token.tag_ not in {"JJ", "NN"}
            or _in_entity(token)
            or token.lower_ in OPPOSITES
            or token.lower_ in NOT_ANTONYMS
        ):
            continue
        if token.i > 0 and token.text[:1].isupper():
            continue  # a capitalised word mid-sentence is likely part of a name spaCy did not tag
        antonym = wordnet_antonym(token.lower_, "a" if token.tag_ == "JJ" else "n")
        if antonym and _compound_with_head(token) and not _compound_with_head(token, antonym):
            continue  # "high school" is one word to WordNet and "low school" none; "organic compound" is fine
        if antonym and mentions(ev, token.lower_) and not mentions(ev, antonym):
            return replace_span(doc, token.i, token.i + 1, same_case(token.text, antonym))
    return None


def stated_counts(doc: Doc, values: set[float]) -> list[tuple[Token, float]]:
    """The claim's counts and amounts whose value the evidence states (``values``): not years, names,
    subjects or "one of the six"."""
    candidates = []
    for token in doc:
        if token.tag_ != "CD" or (token.ent_type_ and token.ent_type_ not in _NUMERIC_LABELS):
            continue
        if (
            token.lower_ in {"zero", "one"}
            or token.head.tag_ == "NNP"
            or token.i == 0
            or token.dep_ in {"nsubj", "nsubjpass"}
            or _in_name(doc, token)
        ):
            continue  # "one of the six", "Dragon 2", "The 100": not a count the claim asserts
        value = _value(token.text)
        if value is None or value not in values or _YEAR.match(token.text):
            continue
        candidates.append((token, value))
    return candidates


def number_edit(doc: Doc, evidence: str, rng: random.Random) -> str | None:
    """A count/amount the evidence states, changed to a different value the evidence does not state."""
    values = numbers_in(evidence_text(evidence))
    candidates = stated_counts(doc, values)
    rng.shuffle(candidates)
    for token, value in candidates:
        new = _other_number(token.text, value, values, rng)
        if new is not None:
            return replace_span(doc, token.i, token.i + 1, new)
    return None


def date_edit(doc: Doc, evidence: str, rng: random.Random) -> str | None:
    """A year the evidence states moved by 1-12 years (or a month swapped), to one the evidence does not state."""
    ev = evidence_text(evidence)
    for token in doc:
        if token.ent_type_ != "DATE" or token.i == 0 or (token.i + 1 < len(doc) and doc[token.i + 1].text == ":"):
            continue  # a year that opens the claim or a title ("2001: A Space Odyssey") is a name, not a date
        if _YEAR.match(token.text) and mentions(ev, token.text):
            year = int(token.text)
            options = [y for d in range(1, 13) for y in (year - d, year + d) if y <= 2025 and not mentions(ev, str(y))]
            if options:
                return replace_span(doc, token.i, token.i + 1, str(rng.choice(options)))
        if token.text in MONTHS and mentions(ev, token.text):
            options = [m for m in MONTHS if m != token.text and not mentions(ev, m)]
            if options:
                return replace_span(doc, token.i, token.i + 1, rng.choice(options))
    return None


def entity_edit(doc: Doc, evidence: str, pool: dict[str, list[str]], rng: random.Random, title: str = "") -> str | None:
    """A named entity the evidence states (not the page title) swapped for a same-type one the evidence lacks."""
    ev = evidence_text(evidence)
    title = title.lower()
    candidates = [
        ent
        for ent in doc.ents
        if ent.label_ in ENTITY_LABELS and mentions(ev, ent.text) and not (title and ent.text.lower() in title)
    ]
    rng.shuffle(candidates)
    for ent in candidates:
        options = [
            text
            for text in pool.get(ent.label_, [])
            if text.lower() != ent.text.lower()
            and not mentions(ev, text)
            and text.lower() not in ent.text.lower()
            and ent.text.lower() not in text.lower()
        ]
        if options:
            start = ent.start
            if ent.label_ == "PERSON" and start > 0 and doc[start - 1].lower_ == "the":
                start -= 1  # "the Beatles" tagged PERSON: "the Tom Hanks" would read as a slip, not a claim
            return replace_span(doc, start, ent.end, rng.choice(options))
    return None


def role_edit(doc: Doc, evidence: str) -> str | None:
    """directed -> starred in, written by -> directed by, born in -> died in ... when the evidence has the
    original role and none of the new one's cues."""
    ev = evidence_text(evidence)
    text = doc.text
    for pattern, new, old_role, new_role in ROLE_SWAPS:
        match = re.search(pattern, text, flags=re.IGNORECASE)
        if match is None or not any(mentions(ev, cue) for cue in ROLE_CUES[old_role]):
            continue
        if any(mentions(ev, cue) for cue in ROLE_CUES[new_role]):
            continue
        if new.startswith("was ") and re.search(r"\b(was|were|is|has|had)\s+$", text[: match.start()]):
            continue
        edited = text[: match.start()] + new + text[match.end() :]
        return edited[:1].upper() + edited[1:]
    return None


def negation_edit(doc: Doc) -> str | None:
    """``augment.negation_flip``: a supported claim with its main verb negated (or un-negated) is refuted."""
    return negation_flip(doc)


# --- SUPPORTS edits -----------------------------------------------------------------------------


def synonym_edit(doc: Doc, rng: random.Random) -> str | None:
    """A WordNet synonym (most frequent sense, attested) of a plain adjective or singular common noun."""
    candidates = [
        t
        for t in doc
        if t.tag_ in {"JJ", "NN"}
        and not _in_entity(t)
        and t.is_alpha
        and not (t.i > 0 and t.text[:1].isupper())
        and t.lower_ not in OPPOSITES
        and not _compound_with_head(t)
    ]
    rng.shuffle(candidates)
    for token in candidates:
        options = [
            s
            for s in wordnet_synonym(token.lower_, "a" if token.tag_ == "JJ" else "n")
            if s.lower() not in doc.text.lower()
        ]
        if options:
            return replace_span(doc, token.i, token.i + 1, same_case(token.text, rng.choice(options)))
    return None


def format_edit(doc: Doc, rng: random.Random) -> str | None:
    """The same number or date written another way: 1,200 <-> 1200, July 13, 2007 <-> 13 July 2007, three <-> 3."""
    edits = []
    for ent in doc.ents:
        if ent.label_ == "DATE":
            if m := _MDY.match(ent.text):
                edits.append((ent.start, ent.end, f"{int(m.group(2))} {m.group(1)} {m.group(3)}"))
            elif m := _DMY.match(ent.text):
                edits.append((ent.start, ent.end, f"{m.group(2)} {int(m.group(1))}, {m.group(3)}"))
    for token in doc:
        if token.tag_ != "CD" or token.ent_type_ in {"DATE", "TIME", "ORDINAL"} or _YEAR.match(token.text):
            continue
        if re.fullmatch(r"\d{1,3}(,\d{3})+", token.text):
            edits.append((token.i, token.i + 1, token.text.replace(",", "")))
        elif re.fullmatch(r"\d{5,}", token.text):
            edits.append((token.i, token.i + 1, f"{int(token.text):,}"))
        elif (
            token.dep_ == "nummod"
            and token.head.pos_ == "NOUN"
            and token.head.text.islower()
            and not _in_name(doc, token)
        ):
            value = _value(token.text)
            if token.lower_ in NUMBER_WORDS and 2 <= NUMBER_WORDS[token.lower_] <= 10:
                edits.append((token.i, token.i + 1, str(NUMBER_WORDS[token.lower_])))
            elif token.text.isdigit() and value is not None and 2 <= value <= 10:
                edits.append((token.i, token.i + 1, WORDS_OF[int(value)]))
    if not edits:
        return None
    start, end, text = rng.choice(edits)
    return replace_span(doc, start, end, text)


def paraphrase_edit(doc: Doc) -> str | None:
    """'X directed Y.' <-> 'Y was directed by X.' for a bare clause: subject, verb, object/agent, final period."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or not doc.text.endswith(".") or doc[-1].head != root:
        return None
    children = [c for c in root.children if c.i != len(doc) - 1]
    if root.tag_ == "VBD" and root.lower_ in PARTICIPLES:
        subj = [c for c in children if c.dep_ == "nsubj"]
        obj = [c for c in children if c.dep_ == "dobj"]
        if len(children) != 2 or len(subj) != 1 or len(obj) != 1 or subj[0].i > root.i or obj[0].i < root.i:
            return None
        if subj[0].lower_ in _SUBJECT_PRONOUNS or obj[0].lower_ in _SUBJECT_PRONOUNS | {"him", "her", "them"}:
            return None
        subject, object_ = _subtree(doc, subj[0]), _subtree(doc, obj[0])
        if subject.end != root.i or object_.start != root.i + 1 or object_.end != len(doc) - 1:
            return None
        plural = obj[0].tag_ in {"NNS", "NNPS"} or any(c.dep_ == "conj" for c in obj[0].children)
        verb = f"{'were' if plural else 'was'} {PARTICIPLES[root.lower_]} by"
        return _sentence(f"{_lower_det(object_)} {verb} {_lower_det(subject)}.")
    if root.tag_ == "VBN" and root.lower_ in PAST_OF:
        subj = [c for c in children if c.dep_ == "nsubjpass"]
        aux = [c for c in children if c.dep_ == "auxpass" and c.lower_ in {"was", "were"}]
        agent = [c for c in children if c.dep_ == "agent"]
        if len(children) != 3 or len(subj) != 1 or len(aux) != 1 or len(agent) != 1:
            return None
        pobj = [c for c in agent[0].children if c.dep_ == "pobj"]
        if len(pobj) != 1 or len(list(agent[0].children)) != 1:
            return None
        subject, by_whom = _subtree(doc, subj[0]), _subtree(doc, pobj[0])
        if (
            subject.end != aux[0].i
            or aux[0].i + 1 != root.i
            or agent[0].i != root.i + 1
            or by_whom.start != agent[0].i + 1
            or by_whom.end != len(doc) - 1
        ):
            return None
        if pobj[0].lower_ in _SUBJECT_PRONOUNS | {"him", "her", "them"}:
            return None
        return _sentence(f"{_lower_det(by_whom)} {PAST_OF[root.lower_]} {_lower_det(subject)}.")
    return None


# --- helpers ------------------------------------------------------------------------------------


def _compound_with_head(token: Token, as_word: str | None = None) -> bool:
    """Whether the word (or ``as_word`` in its place) and its head or preceding dependent form one WordNet
    entry ("high school")."""
    word = (as_word or token.text).lower()
    pairs = [(word, token.head.lower_)] if token.head.i == token.i + 1 else []
    pairs += [(child.lower_, word) for child in token.children if child.i == token.i - 1]
    return any(first_sense(f"{a}_{b}", "n") is not None for a, b in pairs)


def _in_name(doc: Doc, token: Token) -> bool:
    """A number next to a capitalised word ("2 Chainz", "Apollo 11") is part of a name, not a count."""
    neighbours = [doc[i] for i in (token.i - 1, token.i + 1) if 0 < i < len(doc)]
    return any(t.text[:1].isupper() for t in neighbours)


def _value(text: str) -> float | None:
    if text.lower() in NUMBER_WORDS:
        return float(NUMBER_WORDS[text.lower()])
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?|\d+(\.\d+)?", text):
        return float(text.replace(",", ""))
    return None


def _other_number(text: str, value: float, stated: set[float], rng: random.Random) -> str | None:
    """Another plausible value, written like the original (word, comma-grouped, decimal or plain)."""
    if text.lower() in NUMBER_WORDS:
        options = [
            w
            for w, v in NUMBER_WORDS.items()
            if v >= 2 and v != value and abs(v - value) <= 4 and float(v) not in stated
        ]
        return same_case(text, rng.choice(options)) if options else None
    decimals = len(text.split(".")[1]) if "." in text else 0
    factors = [0.5, 0.75, 0.8, 1.25, 1.5, 2.0, 3.0] if value >= 20 else []
    shifts = [-3, -2, -1, 1, 2, 3] if value < 20 else []
    raw = [value * f for f in factors] + [value + s for s in shifts]
    options = []
    for new in raw:
        new = round(new, decimals) if decimals else round(new)
        if new <= 0 or float(new) == value or float(new) in stated:
            continue
        if decimals:
            written = f"{new:,.{decimals}f}" if "," in text else f"{new:.{decimals}f}"
        else:
            written = f"{int(new):,}" if "," in text else str(int(new))
        options.append(written)
    return rng.choice(options) if options else None


def _subtree(doc: Doc, token: Token) -> Span:
    return doc[token.left_edge.i : token.right_edge.i + 1]


def _lower_det(span: Span) -> str:
    """The span's text, its first word lower-cased when it is a determiner ("The film" -> "the film")."""
    first = span[0]
    if (
        first.pos_ == "DET"
        and first.lower_ in {"the", "a", "an"}
        and not first.ent_type_
        and (len(span) == 1 or not span[1].text[:1].isupper())
    ):
        return first.lower_ + first.whitespace_ + span[1:].text if len(span) > 1 else first.lower_
    return span.text


def _sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).replace(" .", ".")
    return text[:1].upper() + text[1:]


# --- the pairs ----------------------------------------------------------------------------------


def refute_edits(doc: Doc, row: dict, pool: dict[str, list[str]], rng: random.Random) -> dict[str, str]:
    """Every REFUTES edit that applies to the row's claim, by kind."""
    evidence = evidence_text(row["evidence"])
    edits = {
        "comparative": comparative_edit(doc, evidence),
        "antonym": antonym_edit(doc, evidence),
        "number": number_edit(doc, evidence, rng),
        "date": date_edit(doc, evidence, rng),
        "role": role_edit(doc, evidence),
        "entity": entity_edit(doc, evidence, pool, rng, row.get("title", "")),
        "negation": negation_edit(doc),
    }
    return {kind: text for kind, text in edits.items() if text and _changed(text, row["claim"])}


def support_edits(doc: Doc, row: dict, rng: random.Random) -> dict[str, str]:
    """Every SUPPORTS (truth-preserving) edit that applies to the row's claim, by kind."""
    edits = {"synonym": synonym_edit(doc, rng), "format": format_edit(doc, rng), "paraphrase": paraphrase_edit(doc)}
    return {kind: text for kind, text in edits.items() if text and _changed(text, row["claim"])}


def _changed(edited: str, claim: str) -> bool:
    return re.sub(r"\W+", "", edited.lower()) != re.sub(r"\W+", "", claim.lower())


def _pick(edits: dict[str, str], counts: Counter, rng: random.Random) -> str | None:
    """The applicable kind emitted least so far (ties broken by ``rng``), so rare kinds win when they apply."""
    if not edits:
        return None
    fewest = min(counts[kind] for kind in edits)
    kind = rng.choice(sorted(k for k in edits if counts[k] == fewest))
    counts[kind] += 1
    return kind


def contrastive_pairs(
    supports: list[dict], nlp: Language, rng: random.Random, pool: dict[str, list[str]]
) -> list[dict]:
    """At most one REFUTES and one SUPPORTS edit per SUPPORTS row, origin ``contrast-<kind>``."""
    out: list[dict] = []
    counts: Counter = Counter()
    rows = [row for row in supports if row.get("label") == "SUPPORTS"]
    for row, doc in zip(rows, nlp.pipe([row["claim"] for row in rows], batch_size=256)):
        refuting = refute_edits(doc, row, pool, rng)
        if kind := _pick(refuting, counts, rng):
            out.append(row | {"claim": refuting[kind], "label": "REFUTES", "origin": f"contrast-{kind}"})
        supporting = support_edits(doc, row, rng)
        if kind := _pick(supporting, counts, rng):
            out.append(row | {"claim": supporting[kind], "label": "SUPPORTS", "origin": f"contrast-{kind}"})
    return out
