"""Check-worthiness: whether a sentence of a text states something to check, and if not, why.

What is dropped, and why
    Questions; greetings, thanks and sign-offs ("I hope this helps!"); instructions (a sentence that opens
    with a bare verb: "Note that ...", "Please check ..."); the speaker's own view or situation (first or
    second person subject, "I think ..."); opinions (a copula with only an evaluative adjective: "It is a
    great film"); hedged speculation; advice to the reader; and fragments without a verb. Each dropped sentence
    says which. A sentence that names nothing to look up is kept: the judge abstains on a claim that names nothing.
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from mermaid_verifier.agents.coreference import SUBJECTS
from mermaid_verifier.claims import looks_like_question

_COURTESY = re.compile(
    r"^(hi|hello|hey|thanks|thank you|sure|of course|certainly|absolutely|great question|good question|"
    r"i hope|hope this|feel free|let me know|good luck|you're welcome|you are welcome|as an ai|"
    r"i'm sorry|i am sorry|sorry|here (is|are))\b",
    re.IGNORECASE,
)
_OPINION_OPENERS = re.compile(r"^(i think|i believe|i feel|in my (opinion|view)|personally)\b", re.IGNORECASE)
_HEDGES = re.compile(
    r"^(perhaps|maybe|possibly|presumably|it seems|it appears|it is (possible|likely|conceivable) that|"
    r"it (may|might|could) be that)\b",
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
    "lovely",
}
SPEAKER_PRONOUNS = {"i", "me", "my"}
GENERIC_PRONOUNS = {
    "we",
    "us",
    "our",
    "you",
    "your",
}  # often "anyone" in explanations: a speaker's own only in the past
ADVICE_MODALS = {"should", "must", "ought"}


def why_not_checkworthy(sentence: Span, text: str) -> str | None:
    """Why a sentence holds nothing to check, or None when it states something checkable: every statement of
    fact is a claim, a general or explanatory one included (as in FActScore, SAFE and VeriScore)."""
    if text.rstrip().endswith("?") or (looks_like_question(text) and not _opens_with_subject_clause(sentence)):
        return "a question, not a statement"
    if _COURTESY.match(text):
        return "a greeting, courtesy or sign-off: nothing to check"
    if _OPINION_OPENERS.match(text):
        return "the speaker's own view, not a checkable fact"
    if _HEDGES.match(text):
        return "hedged speculation, not a claim"
    words = [t for t in sentence if not t.is_punct and not t.is_space]
    if not any(t.pos_ in {"VERB", "AUX"} for t in words):
        return "not a full statement (no verb)"
    root = sentence.root
    subjects = [c for c in root.children if c.dep_ in SUBJECTS | {"expl"}]
    first = words[0] if words else None
    if first is not None and (first.lower_ == "please" or (first.i == root.i and root.tag_ == "VB" and not subjects)):
        return "an instruction, not a statement"
    if any(t.lower_ in SPEAKER_PRONOUNS and t.pos_ == "PRON" for s in subjects for t in s.subtree):
        return "the speaker's own view or situation: not a checkable fact"
    if any(s.lower_ in GENERIC_PRONOUNS for s in subjects):
        if root.tag_ == "VBD" and any(s.lower_ in {"we", "us", "our"} for s in subjects):
            return "the speaker's own situation (what we did): not a checkable fact"
        modal = any(c.lower_ in ADVICE_MODALS for c in root.children if c.dep_ == "aux")
        if modal and any(s.lower_ in {"you", "your"} for s in subjects):
            return "advice to the reader, not a statement of fact"
    if root.lemma_ == "be" and _only_evaluative(root) and len(words) <= 10:
        return "an opinion, not a checkable fact"
    return None


def _opens_with_subject_clause(sentence: Span) -> bool:
    """ "What is really going on is ...": a wh-word that opens the subject, not a question."""
    first = sentence[0]
    return any(first in s.subtree for s in sentence.root.children if s.dep_ in {"csubj", "nsubj", "csubjpass"})


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
