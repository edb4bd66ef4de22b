"""Grounding: is a text backed by the documents given with it? Per claim: supported, contradicted or not
stated; per sentence, from its claims:

* **supported**: every claim of it is;
* **contradicted**: a claim of it is (whatever the others are: the sentence says something the documents
  say otherwise), naming it;
* **partially supported**: some claims are supported and the rest not stated, naming those;
* **not stated**: no claim is supported or contradicted;
* **nothing to check**: the extractor found no claim in it (with why).

This is the question RAG faithfulness checks ask (MiniCheck, AlignScore, RAGAS faithfulness), and it is not
the open fact-check of :mod:`mermaid_verifier.graph`: the documents are given and trusted as given, and the only
question is whether they say what the text says. So no source credibility, cross-source consensus or topicality
discounts a passage here, no live source is asked and no memory is consulted; evidence comes only from the
documents, read as passages of one to a few sentences and windows of up to four around the best hits
(:mod:`mermaid_verifier.tools.passages`)::

    extract ──(one Send per claim)──▶ ground ──▶ sentences
       │                                             ▲
       └────────────(no claim in the text)───────────┘

``extract``
    the text's claims (the backend's claim extractor) and the documents' passage index (built on the fly,
    kept by content);
``ground``
    where a claim is decided: the ``passages`` passages BM25 ranks highest for it, and windows of
    ``window_sentences`` sentences around the ``windows`` best of them, are read by the stance model at up to
    ``max_length`` tokens a pair. The claim is **supported** when a passage reads P(supports) at or above
    ``threshold`` and holds the claim's numbers, dates and names (``coverage``: a reading of support from a
    passage without them is not support; :func:`mermaid_verifier.agents.slots.missing_values`). Unsupported,
    it is **contradicted** only when a passage reads P(refutes) at or above ``refute_threshold`` *and* speaks
    to the claim's slot: it is about the claim's subject and states a value of the claim's kind for the same
    relation (:func:`mermaid_verifier.agents.slots.speaks_to_slot`; a passage about the company's headcount
    does not contradict where it is listed). Otherwise it is **not stated**;
``sentences``
    each sentence of the text labelled from its claims, as above.

The reading settings live in ``data/grounding_config.json`` with how they were chosen (``bench/grounding.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import operator
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from importlib import resources as package_files
from typing import Annotated

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send
from typing_extensions import TypedDict

from mermaid_verifier.agents.roles import ClaimExtractor
from mermaid_verifier.agents.slots import ClaimReader, SlotReading
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import (
    ExtractedClaim,
    GivenDocument,
    GroundedClaim,
    GroundedSentence,
    GroundingPassage,
    GroundingResult,
    GroundingSummary,
    TextClaims,
)
from mermaid_verifier.stance import StanceModel
from mermaid_verifier.tools.passages import DocumentPassage, PassageIndex, PassageIndexCache
from mermaid_verifier.wiring import extractor_for

MAX_DOCUMENTS = 100
MAX_DOCUMENT_CHARS = 2_000_000
DEFAULT_CONCURRENCY = 2
SAME_READING = 0.02  # passages read within this of the best: the shortest is shown, with the tightest span
CLAIM_SLOTS = "mermaid_grounding_slots"  # the configurable entry: an asyncio.Semaphore, one slot per claim read


@dataclass(frozen=True)
class GroundingConfig:
    """How claims are read against passages (``data/grounding_config.json``)."""

    threshold: float  # P(supports) at or above which a passage states the claim
    passages: int  # passages BM25 ranks highest, read per claim
    sizes: tuple[int, ...]  # sentences per passage
    max_length: int  # tokens of a (claim, passage) pair the reader keeps
    refute_threshold: float = 0.78  # P(refutes) at or above which a passage on the claim's slot contradicts it
    windows: int = 0  # the best hits widened to a window of neighbouring sentences, read as well
    window_sentences: int = 4  # sentences in such a window
    coverage: bool = False  # support needs the claim's numbers, dates and names in the passage

    @classmethod
    def bundled(cls) -> GroundingConfig:
        raw = json.loads((package_files.files("mermaid_verifier.data") / "grounding_config.json").read_text())
        return cls.of(raw)

    @classmethod
    def of(cls, raw: dict) -> GroundingConfig:
        return cls(
            threshold=float(raw["threshold"]),
            passages=int(raw["passages"]),
            sizes=tuple(int(s) for s in raw["sizes"]),
            max_length=int(raw["max_length"]),
            refute_threshold=float(raw.get("refute_threshold", raw["threshold"])),
            windows=int(raw.get("windows", 0)),
            window_sentences=int(raw.get("window_sentences", 4)),
            coverage=bool(raw.get("coverage", False)),
        )


class GroundingInput(TypedDict):
    text: str
    documents: list[GivenDocument]


class GroundingOutput(TypedDict):
    result: GroundingResult


class GroundingState(GroundingInput, total=False):
    """The text and documents, the text's claims, the claims read so far, the result."""

    extraction: TextClaims
    grounded: Annotated[list[GroundedClaim], operator.add]  # one entry per ground task, in completion order
    result: GroundingResult


