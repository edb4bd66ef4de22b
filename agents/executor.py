"""The offline executor: a deterministic ReAct policy over the MCP tools (at most ``max_steps`` steps).

Thought → action → observation, where the plan comes from the claim's decomposition:

1. search the whole claim (BM25 over title + sentence is the strongest single query);
2. open the subject's page (skipped when memory already holds evidence titled with it);
3. for the first two triplets: search subject + object, the pair the claim relates, and open the
   object's page when the object is a named entity;
4. search the keywords;
5. search each object on its own.

A page lookup that finds no page of that title but pages of that name ("House" -> "House (TV
series)") is followed at once by reading the one the claim's words point to.

After every observation the passages it returned are scored by the stance model; the run stops as soon
as one of them is decisive (P(supports) or P(refutes), times its topicality, ≥ ``stop_threshold``). A
tool failure is an observation like any other: the policy notes it and moves on to the next action.

Remembered evidence (recalled by the claim's entities) joins the evidence before the first step, but
never changes the plan or the budget: asking again must not change the answer when nothing new was
found, so a claim asked twice takes the same steps and gathers the same evidence. What memory saves is
the tool calls: it remembers the lookups themselves (``EvidenceMemory.recall_lookup``), and a planned call
already made to the same source within its TTL is not made again; its remembered answer is the step's
observation ("answered from memory"; passages come back as ``from_memory`` evidence, a lookup that found
nothing as a known negative) and counts as a memory hit, not a tool call.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mermaid_verifier.models import (
    Decomposition,
    Evidence,
    SourceKind,
    Stance,
    Stats,
    TraceStep,
)
from mermaid_verifier.names import disambiguator
from mermaid_verifier.reader.stance import StanceModel
from mermaid_verifier.source_registry import CORPUS_SERVER, LIVE, SOURCES
from mermaid_verifier.tools.toolbox import Toolbox, ToolOutcome
from mermaid_verifier.weighing.scoring import ReliabilityConfig
from mermaid_verifier.weighing.topicality import Topicality

PAGE_PASSAGES = 10
MAX_EVIDENCE = 30
MIN_NAME_CHARS = 3  # shorter "names" are not followed to pages of that name


@dataclass(frozen=True)
class PlannedAction:
    thought: str
    tool: str
    arguments: dict
    server: str = CORPUS_SERVER


@dataclass
class ExecutionResult:
    evidence: list[Evidence]
    trace: list[TraceStep]
    stats: Stats = field(default_factory=Stats)
    failure: str | None = None  # the LLM endpoint failure that ended an LLM executor's search


def _without_article(text: str) -> str:
    return re.sub(r"^(the|a|an)\s+", "", text.strip(), flags=re.IGNORECASE)


def _is_named(text: str, decomposition: Decomposition) -> bool:
    """Whether ``text`` names something that may have a page of its own."""
    bare = _without_article(text)
    return bool(bare) and (bare in decomposition.entities or bare[:1].isupper() or bare[:1].isdigit())


def plan_actions(
    claim: str,
    decomposition: Decomposition,
    search_k: int,
    deeper: bool = False,
    available: dict[str, set[str]] | None = None,
) -> list[PlannedAction]:
    """The ordered tool calls for this claim, duplicates removed; the caller keeps the first N.
    ``deeper`` appends wider searches for a second round (asked for by a reviewer). ``available``
    maps each running server to its tools (default: the local corpus only); live sources are
    consulted right after the first local search: the subject's Wikipedia page, then arXiv and
    PubMed searches of the whole claim."""
    triplets = decomposition.triplets[:2]
    subject = triplets[0].subject if triplets else (decomposition.entities[0] if decomposition.entities else "")
    plan = [PlannedAction("Search the whole claim first.", "search", {"query": claim, "k": search_k})]
    if subject:
        plan.append(
            PlannedAction(
                f"Read the page about the subject, {subject!r}.",
                "get_page",
                {"title": _without_article(subject), "max_passages": PAGE_PASSAGES},
            )
        )
    for triplet in triplets:
        plan.append(
            PlannedAction(
                f"Search for {triplet.subject!r} together with {triplet.object!r}.",
                "search",
                {"query": f"{triplet.subject} {triplet.object}", "k": search_k},
            )
        )
        if _is_named(triplet.object, decomposition):
            plan.append(
                PlannedAction(
                    f"Read the page about the object, {triplet.object!r}.",
                    "get_page",
                    {"title": _without_article(triplet.object), "max_passages": PAGE_PASSAGES},
                )
            )
    if decomposition.keywords:
        plan.append(
            PlannedAction(
                "Search the claim's keywords.", "search", {"query": " ".join(decomposition.keywords), "k": search_k}
            )
        )
    for triplet in triplets:
        plan.append(
            PlannedAction(
                f"Search the object {triplet.object!r} on its own.", "search", {"query": triplet.object, "k": search_k}
            )
        )
    if deeper:
        plan.append(
            PlannedAction(
                "Search the whole claim again, further down the ranking.",
                "search",
                {"query": claim, "k": min(search_k * 4, 50)},
            )
        )
        for triplet in triplets:
            plan.append(
                PlannedAction(
                    f"Search the subject {triplet.subject!r} on its own.",
                    "search",
                    {"query": triplet.subject, "k": min(search_k * 2, 50)},
                )
            )
    live = []
    for source in LIVE:  # each live source's first action (mermaid_verifier.source_registry), in its order
        first = source.first_action
        if first is None:
            continue
        if first.asks == "subject_page" and subject:
            arguments = {"title": _without_article(subject), "max_sentences": 20}
            live.append(PlannedAction(first.thought.format(subject=subject), first.tool, arguments, source.server))
        elif first.asks == "claim_search":
            live.append(PlannedAction(first.thought, first.tool, {"query": claim, "k": search_k}, source.server))
    plan = plan[:1] + live + plan[1:]
    available = available if available is not None else {CORPUS_SERVER: {"search", "get_page"}}
    plan = [a for a in plan if a.tool in available.get(a.server, set())]
    unique, seen = [], set()
    for action in plan:
        key = _action_key(action.server, action.tool, action.arguments)
        if key not in seen:
            seen.add(key)
            unique.append(action)
    return unique


# What kind of source each tool server is (mermaid_verifier.source_registry); unknown servers count as a local corpus.
SOURCE_KINDS = {source.server: source.kind for source in SOURCES}


def evidence_from_outcome(outcome: ToolOutcome, retrieved_at: float) -> list[Evidence]:
    """Turn a search / get_page result into evidence records."""
    passages = (outcome.data or {}).get("passages", []) if outcome.ok else []
    return [
        Evidence(
            id=p["id"],
            source=outcome.server,
            source_kind=SOURCE_KINDS.get(outcome.server, SourceKind.LOCAL_CORPUS),
            retrieved_at=retrieved_at,
            published_at=p.get("published_at"),
            corpus=p.get("corpus"),
            origin=outcome.origin,
            title=p["title"],
            text=p["text"],
            page=p.get("page"),
            line=p.get("line"),
            url=p.get("url"),
            retrieval_score=p.get("score"),
        )
        for p in passages
    ]


def remembered_observation(record, outcome: ToolOutcome, new_items: list[Evidence]) -> str:
    """The observation of a step answered by a remembered lookup (``LookupRecord``)."""
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(record.looked_up_at))
    answer = f"found nothing ({observation(outcome, [])})" if record.found_nothing else observation(outcome, new_items)
    return f"answered from memory: {record.describe()} was looked up on {when} UTC ({record.source}); {answer}"


def observation(outcome: ToolOutcome, new_items: list[Evidence]) -> str:
    if not outcome.ok:
        return f"error: {outcome.text}"
    message = (outcome.data or {}).get("message")
    if not new_items:
        return message or "no new passages"
    titles = ", ".join(dict.fromkeys(e.title for e in new_items))
    return f"{len(new_items)} new passage(s) from: {titles}" + (f" ({message})" if message else "")


def _disambiguator_words(title: str) -> set[str]:
    return set(re.findall(r"\w+", disambiguator(title).casefold()))


def page_of_that_name(action: PlannedAction, outcome: ToolOutcome, claim: str) -> PlannedAction | None:
    """When ``get_page`` found no page of that title but pages of that name ("House" -> "House (TV
    series)", "Gifted" -> "The Gifted (TV series)"), the next step reads the one whose disambiguator
    shares most words with the claim ("Daag (1973 film)" for "Daag is a film"; the shortest title on a tie)."""
    data = outcome.data or {}
    if action.tool != "get_page" or not outcome.ok or data.get("passages") or not data.get("same_name"):
        return None
    if len(str(action.arguments.get("title", ""))) < MIN_NAME_CHARS:
        return None  # "I", "It": a pronoun the parser took for a name, not a page to hunt for
    claim_words = set(re.findall(r"\w+", claim.casefold()))
    candidates = sorted(data["same_name"], key=len)  # max() keeps the first of equals: the shortest
    choice = max(candidates, key=lambda title: len(_disambiguator_words(title) & claim_words))
    return PlannedAction(
        f"There is no page {action.arguments.get('title')!r}; read {choice!r}, the page of that name.",
        action.tool,
        {**action.arguments, "title": choice},
        action.server,
    )


def _action_key(server: str, tool: str, arguments: dict) -> tuple:
    """Two planned actions with this key are the same call (arguments compared case-blind)."""
    return server, tool, tuple(sorted((k, str(v).casefold()) for k, v in arguments.items()))


def _step_key(action: str, arguments: dict) -> tuple[str, str]:
    """A call already in the trace (``server.tool`` and its exact arguments)."""
    return action, repr(sorted(arguments.items()))


def leaning(item: Evidence) -> float:
    """How strongly the item takes a side: the larger of P(supports) and P(refutes) (0 if unscored)."""
    probabilities = item.stance_probabilities or {}
    return max(probabilities.get(Stance.SUPPORTS.value, 0.0), probabilities.get(Stance.REFUTES.value, 0.0))


def _decisive(items: list[Evidence], threshold: float, topical: list[float]) -> list[bool]:
    """Per item: does it take a side at ``threshold`` once its topicality is counted (a decisive-looking
    sentence about someone else must not end the search)?"""
    return [bool(e.stance_probabilities) and leaning(e) * weight >= threshold for e, weight in zip(items, topical)]


class OfflineExecutor:
    def __init__(
        self,
        toolbox: Toolbox,
        stance: StanceModel,
        *,
        max_steps: int = 5,
        search_k: int = 5,
        stop_threshold: float = 0.9,
        reliability: ReliabilityConfig | None = None,
        clock: Callable[[], float] = time.time,
        topicality: Topicality | None = None,
        lookups=None,
    ):
        self.toolbox = toolbox
        self.lookups = lookups  # an EvidenceMemory: remembered lookups are answered from it (None: never)
        self.stance = stance
        self.max_steps = max_steps
        self.search_k = search_k
        self.stop_threshold = stop_threshold
        self.reliability = reliability or ReliabilityConfig()
        self.clock = clock
        self.topicality = topicality or Topicality()

    def _source(self, server: str) -> str | None:
        return (getattr(self.toolbox, "sources", None) or {}).get(server)

    async def call_or_recall(self, action: PlannedAction) -> tuple[ToolOutcome, Any]:
        """The action's outcome and, when it was answered from memory, the remembered lookup
        (the LLM executor's tool calls go through here too)."""
        if self.lookups is not None:
            record = await self.lookups.recall_lookup(
                action.server, action.tool, action.arguments, self._source(action.server)
            )
            if record is not None:
                return ToolOutcome(
                    server=record.server,
                    tool=record.tool,
                    ok=True,
                    text=json.dumps(record.result),
                    data=record.result,
                    origin=record.source,
                ), record
        outcome = await self.toolbox.call(action.server, action.tool, action.arguments)
        if self.lookups is not None and outcome.ok:  # a failure (timeout, missing tool) is not worth remembering
            await self.lookups.remember_lookup(
                action.server, action.tool, action.arguments, self._source(action.server), outcome.data
            )
        return outcome, None

    async def _score(self, claim: str, items: list[Evidence]) -> list[Evidence]:
        probabilities = await self.stance.aprobabilities(claim, [(e.title, e.text) for e in items])
        return [e.model_copy(update={"stance_probabilities": p or None}) for e, p in zip(items, probabilities)]

    async def _score_countable(self, claim: str, new_items: list[Evidence], weights: list[float]) -> list[Evidence]:
        """The new items, those the judge can count read by the stance model: an item whose topicality weight
        (``weights``, one per new item) is 0 names nothing the claim names while another item does, or is planted
        text; it is never counted, and a weight only falls as items are added, so it is left unread
        (``stance_probabilities`` None)."""
        if not new_items:
            return []
        scored = iter(await self._score(claim, [e for e, w in zip(new_items, weights) if w > 0]))
        return [next(scored) if w > 0 else e for e, w in zip(new_items, weights)]

    async def _start(self, claim: str, entities: list[str], remembered: list[Evidence]) -> ExecutionResult:
        """The result before any search: the remembered evidence, scored (the budget stays whole)."""
        result = ExecutionResult(evidence=await self._score(claim, remembered), trace=[])
        result.stats.memory_hits = len(remembered)
        if remembered:
            result.trace.append(
                TraceStep(
                    step=0,
                    thought="Check what the evidence memory already holds about the claim's entities.",
                    action="memory.recall",
                    action_input={"entities": entities},
                    observation=f"{len(remembered)} remembered item(s), weighed with what the search finds",
                    new_evidence=len(remembered),
                )
            )
        return result

    async def run(
        self,
        claim: str,
        decomposition: Decomposition,
        remembered: list[Evidence],
        previous: ExecutionResult | None = None,
    ) -> ExecutionResult:
        """Search until decisive evidence or ``max_steps`` tool calls. With ``previous`` (a reviewer
        asked for more), continue its trace with a fresh budget and the actions it has not taken."""
        start = getattr(self.toolbox, "start", None)
        if start is not None:
            await start()  # the plan depends on which servers and tools are up
        if previous is None:
            result = await self._start(claim, decomposition.entities, remembered)
        else:
            result = ExecutionResult(
                evidence=list(previous.evidence), trace=list(previous.trace), stats=previous.stats.model_copy(deep=True)
            )
        taken = {_step_key(step.action, step.action_input) for step in result.trace}
        seen_ids = {e.id for e in result.evidence}
        available = {server: set(tools) for server, tools in getattr(self.toolbox, "tools", {}).items()} or None
        plan = [
            a
            for a in plan_actions(claim, decomposition, self.search_k, deeper=previous is not None, available=available)
            if _step_key(f"{a.server}.{a.tool}", a.arguments) not in taken
        ]
        first_step = max((step.step for step in result.trace), default=0) + 1
        queue = plan[:]
        for number in range(first_step, first_step + self.max_steps):
            if not queue:
                break
            action = queue.pop(0)
            outcome, remembered_lookup = await self.call_or_recall(action)
            name = f"{action.server}.{action.tool}"
            taken.add(_step_key(name, action.arguments))
            if remembered_lookup is None:
                result.stats.tool_calls += 1
                result.stats.tool_calls_by_tool[name] = result.stats.tool_calls_by_tool.get(name, 0) + 1
                found = evidence_from_outcome(outcome, self.clock())
            else:
                result.stats.memory_hits += 1
                found = [
                    e.model_copy(update={"from_memory": True})
                    for e in evidence_from_outcome(outcome, remembered_lookup.looked_up_at)
                ]
            new_items = [e for e in found if e.id not in seen_ids]
            new_ids = {e.id for e in new_items}
            seen_ids.update(new_ids)
            new_items = new_items[: max(MAX_EVIDENCE - len(result.evidence), 0)]  # the rest would be dropped unread
            # topicality reads names and text, never stances: the weights found before reading hold after it
            topical = self.topicality.weights(result.evidence + new_items, claim, decomposition.entities)
            new_items = await self._score_countable(claim, new_items, topical[len(result.evidence) :])
            result.evidence = result.evidence + new_items
            seen = (
                observation(outcome, new_items)
                if remembered_lookup is None
                else remembered_observation(remembered_lookup, outcome, new_items)
            )
            result.trace.append(
                TraceStep(
                    step=number,
                    thought=action.thought,
                    action=name,
                    action_input=action.arguments,
                    observation=seen,
                    new_evidence=len(new_items),
                )
            )
            decisive = _decisive(result.evidence, self.stop_threshold, topical)
            returned = {e.id for e in found}  # remembered or new: what this step found decides, as it did before
            if any(d for e, d in zip(result.evidence, decisive) if e.id in returned):
                result.trace[-1].observation += "; decisive evidence found, stopping"
                break
            follow = page_of_that_name(action, outcome, claim)
            if follow is not None and _step_key(f"{follow.server}.{follow.tool}", follow.arguments) not in taken:
                key = _action_key(follow.server, follow.tool, follow.arguments)
                queue = [follow] + [a for a in queue if _action_key(a.server, a.tool, a.arguments) != key]
        return result
