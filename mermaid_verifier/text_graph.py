"""Checking a whole text: extract its claims, verify each through the verification graph, sum up.

``build_text_graph()`` returns a LangGraph graph a host app can use as it is or as a node::

    extract ──(one Send per claim)──▶ verify (the verification graph, per claim) ──▶ summarize

Every claim of a text goes through the same verification graph, so they share its resources and its
evidence memory: the second claim about a person starts from what the first one found. How many claims
are verified at once is set by a semaphore in the run's ``configurable`` (``CLAIM_SLOTS``;
``check_text(concurrency=…)``), which each ``verify`` task holds while its claim is verified. (LangGraph's own
``max_concurrency`` wraps each task's coroutine in another that waits for a slot first; a run cancelled then,
as by Ctrl-C, drops the waiting coroutines unawaited, and Python warns about each.)
``check_text()`` owns the resources for one text and reports each claim as it is decided.
"""

from __future__ import annotations

import asyncio
import contextlib
import operator
from collections.abc import AsyncIterator, Callable
from typing import Annotated

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send
from typing_extensions import TypedDict

from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
from mermaid_verifier.agents.roles import ClaimExtractor
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import UsageError
from mermaid_verifier.graph import open_pipeline
from mermaid_verifier.models import (
    CheckedClaim,
    ExtractedClaim,
    TextCheckResult,
    TextClaims,
    TextSummary,
    VerificationResult,
)
from mermaid_verifier.output import result_from_output
from mermaid_verifier.wiring import Resources

DEFAULT_CONCURRENCY = 4
MAX_TEXT_CHARS = 100_000
CLAIM_SLOTS = "mermaid_claim_slots"  # the configurable entry: an asyncio.Semaphore, one slot per claim at once


class TextInput(TypedDict):
    text: str


class TextOutput(TypedDict):
    extraction: TextClaims
    checked: Annotated[list[CheckedClaim], operator.add]  # one entry per verify task, in completion order
    summary: TextSummary


class TextState(TextInput, TextOutput, total=False):
    """The text, its extraction, the claims checked so far and the summary."""


class ClaimTask(TypedDict):
    index: int
    claim: ExtractedClaim


def build_text_graph(verifier: CompiledStateGraph, extractor: ClaimExtractor | None = None) -> CompiledStateGraph:
    """The text graph over a compiled verification graph (``graph.build_graph`` / ``open_verifier``)."""
    extractor = extractor or SpacyClaimExtractor()

    async def extract(state: TextState) -> dict:
        return {"extraction": await extractor.aextract(state["text"]), "checked": []}

    def each_claim(state: TextState) -> list[Send] | str:
        claims = state["extraction"].claims
        if not claims:
            return "summarize"
        return [Send("verify", ClaimTask(index=i, claim=claim)) for i, claim in enumerate(claims)]

    async def verify(state: ClaimTask, config: RunnableConfig) -> dict:
        slots: asyncio.Semaphore | None = (config.get("configurable") or {}).get(CLAIM_SLOTS)
        async with slots or contextlib.nullcontext():
            output = await verifier.ainvoke({"claim": state["claim"].text})
        result = result_from_output(state["claim"].text, output)
        return {"checked": [CheckedClaim(index=state["index"], claim=state["claim"], result=result)]}

    def summarize(state: TextState) -> dict:
        checked = sorted(state.get("checked", []), key=lambda c: c.index)
        return {"checked": [], "summary": TextSummary.of(checked, len(state["extraction"].dropped))}

    graph = StateGraph(TextState, input_schema=TextInput, output_schema=TextOutput)
    graph.add_node("extract", extract)
    graph.add_node("verify", verify)
    graph.add_node("summarize", summarize)
    graph.add_edge(START, "extract")
    graph.add_conditional_edges("extract", each_claim, ["verify", "summarize"])
    graph.add_edge("verify", "summarize")
    graph.add_edge("summarize", END)
    return graph.compile(name="mermaid-verifier-text")


