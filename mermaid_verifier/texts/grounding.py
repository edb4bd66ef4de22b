"""Grounding against given documents, one of the two readers of a text job (:class:`GivenDocuments`): is a
text backed by the documents given with it? Per claim: supported, contradicted, not stated or undecided; per sentence,
from its claims:

* **supported**: every claim of it is;
* **contradicted**: a claim of it is (whatever the others are: the sentence says something the documents
  say otherwise), naming it;
* **partially supported**: some claims are supported and the rest not stated, naming those;
* **not stated**: no claim is supported or contradicted;
* **undecided**: no claim is contradicted or not stated, and one or more the reader cannot decide (below); the
  sentence is supported or not as they turn out;
* **nothing to check**: the extractor found no claim in it (with why).

This is the question RAG faithfulness checks ask (MiniCheck, AlignScore, RAGAS faithfulness), and it is not
the open fact-check of :mod:`mermaid_verifier.graph`: the documents are given and trusted as given, and the only
question is whether they say what the text says. So no source credibility, cross-source consensus or topicality
discounts a passage here, no live source is asked and no memory is consulted; evidence comes only from the
documents, read as passages of one to a few sentences and windows of up to four around the best hits
(:mod:`mermaid_verifier.tools.passages`). In the text job's graph (:mod:`.job`)::

    extract ──(one Send per claim)──▶ ground ──▶ sentences
       │                                             ▲
       └────────────(no claim in the text)───────────┘

``extract``
    the text's claims (the backend's claim extractor) and the documents' passage index (built on the fly,
    kept by content);
``ground``
    where a claim is decided: the ``passages`` passages BM25 ranks highest for it, and windows of
    ``window_sentences`` sentences around the ``windows`` best of them, are read by the stance model at up to
    ``max_length`` tokens a pair, best first, until one settles the claim as supported (support outranks any
    contradiction, so what is ranked after it is left unread). The claim is **supported** when a passage reads
    P(supports) at or above ``threshold`` and holds the claim's numbers, dates and names (``coverage``: a
    reading of support from a passage without them is not support;
    :func:`mermaid_verifier.agents.slots.missing_values`). Unsupported,
    it is **contradicted** only when a passage reads P(refutes) at or above ``refute_threshold`` *and* speaks
    to the claim's slot: it is about the claim's subject and states a value of the claim's kind for the same
    relation (:func:`mermaid_verifier.agents.slots.speaks_to_slot`; a passage about the company's headcount
    does not contradict where it is listed). A reading of support from a passage that gives the claim's
    single-valued slot another name ("Its capital is Ottawa …" for "Toronto is the capital of Canada") is read as
    contradicting it, and one that gives the claimed name as another owner's slot ("… the capital city of the
    province of Ontario") as not stating it (``slot_conflicts``, :func:`bound_reading`). Otherwise it is **not
    stated**. Where the configuration names an
    ``undecided`` band (lo, hi) around ``threshold``, a claim whose best reading of support falls in it and that
    is not contradicted is **undecided**, with why: there the reader is right about as often as not (measured on
    WiCE and LFQA, ``bench/grounding.py``), so a label would be a guess; a passage must read ``hi`` to settle a
    claim as supported;
``sentences``
    each sentence of the text labelled from its claims, as above.

The reading settings live in ``data/grounding_config.json`` with how they were chosen (``bench/grounding.py``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources as package_files

from pydantic import ValidationError
from spacy.lang.en.stop_words import STOP_WORDS

from mermaid_verifier.agents.quantities import aligned
from mermaid_verifier.agents.slots import BoundSlot, ClaimReader, SlotReading, bound_sides
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import (
    DecidingSentence,
    ExtractedClaim,
    GivenDocument,
    GroundedClaim,
    GroundedSentence,
    GroundingPassage,
    GroundingResult,
    GroundingSummary,
    TextClaims,
)
from mermaid_verifier.reader.stance import StanceForUncheckedJudge, StanceModel
from mermaid_verifier.texts.events import GroundedEvent, GroundingEvent
from mermaid_verifier.texts.readers import DocumentsInput, Reader, made_by
from mermaid_verifier.tools.documents import file_span
from mermaid_verifier.tools.passages import DocumentPassage, PassageIndex, PassageIndexCache, passage_of

MAX_DOCUMENTS = 100
MAX_DOCUMENT_CHARS = 2_000_000
DEFAULT_CONCURRENCY = 2
SAME_READING = 0.02  # passages read within this of the best: the shortest is shown, with the tightest span


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
    slot_conflicts: bool = True  # a single-valued slot given another name is read as contradicting (bound_reading)
    undecided: tuple[float, float] | None = None  # (lo, hi): a best support in [lo, hi), not contradicted: undecided

    @property
    def settles(self) -> float:
        """The support a passage must read to settle a claim as supported (``hi`` where a band is set)."""
        return max(self.threshold, self.undecided[1]) if self.undecided else self.threshold

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
            slot_conflicts=bool(raw.get("slot_conflicts", True)),
            undecided=band(raw.get("undecided"), float(raw["threshold"])),
        )


def band(raw, threshold: float) -> tuple[float, float] | None:
    """The undecided band of a configuration (``[lo, hi]`` with lo ≤ threshold ≤ hi), or None."""
    if raw is None:
        return None
    lo, hi = (float(x) for x in raw)
    if not 0 <= lo <= threshold <= hi <= 1:
        raise UsageError(f"the grounding configuration's undecided band {raw} must hold its threshold {threshold}")
    return lo, hi


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
            try:
                out.append(GivenDocument.model_validate({"name": f"document {number}", **document}))
            except ValidationError as exc:  # one line that names the document and the field
                problem = exc.errors()[0]
                field = ".".join(str(part) for part in problem["loc"])
                raise UsageError(
                    f'document {number}: {field}: {problem["msg"].lower()} (a document is text, or {{"title", "text"}})'
                ) from None
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
    undecided: tuple[float, float] | None = None,
) -> GroundedClaim:
    """The claim's grounding from its passages' readings. **Supported** when a passage reads P(supports) at or
    above ``threshold`` and (given ``missing``) lacks none of the claim's numbers, dates and names;
    **contradicted** when, unsupported, a passage reads P(refutes) at or above ``refute_threshold`` (the
    threshold unless given) and (given ``speaks``) speaks to the claim's slot; else **not stated**. Given an
    ``undecided`` band (lo, hi): supported only at ``hi``, and **undecided** where not contradicted and the best
    support is in [lo, hi). Nothing else weighs in: the documents are given."""
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
    level = best.supports if supported else top
    if undecided is not None and status != "contradicted" and undecided[0] <= level < undecided[1]:
        status, supported, lacking = "undecided", False, []
        reason = (
            f"the best passage reads {level:.2f} for support, between {undecided[0]:.2f} and {undecided[1]:.2f},"
            " where the reader is right about as often as not: a label would be a guess"
        )
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
    the stance model, best first, up to the first that supports it (:func:`states_it`), then decided; the claim
    is parsed (its values and slot) only when a passage asks for it: a reading of support with coverage on, or a
    reading of refutation."""
    passages = await asyncio.to_thread(passages_for, index, claim, reading)
    claim_reader = functools.cache(lambda: ClaimReader.of(claim.text))
    gaps = functools.cache(lambda text, title: claim_reader().missing(text, title))  # the settling passage's
    missing = (lambda p: gaps(p.text, p.title)) if reading.coverage else None  # check is not made again
    bound = functools.cache(lambda text, title: claim_reader().bound(text, title) if reading.slot_conflicts else None)
    read: list[DocumentPassage] = []
    readings: list[dict[str, float]] = []
    for passage in passages:  # best first; the model reads one pair a run, so one at a time costs nothing more
        (probabilities,) = await stance.aprobabilities(  # numbers as quantities: the claim's rounding, unit, bound
            claim.text, [(passage.title, aligned(claim.text, passage.text))], max_length=reading.max_length
        )
        if probabilities.get("supports", 0.0) > probabilities.get("refutes", 0.0):
            probabilities = bound_reading(probabilities, await asyncio.to_thread(bound, passage.text, passage.title))
        read.append(passage)
        readings.append(probabilities)
        if await states_it(passage, probabilities, reading.settles, missing):
            break  # settled: the claim is supported, whatever the passages after it read

    def slot_of(text: str, title: str) -> SlotReading:
        binding = bound(text, title)
        if binding is not None and binding.value:  # another name in the claim's single-valued slot
            return SlotReading(about_subject=True, states_slot=True, reason=claim_reader().bound_reason(binding))
        return claim_reader().speaks(text, title)

    speaks = functools.cache(slot_of)
    decided = await asyncio.to_thread(
        decide_claim,
        number,
        claim,
        read,
        readings,
        reading.threshold,
        refute_threshold=reading.refute_threshold,
        missing=missing,
        speaks=lambda p: speaks(p.text, p.title),
        undecided=reading.undecided,
    )
    return await asyncio.to_thread(
        with_deciding_sentences,
        decided,
        index,
        read,
        lambda p: speaks(p.text, p.title),
        lambda p: gaps(p.text, p.title),  # which sentence holds the claim's values, coverage checked or not
    )


