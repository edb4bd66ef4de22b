"""The one text job: a text's claims extracted, each claim read by a reader, the result made once. Two readers
(:mod:`.readers`): verification against open sources (:class:`~.readers.OpenSources`, each claim through the
verification graph) and grounding against the documents given with the text (:class:`~.grounding.GivenDocuments`).

``text_job_graph(reader, extractor)`` is the LangGraph graph of a job, the same shape for both readers, usable as
it is or as a node of a host app (the reader names its nodes: ``verify`` and ``summarize``, or ``ground`` and
``sentences``)::

    extract ──(one Send per claim)──▶ read one claim ──▶ result
       │                                                   ▲
       └──────────────(no claim in the text)───────────────┘

It takes ``{"text"}`` (with ``"documents"`` for grounding) and gives ``{"result"}``: a ``TextCheckResult`` or a
``GroundingResult``. How many claims are read at once is set by a semaphore in the run's ``configurable``
(``CLAIM_SLOTS``), which each read task holds while its claim is read. (LangGraph's own ``max_concurrency`` wraps
each task's coroutine in another that waits for a slot first; a run cancelled then, as by Ctrl-C, drops the
waiting coroutines unawaited, and Python warns about each.)

:class:`TextJob` is a job opened once for many texts (the HTTP service and the MCP server keep one for their
lifetime; ``check_text`` and ``check_grounding`` open one for one text). Its :meth:`TextJob.events` is the one
stream every way in reads (:mod:`.events`): the extraction, each claim as it is decided, the result.
"""

from __future__ import annotations

import asyncio
import contextlib
import operator
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import Annotated, Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send
from typing_extensions import TypedDict

from mermaid_verifier.agents.roles import ClaimExtractor
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import UsageError
from mermaid_verifier.graph import open_pipeline, settings_overrides
from mermaid_verifier.models import (
    CheckedClaim,
    ExtractedClaim,
    GivenDocument,
    GroundedClaim,
    GroundingResult,
    TextCheckResult,
    TextClaims,
    VerificationResult,
)
from mermaid_verifier.reader.stance import StanceModel
from mermaid_verifier.texts.events import ClaimDone, ExtractionEvent, TextDone, TextEvent
from mermaid_verifier.texts.grounding import GivenDocuments, GroundingConfig, grounding_stance
from mermaid_verifier.texts.readers import OpenSources, Reader, TextInput
from mermaid_verifier.wiring import Overrides, Resources, claim_extractor_for

CLAIM_SLOTS = "mermaid_claim_slots"  # the configurable entry: an asyncio.Semaphore, one slot per claim at once

Documents = Sequence[GivenDocument | str | tuple[str, str] | dict]


class JobOutput(TypedDict):
    result: TextCheckResult | GroundingResult


class JobState(TextInput, total=False):
    """The text (and its documents), its extraction, the claims read so far, the result."""

    documents: list[GivenDocument]
    extraction: TextClaims
    read: Annotated[list, operator.add]  # one entry per read task, in completion order
    result: TextCheckResult | GroundingResult


class ClaimTask(TypedDict):
    index: int
    claim: ExtractedClaim
    documents: list[GivenDocument]  # those given with the text (none against open sources)


def text_job_graph(reader: Reader, extractor: ClaimExtractor) -> CompiledStateGraph:
    """The job's graph for one reader: a text (and its documents) in, ``{"result"}`` out."""

    async def extract(state: JobState) -> dict:
        given = reader.given(dict(state))
        extraction, _ = await asyncio.gather(extractor.aextract(state["text"]), reader.prepare(given))
        return {"extraction": extraction, "read": [], **given}

    def each_claim(state: JobState) -> list[Send] | str:
        claims = state["extraction"].claims
        if not claims:
            return reader.finish
        documents = state.get("documents", [])
        return [
            Send(reader.step, ClaimTask(index=i, claim=claim, documents=documents)) for i, claim in enumerate(claims)
        ]

    async def read(state: ClaimTask, config: RunnableConfig) -> dict:
        slots: asyncio.Semaphore | None = (config.get("configurable") or {}).get(CLAIM_SLOTS)
        async with slots or contextlib.nullcontext():
            item = await reader.read(state["index"], state["claim"], state["documents"])
        return {"read": [item]}

    def finish(state: JobState) -> dict:
        items = sorted(state.get("read", []), key=lambda c: c.index)
        return {"read": [], "result": reader.result(dict(state), state["extraction"], items)}

    graph = StateGraph(JobState, input_schema=reader.input_schema, output_schema=JobOutput)
    graph.add_node("extract", extract)
    graph.add_node(reader.step, read)
    graph.add_node(reader.finish, finish)
    graph.add_edge(START, "extract")
    graph.add_conditional_edges("extract", each_claim, [reader.step, reader.finish])
    graph.add_edge(reader.step, reader.finish)
    graph.add_edge(reader.finish, END)
    return graph.compile(name=reader.name)


