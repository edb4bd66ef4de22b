"""The LLM claim extractor: a text's claims as structured output, sentence by sentence; the drop-in sibling of
``SpacyClaimExtractor`` (``aextract(text) -> TextClaims``).

The offline rules split the text into sentences (so each claim keeps its sentence's exact span); the model
gets them numbered and answers, per sentence, its atomic self-contained claims or why it holds nothing to
check (``prompts/claim_extractor.md``). A malformed answer is sent back once with the error quoted. On any
failure — the endpoint down, two bad answers — the whole text is extracted by the offline rules instead,
and ``TextClaims.fallback`` says why.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
from mermaid_verifier.agents.prompt_files import load_prompt
from mermaid_verifier.agents.structured import StructuredCaller
from mermaid_verifier.errors import LLMOutputError, LLMServiceError
from mermaid_verifier.models import DroppedSentence, ExtractedClaim, TextClaims

PROMPT_PLACEHOLDERS = {"system": set(), "user": {"sentences"}, "repair": {"error"}}


class SentenceClaims(BaseModel):
    """What one numbered sentence of the text states."""

    number: int = Field(description="The sentence's number, as given")
    claims: list[str] = Field(description="Atomic, self-contained claims the sentence states; empty when none")
    not_checkworthy: str | None = Field(description="Why the sentence holds nothing to check; null when it has claims")


class TextClaimsAnswer(BaseModel):
    """A text's claims, one entry per numbered sentence."""

    sentences: list[SentenceClaims]


class LLMClaimExtractor:
    """``aextract(text) -> TextClaims`` with a chat model; the offline extractor splits the sentences and
    takes over when the model fails."""

    backend = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        *,
        method: str = "json_schema",
        prompts_dir: Path | None = None,
        offline: SpacyClaimExtractor | None = None,
    ):
        self.prompt = load_prompt("claim_extractor", PROMPT_PLACEHOLDERS, prompts_dir)
        self.ask = StructuredCaller(model, TextClaimsAnswer, method=method, what="claim extraction")
        self.offline = offline or SpacyClaimExtractor()

    def warm_up(self) -> None:
        self.offline.warm_up()

    async def aextract(self, text: str) -> TextClaims:
        spans = self.offline.sentence_spans(text)
        if not spans:
            return TextClaims(claims=[], extractor="llm")
        numbered = "\n".join(f"{number}. {sentence}" for number, (_, _, sentence) in enumerate(spans, 1))

        def check(answer: TextClaimsAnswer) -> None:
            numbers = [entry.number for entry in answer.sentences]
            missing = sorted(set(range(1, len(spans) + 1)) - set(numbers))
            unknown = sorted(set(numbers) - set(range(1, len(spans) + 1)))
            if missing or unknown or len(numbers) != len(set(numbers)):
                raise ValueError(
                    f"answer each sentence number 1..{len(spans)} exactly once (missing {missing}, unknown {unknown})"
                )

        messages = [
            SystemMessage(self.prompt.render("system")),
            HumanMessage(self.prompt.render("user", sentences=numbered)),
        ]
        try:
            answer = await self.ask(
                messages, repair=lambda error: self.prompt.render("repair", error=error), validate=check
            )
        except (LLMOutputError, LLMServiceError) as exc:
            offline = await self.offline.aextract(text)
            return offline.model_copy(
                update={"fallback": f"the LLM claim extraction failed ({exc}); the offline rules extracted the claims"}
            )
        claims: list[ExtractedClaim] = []
        dropped: list[DroppedSentence] = []
        for entry in sorted(answer.sentences, key=lambda e: e.number):
            start, end, sentence = spans[entry.number - 1]
            texts = [" ".join(c.split()) for c in entry.claims if c.strip()]
            if not texts:
                reason = (entry.not_checkworthy or "").strip() or "nothing to check (the LLM extractor gave no reason)"
                dropped.append(DroppedSentence(sentence=sentence, start=start, end=end, reason=reason))
            for claim in dict.fromkeys(texts):
                claims.append(ExtractedClaim(text=claim, sentence=sentence, start=start, end=end))
        return TextClaims(claims=claims, dropped=dropped, extractor="llm")