class TextChecker:
    """The resources, the verification graph and the text graph, opened once and used for many texts
    (``check_text`` opens one for one text; the HTTP service keeps one for its lifetime)."""

    def __init__(self, resources: Resources, verifier: CompiledStateGraph, extractor: ClaimExtractor):
        self.resources = resources
        self.extractor = extractor
        self.verifier = verifier
        self.graph = build_text_graph(verifier, extractor)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls, settings: Settings | None = None, *, extractor: ClaimExtractor | None = None, **resource_overrides
    ) -> AsyncIterator[TextChecker]:
        """The pipeline opened (:func:`~mermaid_verifier.graph.open_pipeline`) with the claim extractor loaded beside
        it, and closed when the block ends, on every path. Without memory in the settings, the texts still share an
        in-memory store that ends with the block."""
        settings = settings or Settings.from_env()
        if not settings.use_memory and "memory" not in resource_overrides and "store" not in resource_overrides:
            from langgraph.store.memory import InMemoryStore

            from mermaid_verifier.memory.evidence import EvidenceMemory

            resource_overrides["memory"] = EvidenceMemory(InMemoryStore())
        async with open_pipeline(settings, claims=extractor or True, **resource_overrides) as pipeline:
            assert pipeline.extractor is not None  # asked for with claims=
            yield cls(pipeline.resources, pipeline.graph, pipeline.extractor)

    async def verify(self, claim: str) -> VerificationResult:
        """One claim through the verification graph."""
        return result_from_output(claim, await self.verifier.ainvoke({"claim": claim}))

    async def events(
        self, text: str, concurrency: int = DEFAULT_CONCURRENCY
    ) -> AsyncIterator[TextClaims | CheckedClaim | TextCheckResult]:
        """The text's extraction first, then each claim as it is decided (completion order), then the result."""
        if not isinstance(text, str):  # caught here, not as a TypeError inside a graph task
            raise UsageError(f"the text to check must be a string, got {type(text).__name__}")
        slots = asyncio.Semaphore(max(1, concurrency))
        extraction: TextClaims | None = None
        checked: list[CheckedClaim] = []
        async for update in self.graph.astream(
            {"text": text}, {"configurable": {CLAIM_SLOTS: slots}}, stream_mode="updates"
        ):
            for node, values in update.items():
                if node == "extract":
                    extraction = values["extraction"]
                    yield extraction
                elif node == "verify":
                    for item in values["checked"]:
                        checked.append(item)
                        yield item
        if extraction is None:
            raise RuntimeError("the text graph ended without extracting claims")
        yield result_of(text, extraction, checked)

    async def check(
        self,
        text: str,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        on_claim: Callable[[CheckedClaim, int], None] | None = None,
    ) -> TextCheckResult:
        total = 0
        async for event in self.events(text, concurrency):
            if isinstance(event, TextClaims):
                total = len(event.claims)
            elif isinstance(event, CheckedClaim):
                if on_claim is not None:
                    on_claim(event, total)
            else:
                return event
        raise RuntimeError("the text graph ended without a result")


def result_of(text: str, extraction: TextClaims, checked: list[CheckedClaim]) -> TextCheckResult:
    checked = sorted(checked, key=lambda c: c.index)
    return TextCheckResult(
        text=text,
        claims=checked,
        dropped=extraction.dropped,
        summary=TextSummary.of(checked, len(extraction.dropped)),
        extractor=extraction.extractor,
        extraction_fallback=extraction.fallback,
    )


async def check_text(
    text: str,
    settings: Settings | None = None,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    on_claim: Callable[[CheckedClaim, int], None] | None = None,
    extractor: ClaimExtractor | None = None,
    **resource_overrides,
) -> TextCheckResult:
    """Every claim of ``text`` verified, with one shared memory; ``on_claim(checked, total)`` sees each
    claim as it is decided. The claims come from ``extractor``, by default the backend's
    (``wiring.claim_extractor_for``); the resources are built, started and closed here."""
    async with TextChecker.open(settings, extractor=extractor, **resource_overrides) as checker:
        return await checker.check(text, concurrency=concurrency, on_claim=on_claim)