class ClaimToGround(TypedDict):
    index: int
    claim: ExtractedClaim
    documents: list[GivenDocument]


def as_documents(documents: Sequence[GivenDocument | str | tuple[str, str] | dict]) -> list[GivenDocument]:
    """Documents as :class:`GivenDocument`: a plain string becomes "document N", a pair (title, text)."""
    out: list[GivenDocument] = []
    for number, document in enumerate(documents, 1):
        if isinstance(document, GivenDocument):
            out.append(document)
        elif isinstance(document, str):
            out.append(GivenDocument(name=f"document {number}", text=document))
        elif isinstance(document, tuple) and len(document) == 2:
            out.append(GivenDocument(name=document[0] or f"document {number}", title=document[0], text=document[1]))
        elif isinstance(document, dict):
            out.append(GivenDocument.model_validate({"name": f"document {number}", **document}))
        else:
            raise UsageError(
                f"document {number} is a {type(document).__name__}; give text, (title, text) or a GivenDocument"
            )
    if not out:
        raise UsageError("no documents to check against: give at least one")
    if len(out) > MAX_DOCUMENTS:
        raise UsageError(f"{len(out)} documents; the limit is {MAX_DOCUMENTS} (check against fewer at once)")
    for document in out:
        if not document.text.strip():
            raise UsageError(f"{document.name}: the document is empty")
        if len(document.text) > MAX_DOCUMENT_CHARS:
            raise UsageError(
                f"{document.name}: {len(document.text):,} characters; the limit is {MAX_DOCUMENT_CHARS:,} a document"
            )
    return out


def decide_claim(
    index: int,
    claim: ExtractedClaim,
    passages: list[DocumentPassage],
    readings: list[dict[str, float]],
    threshold: float,
    *,
    refute_threshold: float | None = None,
    missing: Callable[[GroundingPassage], list[str]] | None = None,
    speaks: Callable[[GroundingPassage], SlotReading] | None = None,
) -> GroundedClaim:
    """The claim's grounding from its passages' readings. **Supported** when a passage reads P(supports) at or
    above ``threshold`` and (given ``missing``) lacks none of the claim's numbers, dates and names;
    **contradicted** when, unsupported, a passage reads P(refutes) at or above ``refute_threshold`` (the
    threshold unless given) and (given ``speaks``) speaks to the claim's slot; else **not stated**. Nothing else
    weighs in: the documents are given."""
    refute_threshold = threshold if refute_threshold is None else refute_threshold
    read = [
        GroundingPassage(
            document=p.document,
            name=p.name,
            title=p.title,
            text=p.text,
            start=p.start,
            end=p.end,
            supports=round(r.get("supports", 0.0), 4),
            refutes=round(r.get("refutes", 0.0), 4),
        )
        for p, r in zip(passages, readings)
    ]
    if not read:
        return GroundedClaim(index=index, claim=claim, status="not stated", supported=False, support=0.0, read=0)
    top = max(p.supports for p in read)
    lacking: list[str] = []
    stating = []
    for p in sorted(read, key=lambda p: -p.supports):
        if p.supports < threshold:
            break
        gaps = missing(p) if missing is not None else []
        if not gaps:
            stating.append(p)
        elif not lacking:
            lacking = gaps
    supported = bool(stating)
    pool = stating or read
    best_reading = max(p.supports for p in pool)
    close = [p for p in pool if p.supports >= best_reading - SAME_READING]
    best = min(close, key=lambda p: (p.end - p.start, -p.supports))
    contradicting, reason = None, None
    if not supported:
        for p in sorted((p for p in read if p.refutes >= refute_threshold), key=lambda p: -p.refutes)[:3]:
            slot = speaks(p) if speaks is not None else None
            if slot is None or slot.states_slot:
                contradicting, reason = p, slot.reason if slot is not None else None
                break
            if reason is None:
                reason = f"read as contradicting (P(refutes) {p.refutes:.2f}), but the passage {slot.reason}"
    status = "supported" if supported else "contradicted" if contradicting is not None else "not stated"
    return GroundedClaim(
        index=index,
        claim=claim,
        status=status,
        supported=supported,
        support=top,
        contradicted=contradicting is not None,
        passage=contradicting or best,
        read=len(read),
        missing=[] if supported else lacking,
        reason=reason,
    )


