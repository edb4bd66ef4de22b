"""Offline claim extraction: a text -> atomic, self-contained claims, each with its sentence's span.

Sentences
    spaCy's parse splits the text; each sentence keeps its character span in the text. A hyphen inside a
    word is parsed as one word ("co-founded"), the text itself is never changed.
What is dropped, and why
    Questions; greetings, thanks and sign-offs ("I hope this helps!"); instructions (a sentence that opens
    with a bare verb: "Note that ...", "Please check ..."); the speaker's own view or situation (first or
    second person subject, "I think ..."); opinions (a copula with only an evaluative adjective: "It is a
    great film"); fragments without a verb; and sentences that name nothing to look up (no name, number or
    date). Each dropped sentence says which.
Atomic claims
    The main predicate and every verb conjoined to it become one claim each, with the subject repeated
    ("He co-founded Twitter in 2006 and served as CEO until 2008" -> two claims); a conjoined passive
    participle borrows the auxiliary ("was born in A and raised in B"). A list of names as subject or
    object gives one claim per name ("include France, China and Russia" -> three).
Self-contained
    A subject or possessive pronoun is replaced by the person (he, she, him, his, her) or the thing (it,
    its, they) the text last named; a surname alone by the full name the text gave first ("Dorsey" ->
    "Jack Dorsey"); a leading connective ("However,", "Additionally,") is cut. A claim whose pronoun has no
    antecedent in the text is dropped, saying so, rather than checked about nobody.
"""

from __future__ import annotations

import asyncio
import re

from spacy.language import Language
from spacy.tokens import Span, Token

from mermaid_verifier.agents.decomposer import load_pipeline
from mermaid_verifier.claims import looks_like_question
from mermaid_verifier.models import DroppedSentence, ExtractedClaim, TextClaims

NON_BREAKING_HYPHEN = "\u2011"
_IN_WORD_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")
_COURTESY = re.compile(
    r"^(hi|hello|hey|thanks|thank you|sure|of course|certainly|absolutely|great question|good question|"
    r"i hope|hope this|feel free|let me know|good luck|you're welcome|you are welcome|as an ai|"
    r"i'm sorry|i am sorry|sorry|in summary|in conclusion|to summarize|overall|here (is|are))\b",
    re.IGNORECASE,
)
_OPINION_OPENERS = re.compile(r"^(i think|i believe|i feel|in my (opinion|view)|personally|it seems)\b", re.IGNORECASE)
_CONNECTIVE = re.compile(
    r"^(however|additionally|moreover|furthermore|also|in addition|in fact|notably|indeed|besides|"
    r"therefore|thus|as a result|meanwhile|similarly)\s*,\s*",
    re.IGNORECASE,
)
EVALUATIVE = {
    "great",
    "amazing",
    "awesome",
    "wonderful",
    "beautiful",
    "terrible",
    "awful",
    "delicious",
    "interesting",
    "fascinating",
    "boring",
    "good",
    "bad",
    "nice",
    "excellent",
    "fantastic",
    "incredible",
    "impressive",
    "enjoyable",
    "fun",
}
PERSON_PRONOUNS = {"he", "she", "him", "his", "her", "hers", "himself", "herself"}
THING_PRONOUNS = {"it", "its", "they", "their", "them"}
SPEAKER_PRONOUNS = {"i", "we", "you", "me", "us", "my", "our", "your"}
THING_LABELS = {"ORG", "GPE", "LOC", "WORK_OF_ART", "PRODUCT", "FAC", "EVENT", "NORP", "LAW"}
SUBJECTS = {"nsubj", "nsubjpass"}
LISTABLE = {"dobj", "attr", "pobj", "nsubj", "nsubjpass"}