def bound_reading(probabilities: dict[str, float], bound: BoundSlot | None) -> dict[str, float]:
    """A reading of support from a passage that binds the claim's single-valued slot: to another name, it
    contradicts the claim (support and refutation trade places: "Its capital is Ottawa …" for "Toronto is the
    capital of Canada"); to the claimed name as another owner's slot, it does not state it (its support becomes
    neutral). See :func:`mermaid_verifier.agents.slots.bound_sides`."""
    supports, refutes = probabilities.get("supports", 0.0), probabilities.get("refutes", 0.0)
    now_supports, now_refutes = bound_sides(supports, refutes, bound)
    if (now_supports, now_refutes) == (supports, refutes):
        return probabilities
    neutral = probabilities.get("neutral", 0.0) + ((supports - now_supports) - (now_refutes - refutes))  # swapped: + 0
    return {**probabilities, "supports": now_supports, "refutes": now_refutes, "neutral": neutral}


def with_deciding_sentences(
    decided: GroundedClaim,
    index: PassageIndex,
    read: list[DocumentPassage],
    speaks: Callable[[DocumentPassage], SlotReading],
    missing: Callable[[DocumentPassage], list[str]],
) -> GroundedClaim:
    """``decided`` with the sentence(s) of its passage that decide it, each with its own span, and a contradiction's
    reason from that sentence alone. In a passage of several sentences: supported -- the sentence that holds all the
    claim's numbers, dates and names and shares most words with it (all of them where none does alone: they state
    it together); contradicted -- the first that speaks to the claim's subject and slot (all of them where none
    does alone); not stated -- the one that shares most words with it. No sentence is read by the model again."""
    shown = decided.passage
    if shown is None:
        return decided
    source = next((p for p in read if (p.document, p.start, p.end) == (shown.document, shown.start, shown.end)), None)
    if source is None:
        return decided
    spans = index.spans[source.document]
    document = index.documents[source.document]
    singles = [
        passage_of(source.document, document, spans, i, i + 1)
        for i in range(source.first_sentence, source.first_sentence + source.sentences)
    ]
    words = _content_words(decided.claim.text) - _content_words(document.title)  # what it says, not its subject

    def overlap(p: DocumentPassage) -> int:
        return len(words & _content_words(p.text))

    chosen, reason = singles, decided.reason
    if len(singles) > 1:
        if decided.status == "contradicted":
            for sentence in singles:
                slot = speaks(sentence)
                if slot.states_slot:
                    chosen, reason = [sentence], slot.reason
                    break
        elif decided.status == "supported":
            holding = [p for p in singles if not missing(p)]
            if holding:
                chosen = [max(holding, key=lambda p: (overlap(p), -p.start))]
        else:
            chosen = [min(singles, key=lambda p: (len(missing(p)), -overlap(p), p.start))]
    deciding = [
        DecidingSentence(text=document.text[p.start : p.end], start=p.start, end=p.end) for p in chosen
    ]  # the document's own characters, as the span points at them
    return decided.model_copy(update={"deciding": deciding, "reason": reason})


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W_]+", text.casefold()) if len(w) > 2 and w not in STOP_WORDS}