def passages_for(index: PassageIndex, claim: ExtractedClaim, reading: GroundingConfig) -> list[DocumentPassage]:
    """What is read for a claim: the passages BM25 ranks highest, then windows around the best of them (each
    passage once)."""
    hits = index.search(query_of(claim), reading.passages)
    out, seen = list(hits), {(p.document, p.start, p.end) for p in hits}
    for hit in hits[: reading.windows]:
        window = index.window(hit, reading.window_sentences)
        if (window.document, window.start, window.end) not in seen:
            seen.add((window.document, window.start, window.end))
            out.append(window)
    return out


def query_of(claim: ExtractedClaim) -> str:
    """What the passages are searched with: the claim, and the sentences before it when it kept a reference as
    written ("It was completed in 1889." finds the passage about the tower the text named before)."""
    return f"{claim.context} {claim.text}" if claim.context else claim.text


async def read_claim(
    index: PassageIndex, stance: StanceModel, reading: GroundingConfig, number: int, claim: ExtractedClaim
) -> GroundedClaim:
    """One claim against the documents: the passages BM25 ranks highest (and windows around the best) read by
    the stance model, then decided; the claim is parsed (its values and slot) only when a passage asks for it: a
    reading of support with coverage on, or a reading of refutation."""
    passages = await asyncio.to_thread(passages_for, index, claim, reading)
    claim_reader = functools.cache(lambda: ClaimReader.of(claim.text))
    readings = await stance.aprobabilities(
        claim.text, [(p.title, p.text) for p in passages], max_length=reading.max_length
    )
    return await asyncio.to_thread(
        decide_claim,
        number,
        claim,
        passages,
        readings,
        reading.threshold,
        refute_threshold=reading.refute_threshold,
        missing=(lambda p: claim_reader().missing(p.text, p.title)) if reading.coverage else None,
        speaks=lambda p: claim_reader().speaks(p.text, p.title),
    )


def sentence_label(items: list[GroundedClaim]) -> str:
    """A sentence's label from its claims (see the module's docstring)."""
    statuses = {c.status for c in items}
    if statuses == {"supported"}:
        return "supported"
    if "contradicted" in statuses:
        return "contradicted"
    return "partially supported" if "supported" in statuses else "not stated"


