"""Offline claim extraction: a text -> atomic, self-contained claims, each with its sentence's span.

Sentences
    spaCy's parse splits the text; each sentence keeps its character span in the text. A hyphen inside a
    word is parsed as one word ("co-founded"), the text itself is never changed.
Then, sentence by sentence
    :mod:`.check_worthiness` drops what holds nothing to check (questions, courtesies, instructions, the
    speaker's own view, opinions, fragments), saying why; :mod:`.claim_rendering` splits the rest into atomic
    claims and writes each out; :mod:`.coreference` says whom or what its pronouns, surnames and definite
    descriptions stand for. A claim whose reference stays as written carries the sentences before it as context.
"""

from __future__ import annotations

import asyncio
import re

from mermaid_verifier.agents.check_worthiness import why_not_checkworthy
from mermaid_verifier.agents.claim_rendering import own_words, sentence_claims
from mermaid_verifier.agents.coreference import LOOKBACK, NON_BREAKING_HYPHEN, Antecedents
from mermaid_verifier.agents.spacy_pipeline import LazyPipeline
from mermaid_verifier.models import DroppedSentence, ExtractedClaim, TextClaims

_IN_WORD_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")


class SpacyClaimExtractor(LazyPipeline):
    """Text -> :class:`TextClaims` with spaCy rules; the pipeline loads lazily on first use."""

    backend = "offline"

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
        antecedents = Antecedents()
        claims: list[ExtractedClaim] = []
        dropped: list[DroppedSentence] = []
        before: list[str] = []  # the sentences so far: context for a claim whose reference stays as written
        for (start, end, stripped), sentence in self._sentences(text):
            reason = why_not_checkworthy(sentence, stripped)
            if reason is not None:
                dropped.append(DroppedSentence(sentence=stripped, start=start, end=end, reason=reason))
            else:
                made = sentence_claims(sentence, antecedents) or [own_words(sentence, antecedents)]
                for claim_text, resolved, kept in made:
                    claims.append(
                        ExtractedClaim(
                            text=claim_text,
                            sentence=stripped,
                            start=start,
                            end=end,
                            resolved=resolved,
                            unresolved=kept,
                            context=" ".join(before[-LOOKBACK:]) if kept and before else None,
                        )
                    )
            antecedents.read(sentence)
            before.append(stripped)
        return TextClaims(claims=_unique(claims), dropped=dropped, extractor="offline")


def _unique(claims: list[ExtractedClaim]) -> list[ExtractedClaim]:
    seen: set[str] = set()
    out = []
    for claim in claims:
        key = claim.text.lower()
        if key not in seen:
            seen.add(key)
            out.append(claim)
    return out
