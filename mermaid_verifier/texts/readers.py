"""What a text job reads each claim against: the small interface every reader implements (:class:`Reader`), and
the reader that verifies each claim against open sources through the verification graph (:class:`OpenSources`).
The other reader, grounding against the documents given with the text, is :class:`.grounding.GivenDocuments`.

A reader says how a claim is read (``read``), how the claims read make the job's result (``result``), which
events carry them (``claim_event``, ``done_event``: classes of :mod:`.events`), what comes with the text
(``inputs``, ``given``) and what is made ready beside the extraction (``prepare``); the job (:mod:`.job`) does the
rest, the same for both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from langgraph.graph.state import CompiledStateGraph
from typing_extensions import TypedDict

from mermaid_verifier.models import (
    CheckedClaim,
    ExtractedClaim,
    GivenDocument,
    TextCheckResult,
    TextClaims,
    TextSummary,
    VerificationResult,
    result_from_output,
)
from mermaid_verifier.texts.events import ClaimDone, ClaimEvent, SummaryEvent, TextDone
from mermaid_verifier.wiring import Resources

DEFAULT_CONCURRENCY = 4  # claims verified at once against open sources, unless asked otherwise

Item = TypeVar("Item")  # a claim decided: CheckedClaim, GroundedClaim
Result = TypeVar("Result")  # the job's result: TextCheckResult, GroundingResult


class TextInput(TypedDict):
    text: str


class DocumentsInput(TextInput):
    documents: list[GivenDocument]


class Reader(ABC, Generic[Item, Result]):
    """How a text job reads its claims: one implementation per kind of evidence."""

    name: str  # the job graph's name
    step: str  # the graph node that reads one claim
    finish: str  # the graph node that makes the result
    concurrency: int  # claims read at once, unless asked otherwise
    input_schema: type[TextInput]  # what the job graph takes
    claim_event: type[ClaimDone]  # the event of a claim decided
    done_event: type[TextDone]  # the event of the result

    @abstractmethod
    def inputs(self, text: str, documents: Sequence | None) -> dict:
        """The job graph's input for ``text`` and what came with it, checked (a usage error names what is
        wrong) before anything runs."""

    def given(self, state: dict) -> dict:
        """What came with the text, as the claims are read with it (in the graph: its input may come as JSON)."""
        return {}

    async def prepare(self, given: dict) -> None:
        """Made ready while the claims are extracted."""

    @abstractmethod
    async def read(self, index: int, claim: ExtractedClaim, documents: list[GivenDocument]) -> Item:
        """One claim, decided."""

    @abstractmethod
    def result(self, state: dict, extraction: TextClaims, items: list[Item]) -> Result:
        """The job's result from the text's extraction and its claims, decided (in the text's order)."""


def made_by(extraction: TextClaims) -> dict[str, Any]:
    """The result's record of its extraction: which extractor made the claims, and why the LLM's was not used
    where it was asked for and fell back."""
    return {"extractor": extraction.extractor, "extraction_fallback": extraction.fallback}


class OpenSources(Reader[CheckedClaim, TextCheckResult]):
    """Each claim verified against open sources through the compiled verification graph (``graph.build_graph``,
    ``graph.open_pipeline``): every claim of a text goes through the same graph, so the claims share its
    resources and its evidence memory (the second claim about a person starts from what the first one found)."""

    name = "mermaid-verifier-text"
    step = "verify"
    finish = "summarize"
    concurrency = DEFAULT_CONCURRENCY
    input_schema = TextInput
    claim_event = ClaimEvent
    done_event = SummaryEvent

    def __init__(self, verifier: CompiledStateGraph, resources: Resources | None = None) -> None:
        self.verifier = verifier
        self.resources = resources  # what the verification graph opened, where it was opened with them

    def inputs(self, text: str, documents: Sequence | None) -> dict:
        return {"text": text}

    async def verify(self, claim: str) -> VerificationResult:
        """One claim through the verification graph."""
        return result_from_output(claim, await self.verifier.ainvoke({"claim": claim}))

    async def read(self, index: int, claim: ExtractedClaim, documents: list[GivenDocument]) -> CheckedClaim:
        return CheckedClaim(index=index, claim=claim, result=await self.verify(claim.text))

    def result(self, state: dict, extraction: TextClaims, items: list[CheckedClaim]) -> TextCheckResult:
        return TextCheckResult(
            text=state["text"],
            claims=items,
            dropped=extraction.dropped,
            summary=TextSummary.of(items, len(extraction.dropped)),
            **made_by(extraction),
        )