class TextJob:
    """The claim extractor and the readers, opened once and used for many texts: against open sources (with the
    verification graph and its resources, where the pipeline was opened) and against given documents (with the
    pipeline's stance model, or the one loaded for grounding alone); a job graph for each."""

    def __init__(
        self,
        extractor: ClaimExtractor,
        open_sources: OpenSources | None = None,
        given_documents: GivenDocuments | None = None,
    ) -> None:
        self.extractor = extractor
        self.open_sources = open_sources
        self.given_documents = given_documents
        readers: list[Reader] = [r for r in (open_sources, given_documents) if r is not None]
        self.graphs = {reader.name: text_job_graph(reader, extractor) for reader in readers}

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        settings: Settings | None = None,
        *,
        documents_only: bool = False,
        reading: GroundingConfig | None = None,
        start: bool = True,
        overrides: Overrides | None = None,
    ) -> AsyncIterator[TextJob]:
        """The one way a text job is opened. By default the pipeline is opened
        (:func:`~mermaid_verifier.graph.open_pipeline`, with ``overrides``) with the claim extractor loaded beside
        it, and closed when the block ends, on every path; without memory in the settings, the texts still share
        an in-memory store that ends with the block.

        ``documents_only``: only what grounding needs, for texts that come with their documents: the claim
        extractor (``overrides.claim_extractor``, or the backend's) and the stance model (``overrides.stance``, or
        the shipped one), loaded in worker threads (``start``: nothing is loaded to draw or inspect a graph), read
        with ``reading``; no tool server starts and no memory opens."""
        settings = settings or Settings.from_env()
        given = overrides or Overrides()
        if documents_only:
            extractor = given.claim_extractor or claim_extractor_for(settings)
            stance = given.stance or StanceModel(settings.stance_model_dir)
            if start:  # the stance model's self-check runs here
                await asyncio.gather(asyncio.to_thread(extractor.warm_up), asyncio.to_thread(stance.load))
            reader = await asyncio.to_thread(GivenDocuments, stance, reading)  # reads data/grounding_config.json
            yield await asyncio.to_thread(cls, extractor, given_documents=reader)
            return
        if not settings.use_memory and given.memory is None and given.store is None:
            from langgraph.store.memory import InMemoryStore

            from mermaid_verifier.memory.evidence import EvidenceMemory

            given = given.replace(memory=EvidenceMemory(InMemoryStore()))
        async with open_pipeline(settings, claims=True, start=start, overrides=given) as pipeline:
            grounding = await asyncio.to_thread(GivenDocuments, grounding_stance(pipeline.resources.stance), reading)
            open_sources = OpenSources(pipeline.graph, pipeline.resources)
            yield await asyncio.to_thread(cls, pipeline.extractor, open_sources, grounding)

    @property
    def resources(self) -> Resources:
        """What the pipeline opened (tool servers, models, memory)."""
        if self.open_sources is None or self.open_sources.resources is None:
            raise UsageError("this text job reads given documents only: no pipeline was opened")
        return self.open_sources.resources

    def reader(self, documents: Documents | None) -> Reader:
        """The reader for a text with ``documents`` (grounding), or without (verification against open sources)."""
        reader: Reader | None = self.open_sources if documents is None else self.given_documents
        if reader is None:
            raise UsageError(
                "this text job reads given documents only: give documents"
                if documents is None
                else "this text job verifies against open sources only: it cannot read given documents"
            )
        return reader

    async def verify(self, claim: str) -> VerificationResult:
        """One claim through the verification graph."""
        reader = self.reader(None)
        assert isinstance(reader, OpenSources)
        return await reader.verify(claim)

    async def events(
        self, text: str, documents: Documents | None = None, concurrency: int | None = None
    ) -> AsyncGenerator[TextEvent, None]:
        """The text's extraction first, then each claim as it is decided (completion order), then the result;
        against ``documents`` when they are given, else against open sources. ``concurrency``: claims read at
        once (by default the reader's)."""
        if not isinstance(text, str):  # caught here, not as a TypeError inside a graph task
            raise UsageError(f"the text to check must be a string, got {type(text).__name__}")
        reader = self.reader(documents)
        inputs = reader.inputs(text, documents)
        graph = self.graphs[reader.name]
        slots = asyncio.Semaphore(max(1, concurrency or reader.concurrency))
        # closed here when this stream is: a graph stream left to the loop's finaliser ends its run (its callbacks'
        # error task) after a caller's loop has stopped ("Task was destroyed but it is pending")
        stream = graph.astream(inputs, {"configurable": {CLAIM_SLOTS: slots}}, stream_mode="updates")
        updates = cast(AsyncGenerator[dict[str, Any], None], stream)  # typed as an iterator; it is a generator
        async with contextlib.aclosing(updates):
            async for update in updates:
                for node, values in update.items():
                    if node == "extract":
                        yield ExtractionEvent.of(values["extraction"])
                    elif node == reader.step:
                        for item in values["read"]:
                            yield reader.claim_event.of(item)
                    elif node == reader.finish:
                        yield reader.done_event.of(values["result"])

    async def check(
        self,
        text: str,
        documents: Documents | None = None,
        *,
        concurrency: int | None = None,
        on_claim: Callable[[Any, int], None] | None = None,
    ) -> TextCheckResult | GroundingResult:
        """The job's result; ``on_claim(item, total)`` sees each claim as it is decided."""
        total = 0
        # closed here, in this loop, when the result is in: left to the loop's finaliser, the graph's stream would
        # be closed after a Grounder's loop stopped ("Task was destroyed but it is pending")
        async with contextlib.aclosing(self.events(text, documents, concurrency)) as events:
            async for event in events:
                if isinstance(event, ExtractionEvent):
                    total = len(event.claims)
                elif isinstance(event, ClaimDone):
                    if on_claim is not None:
                        on_claim(event.item, total)
                elif isinstance(event, TextDone):
                    return event.result
        raise RuntimeError("the text job ended without a result")