class _Antecedents:
    """Who and what the text named last, the full names it gave, and which pronoun each person took."""

    def __init__(self) -> None:
        self.people: list[str] = []  # most recent last
        self.thing: str | None = None
        self.full_names: list[str] = []
        self.pronoun_of: dict[str, str] = {}  # person -> "he" | "she", once a pronoun was resolved to them
        self.thing_mentions: dict[str, int] = {}  # named things, how often the text named them

    def full_name(self, name: str) -> str:
        """``name`` as the text first gave it in full ("Dorsey" -> "Jack Dorsey")."""
        for full in self.full_names:
            if full != name and full.endswith(" " + name):
                return full
        return name

    def person(self, pronoun: str, before: Token | None = None) -> str | None:
        """The last person named (earlier in the sentence, or before it) whom ``pronoun`` can mean: not one the
        text already called the other."""
        gender = "she" if pronoun in {"she", "her", "hers", "herself"} else "he"
        earlier = []
        if before is not None:
            earlier = [
                self.full_name(_original(e)) for e in before.sent.ents if e.label_ == "PERSON" and e.end <= before.i
            ]
            subject = next((c for c in before.sent.root.children if c.dep_ in SUBJECTS), None)
            if not earlier and subject is not None and subject.i < before.i and subject.pos_ == "PROPN":
                earlier = [_original(before.doc[subject.left_edge.i : subject.i + 1])]  # "X ... in his house"
        for name in [*reversed(earlier), *reversed(self.people)]:
            if self.pronoun_of.get(name, gender) == gender:
                self.pronoun_of[name] = gender
                return name
        return None

    def read(self, sentence: Span, subject: str | None, subject_named: bool, subject_is_person: bool) -> None:
        things = []
        for ent in sentence.ents:
            text = _original(ent)
            if ent.label_ == "PERSON":
                full = self.full_name(text)
                if " " in full and full not in self.full_names:
                    self.full_names.append(full)
                if full in self.people:
                    self.people.remove(full)
                self.people.append(full)
            elif ent.label_ in THING_LABELS:
                things.append(text)
        for thing in things:
            self.thing_mentions[thing] = self.thing_mentions.get(thing, 0) + 1
        if subject and subject_named and not subject_is_person:
            self.thing = subject  # "It" most often continues the named subject of the sentence before
        elif self.thing_mentions:  # else the thing the text is about: the one it named most (latest on ties)
            self.thing = max(reversed(list(self.thing_mentions)), key=lambda t: self.thing_mentions[t])


def _original(span_or_token) -> str:
    return span_or_token.text.replace(NON_BREAKING_HYPHEN, "-")