async def states_it(
    passage: DocumentPassage,
    probabilities: dict[str, float],
    threshold: float,
    missing: Callable[[DocumentPassage], list[str]] | None,
) -> bool:
    """Whether this passage alone makes the claim supported, as :func:`decide_claim` decides it: support at the
    threshold, lacking none of the claim's values where coverage is checked. Support outranks any contradiction,
    so the passages ranked after it are not read: the claim's status is the same, its support and passage are
    the first that settle it (on LFQA answers, two thirds of the reads a claim used to take)."""
    if round(probabilities.get("supports", 0.0), 4) < threshold:
        return False
    return missing is None or not await asyncio.to_thread(missing, passage)


def sentence_label(items: list[GroundedClaim]) -> str:
    """A sentence's label from its claims (see the module's docstring)."""
    statuses = {c.status for c in items}
    if statuses == {"supported"}:
        return "supported"
    if "contradicted" in statuses:
        return "contradicted"
    if "not stated" in statuses:  # decided: not wholly supported, whatever an undecided claim turns out to be
        return "partially supported" if "supported" in statuses else "not stated"
    return "undecided"


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
        decider = contradicted[0] if contradicted else max(supported or items, key=lambda c: c.support)
        shown = decider.passage
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
                undecided=[c.claim.text for c in items if c.status == "undecided"],
                passage=shown,
                deciding=decider.deciding,
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