async def check_text(
    text: str,
    settings: Settings | None = None,
    *,
    concurrency: int | None = None,
    on_claim: Callable[[CheckedClaim, int], None] | None = None,
    overrides: Overrides | None = None,
) -> TextCheckResult:
    """Every claim of ``text`` verified against open sources, with one shared memory; ``on_claim(checked,
    total)`` sees each claim as it is decided. The claims come from ``overrides.claim_extractor``, by default the
    backend's (``wiring.claim_extractor_for``); the resources are built, started and closed here."""
    async with TextJob.open(settings, overrides=overrides) as job:
        result = await job.check(text, concurrency=concurrency, on_claim=on_claim)
    assert isinstance(result, TextCheckResult)
    return result


async def check_grounding(
    text: str,
    documents: Documents,
    settings: Settings | None = None,
    *,
    concurrency: int | None = None,
    on_claim: Callable[[GroundedClaim, int], None] | None = None,
    overrides: Overrides | None = None,
) -> GroundingResult:
    """Is ``text`` backed by ``documents``? Each sentence supported, partially supported, contradicted, not
    stated, undecided or with nothing to check, each claim supported, contradicted, not stated or undecided with the
    passage that
    backs (or contradicts) it and its span. ``documents``: texts, (title, text) pairs, ``{"name", "title",
    "text"}`` dicts or :class:`~mermaid_verifier.models.GivenDocument`. ``overrides`` may give the claim extractor
    and the stance model."""
    async with TextJob.open(settings, documents_only=True, overrides=overrides) as job:
        result = await job.check(text, documents, concurrency=concurrency, on_claim=on_claim)
    assert isinstance(result, GroundingResult)
    return result


@contextlib.asynccontextmanager
async def make_grounding_graph(config: dict | None = None) -> AsyncIterator[CompiledStateGraph]:
    """Factory for LangGraph tooling (``langgraph.json``'s ``mermaid_verifier_grounding``): the job graph that
    grounds a text against its documents, with the backend's claim extractor and the stance model, loaded in
    worker threads for a run (nothing is loaded to draw or inspect it). Input ``{"text", "documents": [{"name",
    "title", "text"}]}``."""
    configurable = (config or {}).get("configurable") or {}
    settings = await asyncio.to_thread(Settings.from_env, **settings_overrides(configurable))
    start = bool(configurable.get("__is_for_execution__", True))
    async with TextJob.open(settings, documents_only=True, start=start) as job:
        yield job.graphs[GivenDocuments.name]