class SpacyClaimExtractor:
    """Text -> :class:`TextClaims` with spaCy rules; the pipeline loads lazily on first use."""

    backend = "offline"

    def __init__(self, nlp: Language | None = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            self._nlp = load_pipeline()
        return self._nlp

    def warm_up(self) -> None:
        _ = self.nlp

    async def aextract(self, text: str) -> TextClaims:
        return await asyncio.to_thread(self.extract, text)

    def sentence_spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, sentence) for each non-blank sentence of ``text``, stripped of surrounding space."""
        return [span for span, _ in self._sentences(text)]

    def _sentences(self, text: str):
        doc = self.nlp(_IN_WORD_HYPHEN.sub(NON_BREAKING_HYPHEN, text))
        for sentence in doc.sents:
            raw = text[sentence.start_char : sentence.end_char]
            stripped = raw.strip()
            if stripped:
                start = sentence.start_char + len(raw) - len(raw.lstrip())
                yield (start, start + len(stripped), stripped), sentence

    def extract(self, text: str) -> TextClaims:
        antecedents = _Antecedents()
        claims: list[ExtractedClaim] = []
        dropped: list[DroppedSentence] = []
        for (start, end, stripped), sentence in self._sentences(text):
            reason = why_not_checkworthy(sentence, stripped)
            if reason is not None:
                dropped.append(DroppedSentence(sentence=stripped, start=start, end=end, reason=reason))
                antecedents.read(sentence, None, False, False)
                continue
            made, unresolved, subject, subject_named, subject_is_person = _sentence_claims(sentence, antecedents)
            if unresolved:
                dropped.append(
                    DroppedSentence(
                        sentence=stripped,
                        start=start,
                        end=end,
                        reason=f"refers to {unresolved!r}, whom the text before it does not name",
                    )
                )
            for claim_text, resolved in made:
                claims.append(
                    ExtractedClaim(text=claim_text, sentence=stripped, start=start, end=end, resolved=resolved)
                )
            antecedents.read(sentence, subject, subject_named, subject_is_person)
        return TextClaims(claims=_unique(claims), dropped=dropped, extractor="offline")


def why_not_checkworthy(sentence: Span, text: str) -> str | None:
    """Why a sentence holds nothing to check, or None when it states something checkable."""
    if text.rstrip().endswith("?") or looks_like_question(text):
        return "a question, not a statement"
    if _COURTESY.match(text):
        return "a greeting, courtesy or sign-off: nothing to check"
    if _OPINION_OPENERS.match(text):
        return "the speaker's own view, not a checkable fact"
    words = [t for t in sentence if not t.is_punct and not t.is_space]
    if not any(t.pos_ in {"VERB", "AUX"} for t in words):
        return "not a full statement (no verb)"
    root = sentence.root
    subjects = [c for c in root.children if c.dep_ in SUBJECTS | {"expl"}]
    first = words[0] if words else None
    if first is not None and (first.lower_ == "please" or (first.i == root.i and root.tag_ == "VB" and not subjects)):
        return "an instruction, not a statement"
    if any(s.lower_ in SPEAKER_PRONOUNS for s in subjects):
        return "the speaker's own view or situation, or an address to the reader: not a checkable fact"
    if root.lemma_ == "be" and _only_evaluative(root):
        return "an opinion, not a checkable fact"
    if not any(t.ent_type_ or t.pos_ in {"PROPN", "NUM"} or t.like_num for t in words):
        return "names nothing to look up (no name, number or date)"
    return None


def _only_evaluative(root: Token) -> bool:
    complements = [c for c in root.children if c.dep_ in {"acomp", "attr"}]
    if not complements:
        return False
    for c in complements:
        words = {t.lower_ for t in c.subtree if t.pos_ in {"ADJ", "ADV"}}
        nouns = [t for t in c.subtree if t.pos_ in {"PROPN", "NUM"} or t.ent_type_]
        if nouns or not words & EVALUATIVE:
            return False
    return True


SPLIT_MARKERS = {"while", "whereas", "although", "though", "because"}


def _predicates(root: Token) -> list[Token]:
    """The root, the verbs conjoined to it (a chain: "A and B, and C") and the clauses that state a fact of
    their own ("while B has ...", "because B is ...")."""
    out = [root]
    for token in out:
        out.extend(_verb_conjuncts(token))
        out.extend(_own_clauses(token))
    return out


def _own_clauses(token: Token) -> list[Token]:
    """Adverbial clauses with their own subject opened by "while", "although", "because" ..."""
    return [
        c
        for c in token.children
        if c.dep_ == "advcl"
        and any(m.dep_ == "mark" and m.lower_ in SPLIT_MARKERS for m in c.children)
        and any(s.dep_ in SUBJECTS for s in c.children)
    ]


def _relative_clauses(tokens: set[Token]) -> list[tuple[Token, Token]]:
    """(noun, clause) for each non-restrictive relative clause (", which ...", ", who ...") on a noun here."""
    out = []
    for noun in tokens:
        for clause in noun.children:
            if clause.dep_ != "relcl" or clause not in tokens:
                continue
            pronoun = next((c for c in clause.children if c.dep_ in SUBJECTS and c.lower_ in {"which", "who"}), None)
            before = noun.doc[clause.left_edge.i - 1] if clause.left_edge.i > 0 else None
            if pronoun is not None and before is not None and before.text == ",":
                out.append((noun, clause))
    return out


def _verb_conjuncts(token: Token) -> list[Token]:
    return [c for c in token.children if c.dep_ == "conj" and c.pos_ in {"VERB", "AUX"}]


def _sentence_claims(
    sentence: Span, antecedents: _Antecedents
) -> tuple[list[tuple[str, dict]], str | None, str | None, bool, bool]:
    """(claim text, references resolved) per atomic claim; an unresolvable pronoun; the resolved subject,
    whether it names something and whether it is a person."""
    root = sentence.root
    predicates = _predicates(root) if root.pos_ in {"VERB", "AUX"} else [root]
    subject: Token | None = None
    made: list[tuple[str, dict]] = []
    resolved_subject = None
    for predicate in predicates:
        own_subject = next((c for c in predicate.children if c.dep_ in SUBJECTS), None)
        subject = own_subject or subject
        excluded = {t.i for c in _verb_conjuncts(predicate) + _own_clauses(predicate) for t in c.subtree}
        excluded |= {c.i for c in predicate.children if c.dep_ in {"cc", "preconj"}}
        if predicate.dep_ == "advcl":  # "while B has ...": the clause without its "while"
            excluded |= {c.i for c in predicate.children if c.dep_ == "mark"}
        tokens = {t for t in predicate.subtree if t.i not in excluded}
        if own_subject is not None and own_subject.lower_ in {"this", "that", "these", "those"}:
            continue  # "This is because ...": the clause it introduces is the claim
        relatives = _relative_clauses(tokens)
        for noun, clause in relatives:
            tokens -= set(clause.subtree)
            tokens -= {t for t in noun.doc[clause.left_edge.i - 1 : clause.left_edge.i]}
            phrase = {
                t
                for t in noun.subtree
                if t not in clause.subtree and not (t.is_punct and t.i >= clause.left_edge.i - 1)
            }
            body = {t for t in clause.subtree if not (t.dep_ in SUBJECTS and t.head.i == clause.i)}
            text, resolved, unresolved = _render(sorted(phrase | body, key=lambda t: t.i), antecedents)
            if text and not unresolved:
                made.append((text, resolved))
        if predicate is not root and own_subject is None and subject is not None:
            tokens |= set(subject.subtree)  # a conjoined verb shares the subject ...
            if predicate.tag_ == "VBN" and not any(c.dep_ in {"aux", "auxpass"} for c in predicate.children):
                tokens |= {c for c in root.children if c.dep_ in {"aux", "auxpass"}}  # ... and "was" of "was born"
        for variant in _list_variants(sorted(tokens, key=lambda t: t.i)):
            text, resolved, unresolved = _render(variant, antecedents)
            if unresolved:
                return made, unresolved, None, False, False
            if text:
                made.append((text, resolved))
        if predicate is root and subject is not None:
            resolved_subject = _render(list(subject.subtree), antecedents)[0].rstrip(".") or None
    is_person = subject is not None and (subject.ent_type_ == "PERSON" or subject.lower_ in PERSON_PRONOUNS)
    named = subject is not None and any(t.ent_type_ or t.pos_ == "PROPN" for t in subject.subtree)
    return made, None, resolved_subject, named, is_person


def _list_variants(tokens: list[Token]) -> list[list[Token]]:
    """One token list per name of a list of names ("France, China and Russia"), else the tokens as they are."""
    present = {t.i for t in tokens}
    for head in tokens:
        if head.dep_ not in LISTABLE:
            continue
        members = [head]
        for member in members:  # "A, B, C and D": each conjunct hangs on the one before
            members.extend(c for c in member.children if c.dep_ == "conj" and c.i in present)
        if len(members) < 2 or not all(m.pos_ == "PROPN" or m.ent_type_ for m in members):
            continue
        own = {m.i: _member_tokens(m, members) for m in members}
        listed = set().union(*own.values()) | {
            t.i for m in members for c in m.children if c.dep_ in {"cc", "punct"} for t in c.subtree
        }
        return [[t for t in tokens if t.i not in listed or t.i in own[m.i]] for m in members]
    return [tokens]


def _member_tokens(member: Token, members: list[Token]) -> set[int]:
    """A list member's own words: its subtree without the members that hang on it and their separators."""
    others = {m.i for m in members if m is not member}
    skip: set[int] = set()
    for child in member.children:
        if child.i in others or child.dep_ in {"cc", "punct"}:
            skip |= {t.i for t in child.subtree}
    return {t.i for t in member.subtree if t.i not in skip}


