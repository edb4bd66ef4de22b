"""The LLM decomposer: the claim's atomic facts as triplets (with who the claim attributes each to),
search keywords and entities, as structured output; the drop-in sibling of ``SpacyDecomposer``.

An attribution the claim does not name is dropped. A malformed or empty answer (no triplet, a triplet without subject or relation) is sent back once with
the error quoted; a second bad answer raises :class:`~mermaid_verifier.errors.DecompositionError`,
which the graph turns into an abstention that states the reason.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from mermaid_verifier.agents.prompt_files import load_prompt
from mermaid_verifier.agents.structured import StructuredCaller
from mermaid_verifier.errors import DecompositionError
from mermaid_verifier.models import Decomposition, Triplet

PROMPT_PLACEHOLDERS = {"system": set(), "user": {"claim"}, "repair": {"error"}}


class ClaimTriplet(BaseModel):
    """One atomic fact the claim states."""

    subject: str = Field(description="What the fact is about, as written in the claim")
    relation: str = Field(description="The verb phrase relating subject and object, with negation")
    object: str = Field(description="What the subject is related to; empty when the fact has none")
    attribution: str | None = Field(
        description="Who the claim says asserts this fact; null if the claim states it itself"
    )


class ClaimDecomposition(BaseModel):
    """A fact-check claim split into atomic facts, search keywords and named entities."""

    triplets: list[ClaimTriplet] = Field(description="One entry per atomic fact; at least one")
    keywords: list[str] = Field(description="Search keywords: names, titles, distinctive nouns, dates, main verbs")
    entities: list[str] = Field(description="Named entities mentioned in the claim")


def _clean(items: list[str]) -> list[str]:
    seen, out = set(), []
    for item in items:
        text = " ".join(str(item).split())
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out


def _named_in_claim(attribution: str | None, claim: str) -> str | None:
    """The attribution when the claim names that source, else None: a small model fills the field with
    sources it imagines ("According to Wikipedia, …" for a claim that cites nobody)."""
    text = " ".join((attribution or "").split())
    if not text:
        return None
    return text if text.casefold() in claim.casefold() else None


def _check(answer: ClaimDecomposition) -> None:
    if not answer.triplets:
        raise ValueError("triplets is empty: every claim states at least one fact")
    for number, triplet in enumerate(answer.triplets):
        if not triplet.subject.strip() or not triplet.relation.strip():
            raise ValueError(f"triplets.{number}: subject and relation must not be empty")


class LLMDecomposer:
    """``adecompose(claim) -> Decomposition`` with a chat model; ``method`` is the structured-output mode."""

    def __init__(self, model: BaseChatModel, *, method: str = "json_schema", prompts_dir: Path | None = None):
        self.prompt = load_prompt("decomposer", PROMPT_PLACEHOLDERS, prompts_dir)
        self.ask = StructuredCaller(
            model, ClaimDecomposition, method=method, error_class=DecompositionError, what="decomposition"
        )

    def warm_up(self) -> None:
        """Nothing to load (the SpacyDecomposer's interface)."""

    async def adecompose(self, claim: str) -> Decomposition:
        claim = " ".join(claim.split())
        if not claim:
            return Decomposition()
        messages = [SystemMessage(self.prompt.render("system")), HumanMessage(self.prompt.render("user", claim=claim))]
        answer = await self.ask(
            messages, repair=lambda error: self.prompt.render("repair", error=error), validate=_check
        )
        triplets = list(
            dict.fromkeys(
                Triplet(
                    subject=" ".join(t.subject.split()),
                    relation=" ".join(t.relation.split()),
                    object=" ".join(t.object.split()),
                    attribution=_named_in_claim(t.attribution, claim),
                )
                for t in answer.triplets
            )
        )
        return Decomposition(triplets=triplets, keywords=_clean(answer.keywords), entities=_clean(answer.entities))
