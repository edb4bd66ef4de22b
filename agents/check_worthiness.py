"""Check-worthiness: whether a sentence of a text states something to check, and if not, why.

What is dropped, and why
    Questions; greetings, thanks and sign-offs ("I hope this helps!"); instructions (a sentence that opens
    with a bare verb: "Note that ...", "Please check ..."); the speaker's own view or situation (first or
    second person subject, "I think ..."); opinions (a copula with only an evaluative adjective: "It is a
    great film"); hedged speculation; advice to the reader; and fragments without a verb. Each dropped sentence
    says which. A sentence that names nothing to look up is kept: the judge abstains on a claim that names nothing.
"""

from __future__ import annotations

import asyncio
import re

from spacy.tokens import Span, Token

from mermaid_verifier.agents.coreference import SUBJECTS
from mermaid_verifier.agents.spacy_pipeline import LazyPipeline
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
    "best",
    "worst",
    "finest",
    "tasty",
    "ugly",
    "horrible",
    "brilliant",
    "superb",
    "overrated",
    "underrated",
    "favourite",
    "favorite",
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
    if not any(t.pos_ in {"VERB", "AUX"} for t in words) and not (
        text.rstrip().endswith(".") and _verb_read_as_noun(words)
    ):
        return "not a full statement (no verb)"
    root = sentence.root
    subjects = [c for c in root.children if c.dep_ in SUBJECTS | {"expl"}]
    first = words[0] if words else None
    bare_verb = first is not None and first.i == root.i and root.tag_ == "VB" and not subjects
    if first is not None and (first.lower_ == "please" or (bare_verb and not _titled(first))):
        return "an instruction, not a statement"
    if any(t.lower_ in SPEAKER_PRONOUNS and t.pos_ == "PRON" for s in subjects if not _titled(s) for t in s.subtree):
        return "the speaker's own view or situation: not a checkable fact"
    if any(s.lower_ in GENERIC_PRONOUNS and not _titled(s) for s in subjects):
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


def _verb_read_as_noun(words: list[Token]) -> bool:
    """Whether a full stop's sentence holds a verb the tagger took for a common noun ("Poldark airs on HBO.", "A
    monk practices asceticism.", "Residents of Basildon work in Central London."): a common noun right after a
    noun or name, followed by a preposition, an article, a noun or a name, or ending the sentence after a name
    ("Seohyun sings.") -- unlike a caption's noun phrase ("A view of Mount Fuji from Tokyo.")."""
    if not words or words[-1].like_num:  # "... include: 1.": a list's first marker
        return False
    for before, word, after in zip([None, *words], words, [*words[1:], None]):
        if word.tag_ not in {"NNS", "NN"} or before is None or before.pos_ not in {"NOUN", "PROPN"}:
            continue
        if before.i == words[0].i and not before.ent_type_ and before.tag_ != "NNP":  # "Identify predators."
            continue
        if before.tag_ in {"NN", "NNS"} and before.i > 0 and before.nbor(-1).pos_ == "DET" and word.tag_ == "NN":
            continue  # "the school system": a compound noun, not a verb
        if after is None or after.pos_ in {"ADP", "DET", "PROPN", "NOUN", "ADJ"}:
            return True
    return False


def _titled(subject: Token) -> bool:
    """Whether a subject (or an opening verb) is part of a title ("My Old Kentucky Home", "I Kissed a Girl", "You
    Belong with Me", "Make It or Break It"): a capitalised word besides its first, or right after it."""
    words = [t for t in subject.subtree if not t.is_punct]
    following = subject.doc[subject.i + 1] if subject.i + 1 < len(subject.doc) else None
    if following is not None and following.text[:1].isupper() and following.lower_ != "i" and not following.is_punct:
        return True
    return any(t.text[:1].isupper() and t.lower_ != "i" for t in words[1:])


def _only_evaluative(root: Token) -> bool:
    """A copula whose complements are only a judgement: an evaluative adjective ("delicious", "a great film",
    "the best food"), with no name, number or prepositional phrase that makes it a statement of fact ("good for
    heart health", "a victim of a great white attack")."""
    complements = [c for c in root.children if c.dep_ in {"acomp", "attr"}]
    if not complements:
        return False
    for c in complements:
        judged = [c] if c.pos_ == "ADJ" else [t for t in c.children if t.dep_ in {"amod", "advmod"}]
        words = {t.lower_ for j in judged for t in j.subtree if t.pos_ in {"ADJ", "ADV"}}
        nouns = [t for t in c.subtree if t.pos_ in {"PROPN", "NUM"} or t.ent_type_]
        if nouns or any(t.dep_ == "prep" for t in c.children) or not words & EVALUATIVE:
            return False
    return True


class CheckWorthiness(LazyPipeline):
    """The same rule for a claim given on its own (``verify``, the API, MCP) as for a sentence of a text (``check``):
    why the claim holds nothing to check, or None."""

    def why_not(self, claim: str) -> str | None:
        claim = claim.strip()
        if claim and claim[-1] not in ".!?":  # a claim typed without its full stop is no heading
            claim += "."
        sentences = [s for s in self.nlp(claim).sents if s.text.strip()]
        reasons = [why_not_checkworthy(s, s.text.strip()) for s in sentences]
        return reasons[0] if reasons and all(reasons) else None  # one checkable sentence makes it a claim

    async def awhy_not(self, claim: str) -> str | None:
        return await asyncio.to_thread(self.why_not, claim)