def _render(tokens: list[Token], antecedents: _Antecedents) -> tuple[str, dict, str | None]:
    """The claim's text from its tokens (in text order), references resolved: (text, resolved, unresolved)."""
    resolved: dict[str, str] = {}
    ordered = sorted(set(tokens), key=lambda t: t.i)
    skip: set[int] = set()
    parts: list[str] = []
    for position, token in enumerate(ordered):
        if token.i in skip:
            continue
        word = _original(token)
        if token.pos_ == "PRON" and token.lower_ in PERSON_PRONOUNS | THING_PRONOUNS:
            possessive = token.tag_ == "PRP$" or token.dep_ == "poss"
            if token.dep_ in SUBJECTS | {"dobj", "pobj", "dative"} or possessive:
                if token.lower_ in PERSON_PRONOUNS:
                    name = antecedents.person(token.lower_, token)
                elif token.dep_ in SUBJECTS or possessive:
                    name = antecedents.thing
                    if name is not None:  # a thing the text keeps referring to is what it is about
                        antecedents.thing_mentions[name] = antecedents.thing_mentions.get(name, 0) + 1
                else:  # an object "it" rarely means the last subject ("won it", "made it to the final"): keep it
                    name = word
                if name is None:
                    return "", {}, word
                if name != word:
                    word = name + "'s" if possessive else name
                    resolved[_original(token)] = word
        elif token.ent_type_ == "PERSON" and token.ent_iob_ == "B":
            entity = next(e for e in token.doc.ents if e.start == token.i)
            full = antecedents.full_name(_original(entity))
            if full != _original(entity):
                resolved[_original(entity)] = full
                word = full
                skip |= {t.i for t in entity[1:]}
                token = entity[-1]
        following = next((t for t in ordered[position + 1 :] if t.i not in skip), None)
        parts.append(word + (token.whitespace_ if following is not None and following.i == token.i + 1 else " "))
    text = _balanced("".join(parts))
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"([(])\s+", r"\1", text)
    text = _CONNECTIVE.sub("", text.strip()).strip(" ,;:-")
    text = re.sub(r"[\s.!;:,]+$", "", text).strip()
    if not text:
        return "", resolved, None
    return text[:1].upper() + text[1:] + ".", resolved, None


def _balanced(text: str) -> str:
    """The text without brackets whose partner was left out of the claim."""
    keep = [True] * len(text)
    opened: list[int] = []
    for i, char in enumerate(text):
        if char == "(":
            opened.append(i)
        elif char == ")":
            if opened:
                opened.pop()
            else:
                keep[i] = False
    for i in opened:
        keep[i] = False
    return "".join(c for c, k in zip(text, keep) if k)


def _unique(claims: list[ExtractedClaim]) -> list[ExtractedClaim]:
    seen: set[str] = set()
    out = []
    for claim in claims:
        key = claim.text.lower()
        if key not in seen:
            seen.add(key)
            out.append(claim)
    return out