def sentences_of(extraction: TextClaims, grounded: list[GroundedClaim]) -> list[GroundedSentence]:
    """Each sentence of the text (in text order) labelled from its claims."""
    by_sentence: dict[tuple[int, int], list[GroundedClaim]] = {}
    for item in sorted(grounded, key=lambda c: c.index):
        by_sentence.setdefault((item.claim.start, item.claim.end), []).append(item)
    out: list[GroundedSentence] = []
    for (start, end), items in by_sentence.items():
        label = sentence_label(items)
        contradicted = [c for c in items if c.status == "contradicted"]
        supported = [c for c in items if c.status == "supported"]
        shown = contradicted[0].passage if contradicted else max(supported or items, key=lambda c: c.support).passage
        out.append(
            GroundedSentence(
                sentence=items[0].claim.sentence,
                start=start,
                end=end,
                label=label,
                claims=[c.index for c in items],
                unsupported=[c.claim.text for c in items if not c.supported],
                contradicted=[c.claim.text for c in contradicted],
                not_stated=[c.claim.text for c in items if c.status == "not stated"],
                passage=shown,
            )
        )
    for dropped in extraction.dropped:
        if (dropped.start, dropped.end) not in by_sentence:
            out.append(
                GroundedSentence(
                    sentence=dropped.sentence,
                    start=dropped.start,
                    end=dropped.end,
                    label="nothing to check",
                    reason=dropped.reason,
                )
            )
    return sorted(out, key=lambda s: s.start)


def build_grounding_graph(
    extractor: ClaimExtractor,
    stance: StanceModel,
    reading: GroundingConfig | None = None,
    indexes: PassageIndexCache | None = None,
) -> CompiledStateGraph:
    """The grounding graph: a text and its documents in, a :class:`GroundingResult` out."""
    reading = reading or GroundingConfig.bundled()
    indexes = indexes or PassageIndexCache()

    async def extract(state: GroundingState) -> dict:
        documents = as_documents(state["documents"])  # as JSON from a LangGraph server, or as records
        extraction, _ = await asyncio.gather(
            extractor.aextract(state["text"]), asyncio.to_thread(indexes.get, documents, reading.sizes)
        )
        return {"extraction": extraction, "grounded": [], "documents": documents}

    def each_claim(state: GroundingState) -> list[Send] | str:
        claims = state["extraction"].claims
        if not claims:
            return "sentences"
        return [
            Send("ground", ClaimToGround(index=i, claim=claim, documents=state["documents"]))
            for i, claim in enumerate(claims)
        ]

    async def ground(state: ClaimToGround, config: RunnableConfig) -> dict:
        slots: asyncio.Semaphore | None = (config.get("configurable") or {}).get(CLAIM_SLOTS)
        async with slots or contextlib.nullcontext():
            index = await asyncio.to_thread(indexes.get, state["documents"], reading.sizes)
            grounded = await read_claim(index, stance, reading, state["index"], state["claim"])
        return {"grounded": [grounded]}

    def sentences(state: GroundingState) -> dict:
        extraction = state["extraction"]
        grounded = sorted(state.get("grounded", []), key=lambda c: c.index)
        labelled = sentences_of(extraction, grounded)
        return {
            "grounded": [],
            "result": GroundingResult(
                text=state["text"],
                documents=[d.name for d in state["documents"]],
                sentences=labelled,
                claims=grounded,
                summary=GroundingSummary.of(labelled, grounded),
                threshold=reading.threshold,
                extractor=extraction.extractor,
                extraction_fallback=extraction.fallback,
            ),
        }

    graph = StateGraph(GroundingState, input_schema=GroundingInput, output_schema=GroundingOutput)
    graph.add_node("extract", extract)
    graph.add_node("ground", ground)
    graph.add_node("sentences", sentences)
    graph.add_edge(START, "extract")
    graph.add_conditional_edges("extract", each_claim, ["ground", "sentences"])
    graph.add_edge("ground", "sentences")
    graph.add_edge("sentences", END)
    return graph.compile(name="mermaid-verifier-grounding")