def grounding_stance(stance: StanceModel) -> StanceModel:
    """The stance model grounding reads with: the pipeline's, unless that one may run unchecked (the LLM judge
    deciding alone), as grounding rests on its readings and must refuse where it cannot be trusted."""
    if isinstance(stance, StanceForUncheckedJudge):
        return StanceModel(stance.model_dir)
    return stance


class GivenDocuments(Reader[GroundedClaim, GroundingResult]):
    """Each claim read against the documents given with the text: the stance model, the reading settings
    (``data/grounding_config.json`` unless given) and the documents' passage indexes, kept by content for the
    texts that come with the same documents."""

    name = "mermaid-verifier-grounding"
    step = "ground"
    finish = "sentences"
    concurrency = DEFAULT_CONCURRENCY
    input_schema = DocumentsInput
    claim_event = GroundedEvent
    done_event = GroundingEvent

    def __init__(
        self, stance: StanceModel, config: GroundingConfig | None = None, indexes: PassageIndexCache | None = None
    ) -> None:
        self.stance = stance
        self.config = config or GroundingConfig.bundled()
        self.indexes = indexes or PassageIndexCache()

    def inputs(self, text: str, documents: Sequence | None) -> dict:
        if not text.strip():
            raise UsageError("the text to check is empty")
        return {"text": text, "documents": as_documents(documents or [])}

    def given(self, state: dict) -> dict:
        return {"documents": as_documents(state["documents"])}  # as JSON from a LangGraph server, or as records

    async def prepare(self, given: dict) -> None:
        await asyncio.to_thread(self.indexes.get, given["documents"], self.config.sizes)

    async def read(self, index: int, claim: ExtractedClaim, documents: list[GivenDocument]) -> GroundedClaim:
        passages = await asyncio.to_thread(self.indexes.get, documents, self.config.sizes)
        return in_files(await read_claim(passages, self.stance, self.config, index, claim), documents)

    def result(self, state: dict, extraction: TextClaims, items: list[GroundedClaim]) -> GroundingResult:
        labelled = sentences_of(extraction, items)
        documents: list[GivenDocument] = state["documents"]  # as given() made them
        return GroundingResult(
            text=state["text"],
            documents=[d.name for d in documents],
            sentences=labelled,
            claims=items,
            summary=GroundingSummary.of(labelled, items),
            threshold=self.config.threshold,
            undecided_band=self.config.undecided,
            **made_by(extraction),
            spans={d.name: "file" for d in documents if d.file_offsets}
            | {d.name: "extracted text" for d in documents if d.extracted},
            extracted_texts={d.name: d.text for d in documents if d.extracted},
        )


def in_files(item: GroundedClaim, documents: list[GivenDocument]) -> GroundedClaim:
    """The claim with its passage's and deciding sentences' spans moved into the file their document was read out
    of, where it was read out of markup (``GivenDocument.file_offsets``); unchanged otherwise."""
    passage = item.passage
    offsets = None if passage is None else documents[passage.document].file_offsets
    if passage is None or not offsets:
        return item
    start, end = file_span(offsets, passage.start, passage.end)
    deciding = []
    for sentence in item.deciding:
        sentence_start, sentence_end = file_span(offsets, sentence.start, sentence.end)
        deciding.append(sentence.model_copy(update={"start": sentence_start, "end": sentence_end}))
    return item.model_copy(
        update={"passage": passage.model_copy(update={"start": start, "end": end}), "deciding": deciding}
    )