class GroundingChecker:
    """The claim extractor, the stance model and the passage indexes, opened once for many texts (the HTTP
    service keeps one for its lifetime; ``check_grounding`` opens one for one text)."""

    def __init__(self, extractor: ClaimExtractor, stance: StanceModel, config: GroundingConfig | None = None) -> None:
        self.config = config or GroundingConfig.bundled()
        self.extractor = extractor
        self.stance = stance
        self.indexes = PassageIndexCache()
        self.graph = build_grounding_graph(extractor, stance, self.config, self.indexes)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        settings: Settings | None = None,
        *,
        extractor: ClaimExtractor | None = None,
        stance: StanceModel | None = None,
        config: GroundingConfig | None = None,
    ) -> AsyncIterator[GroundingChecker]:
        """Loaded in worker threads (the parser and the stance model, whose self-check runs here)."""
        settings = settings or Settings.from_env()
        extractor = extractor or extractor_for(settings)
        stance = stance or StanceModel(settings.stance_model_dir)
        await asyncio.gather(asyncio.to_thread(extractor.warm_up), asyncio.to_thread(stance.load))
        yield await asyncio.to_thread(cls, extractor, stance, config)  # reads data/grounding_config.json

    async def events(
        self, text: str, documents: Sequence, concurrency: int = DEFAULT_CONCURRENCY
    ) -> AsyncIterator[TextClaims | GroundedClaim | GroundingResult]:
        """The text's extraction first, then each claim as it is read (completion order), then the result."""
        if not isinstance(text, str):
            raise UsageError(f"the text to check must be a string, got {type(text).__name__}")
        if not text.strip():
            raise UsageError("the text to check is empty")
        given = as_documents(documents)
        slots = asyncio.Semaphore(max(1, concurrency))
        async for update in self.graph.astream(
            {"text": text, "documents": given}, {"configurable": {CLAIM_SLOTS: slots}}, stream_mode="updates"
        ):
            for node, values in update.items():
                if node == "extract":
                    yield values["extraction"]
                elif node == "ground":
                    for item in values["grounded"]:
                        yield item
                elif node == "sentences":
                    yield values["result"]

    async def check(
        self,
        text: str,
        documents: Sequence,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        on_claim: Callable[[GroundedClaim, int], None] | None = None,
    ) -> GroundingResult:
        total = 0
        async for event in self.events(text, documents, concurrency):
            if isinstance(event, TextClaims):
                total = len(event.claims)
            elif isinstance(event, GroundedClaim):
                if on_claim is not None:
                    on_claim(event, total)
            else:
                return event
        raise RuntimeError("the grounding graph ended without a result")


async def check_grounding(
    text: str,
    documents: Sequence[GivenDocument | str | tuple[str, str] | dict],
    settings: Settings | None = None,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    on_claim: Callable[[GroundedClaim, int], None] | None = None,
    extractor: ClaimExtractor | None = None,
    stance: StanceModel | None = None,
) -> GroundingResult:
    """Is ``text`` backed by ``documents``? Each sentence supported, partially supported, contradicted, not
    stated or with nothing to check, each claim supported, contradicted or not stated with the passage that
    backs (or contradicts) it and its span. ``documents``: texts, (title,
    text) pairs, ``{"name", "title", "text"}`` dicts or :class:`GivenDocument`."""
    async with GroundingChecker.open(settings, extractor=extractor, stance=stance) as checker:
        return await checker.check(text, documents, concurrency=concurrency, on_claim=on_claim)


@contextlib.asynccontextmanager
async def make_grounding_graph(config: dict | None = None) -> AsyncIterator[CompiledStateGraph]:
    """Factory for LangGraph tooling (``langgraph.json``'s ``mermaid_verifier_grounding``): the grounding graph
    with the backend's claim extractor and the stance model, loaded in worker threads for a run (nothing is
    loaded to draw or inspect it). Input ``{"text", "documents": [{"name", "title", "text"}]}``."""
    from mermaid_verifier.graph import settings_overrides

    configurable = (config or {}).get("configurable") or {}
    settings = await asyncio.to_thread(Settings.from_env, **settings_overrides(configurable))
    extractor = extractor_for(settings)
    stance = StanceModel(settings.stance_model_dir)
    if configurable.get("__is_for_execution__", True):
        await asyncio.gather(asyncio.to_thread(extractor.warm_up), asyncio.to_thread(stance.load))
    yield await asyncio.to_thread(build_grounding_graph, extractor, stance)  # it reads the reading settings
