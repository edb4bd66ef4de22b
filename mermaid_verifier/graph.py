"""The verification graph: decompose → recall → search → judge → explain → remember.

A newcomer reads a claim's route here, in the edges: which search and which judge it gets, when the
cascade escalates to the LLM path, and where an LLM failure falls back. The nodes call the agents
(``mermaid_verifier.wiring``); the verdict itself is decided in ``agents/judge.py``.

Routes, by backend (``MERMAID_BACKEND``)::

    offline   decompose → recall → search → judge → explain → remember
    llm       decompose → recall → search_llm → judge_llm → explain → remember
    cascade   decompose → recall → search → judge ─(confident)→ explain → remember
                                                  └(abstained)→ escalate → search_llm → judge_llm
                                                                → keep_offline_label → explain → remember

An LLM endpoint failure during ``search_llm`` or ``judge_llm`` goes to ``fall_back``: the stance model's
reading of the evidence gathered so far, as an abstention that names the failure (then, in the cascade,
``keep_offline_label``). A claim that states nothing to check (check's rule: an opinion, a question, the speaker's own view), cannot be
decomposed, or names nothing abstains at once. With
``review=True`` an abstained verdict pauses at ``review`` before ``remember``.

``build_graph()`` returns the compiled graph; add it as a node of your own LangGraph app, or use
``open_verifier()`` to own its resources (tool-server sessions, memory) for the length of a block::

    async with open_verifier(Settings.from_env(corpora=(Path("wiki.jsonl"),))) as verifier:
        output = await verifier.ainvoke({"claim": "Stanley Kubrick directed 2001: A Space Odyssey."})
        output["verdict"].label
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from mermaid_verifier.agents.decomposer import names_something
from mermaid_verifier.agents.executor import ExecutionResult
from mermaid_verifier.agents.judge import (
    abstention_names_nothing,
    abstention_not_checkworthy,
    abstention_without_decomposition,
    annotate,
    assess,
)
from mermaid_verifier.agents.model_calls import add_usage, usage_scope
from mermaid_verifier.agents.reconcile import abstain_after_llm_failure, cascade_verdict
from mermaid_verifier.agents.roles import ClaimExtractor
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import LLMOutputError, LLMServiceError
from mermaid_verifier.models import Decomposition, Stance, Stats, TraceStep, Verdict
from mermaid_verifier.review import ReviewDecision, ReviewRequest, apply_review
from mermaid_verifier.state import VerifierState, VerifyInput, VerifyOutput
from mermaid_verifier.tools.sources import corpora_ready
from mermaid_verifier.wiring import Agents, Overrides, Resources, judge_config_for, wire_agents

__all__ = [
    "Overrides",
    "Resources",
    "build_graph",
    "judge_config_for",
    "make_graph",
    "open_verifier",
    "wire_agents",
]

REMEMBER_MIN_SCORE = 0.5  # only evidence that bore on a verdict is worth keeping


# ----------------------------------------------------------------------------- the nodes


async def decompose(state: VerifierState, agents: Agents, *, unsearched: str) -> Command:
    """Claim -> triplets, keywords, entities; a claim that states nothing to check (an opinion, a question: check's
    rule), cannot be decomposed, or names nothing abstains at once and goes to ``unsearched`` (remember, or
    review): nothing is searched."""
    started_at = time.time()
    why = await agents.check_worthiness.awhy_not(state["claim"])
    if why is not None:
        update = _unsearched(state, Decomposition(), abstention_not_checkworthy(why), why)
        return Command(goto=unsearched, update=update | {"stats": Stats(), "started_at": started_at})
    with usage_scope() as usage:
        try:
            decomposition = await agents.decomposer.adecompose(state["claim"])
        except (LLMOutputError, LLMServiceError) as exc:  # no decomposition: abstain and say why
            stats = add_usage(Stats(backend="llm"), usage, agents.pricing)
            update = _unsearched(state, Decomposition(), abstention_without_decomposition(str(exc)), str(exc))
            if isinstance(exc, LLMServiceError):
                update["llm_failure"] = str(exc)
            return Command(goto=unsearched, update=update | {"stats": stats, "started_at": started_at})
    stats = add_usage(Stats(), usage, agents.pricing)
    if not names_something(decomposition):  # "claim one": whatever a search returns, nothing is about it
        update = _unsearched(
            state, decomposition, abstention_names_nothing(), "no named entity and no subject to look up"
        )
        return Command(goto=unsearched, update=update | {"stats": stats, "started_at": started_at})
    return Command(goto="recall", update={"decomposition": decomposition, "started_at": started_at, "stats": stats})


def _unsearched(state: VerifierState, decomposition: Decomposition, verdict: Verdict, observation: str) -> dict:
    """The state of a claim that abstains before any search, with the decompose step that explains it."""
    step = TraceStep(
        step=0,
        thought="Split the claim into facts to check.",
        action="decompose",
        action_input={"claim": state["claim"]},
        observation=observation,
    )
    return {"decomposition": decomposition, "verdict": verdict, "evidence": [], "trace": [step]}


async def recall(state: VerifierState, agents: Agents) -> dict:
    """Remembered evidence about the claim's entities, from the corpora and sources this run uses."""
    resources = agents.resources
    if resources.memory is None:
        return {"remembered": []}
    origins = {source for source in resources.toolbox.sources.values() if source}
    recalled = await resources.memory.recall(_memory_keys(state), state["claim"], origins=origins)
    return {"remembered": recalled.items}


async def _search(state: VerifierState, agents: Agents, executor) -> dict:
    """One executor's search (≤ max_steps tool-using steps); continues the evidence and trace in the state
    when the cascade escalated or a reviewer asked for more."""
    previous = None
    if state.get("continue_search"):
        previous = ExecutionResult(evidence=state["evidence"], trace=state["trace"], stats=state["stats"])
    result = await executor.run(state["claim"], state["decomposition"], state.get("remembered", []), previous=previous)
    stats = result.stats
    if previous is None and state.get("stats") is not None:  # count the decomposer's LLM calls too
        stats = add_usage(stats, state["stats"], agents.pricing)
    update = {"evidence": result.evidence, "trace": result.trace, "stats": stats, "continue_search": False}
    if result.failure is not None:
        update["llm_failure"] = result.failure
    return update


async def search(state: VerifierState, agents: Agents) -> dict:
    """The offline executor: corpus and source searches, every passage scored by the stance model."""
    return await _search(state, agents, agents.offline_executor)


async def search_llm(state: VerifierState, agents: Agents) -> dict:
    """The LLM executor: a chat model's ReAct loop over the MCP tools. An endpoint failure ends the search,
    not the claim: ``llm_failure`` says what failed and the evidence gathered so far stays."""
    return await _search(state, agents, agents.llm_executor)


def _assessed(state: VerifierState, agents: Agents) -> list:
    resources = agents.resources
    return assess(
        state["evidence"],
        resources.reliability_config,
        agents.judge_config,
        state["claim"],
        state["decomposition"].entities,
        resources.clock(),
    )


async def judge(state: VerifierState, agents: Agents) -> dict:
    """The offline judge: trust and topicality of each item, then the verdict (agents/judge.py decides)."""
    assessed = _assessed(state, agents)
    verdict = await agents.offline_judge.judge(state["claim"], assessed, state["decomposition"].entities)
    return {"verdict": verdict, "assessed": assessed}


async def judge_llm(state: VerifierState, agents: Agents, *, then: str) -> Command:
    """The LLM judge on the same assessed evidence; an endpoint failure goes to ``fall_back``."""
    assert agents.llm_judge is not None  # the node exists only in graphs wired with an LLM backend
    assessed = _assessed(state, agents)
    with usage_scope() as usage:
        try:
            verdict = await agents.llm_judge.judge(state["claim"], assessed, state["decomposition"].entities)
        except LLMServiceError as exc:
            failed = {"assessed": assessed, "llm_failure": str(exc)}
            return Command(
                goto="fall_back", update=failed | {"stats": add_usage(state["stats"], usage, agents.pricing)}
            )
    stats = add_usage(state["stats"], usage, agents.pricing)
    return Command(goto=then, update={"verdict": verdict, "assessed": assessed, "stats": stats})


async def fall_back(state: VerifierState, agents: Agents) -> dict:
    """After an LLM endpoint failure: the stance model's reading of the evidence gathered, abstained,
    naming the failure."""
    assessed = state.get("assessed") or _assessed(state, agents)
    reading = await agents.offline_judge.judge(state["claim"], assessed, state["decomposition"].entities)
    failure = state.get("llm_failure") or "no reason given"
    return {"verdict": abstain_after_llm_failure(reading, failure), "assessed": assessed}


def escalate(state: VerifierState) -> dict:
    """Cascade: the offline verdict abstained; keep it in the state and hand the claim to the LLM path,
    whose search continues the offline evidence and trace with its own step budget."""
    verdict = state["verdict"]
    step = TraceStep(
        step=max((s.step for s in state["trace"]), default=0) + 1,
        thought="The offline verdict is not confident enough: hand the claim to the LLM executor and judge.",
        action="cascade.escalate",
        action_input={"offline_label": verdict.label.value, "offline_confidence": verdict.confidence},
        observation=f"offline verdict {verdict.label.value} at {verdict.confidence:.2f} abstained",
    )
    return {"offline_verdict": verdict, "trace": [*state["trace"], step], "continue_search": True}


def keep_offline_label(state: VerifierState) -> dict:
    """Cascade: the LLM path may confirm the escalated offline label, never overturn it (reconcile.cascade_verdict)."""
    offline = state["offline_verdict"]
    return {"verdict": cascade_verdict(state["verdict"], offline.label, offline.confidence)}


def explain(state: VerifierState, agents: Agents) -> dict:
    """Rank the evidence and label each item with its stance as the final verdict used it."""
    ranked = annotate(
        state["assessed"],
        agents.judge_config,
        state["claim"],
        state["decomposition"].entities,
        state["verdict"],
    )
    return {"evidence": ranked}


async def ask_reviewer(state: VerifierState, *, backend: str) -> Command:
    """Pause an abstained verdict for a person (LangGraph ``interrupt``); act on their decision. "Search
    more" continues the path that searched last (in the cascade, the LLM path once the claim escalated)."""
    verdict = state["verdict"]
    if not verdict.abstained:
        return Command(goto="remember")
    request = ReviewRequest(
        claim=state["claim"], verdict=verdict, evidence=state["evidence"][:5], searches_so_far=len(state["trace"])
    )
    decision = ReviewDecision.model_validate(interrupt(request.model_dump(mode="json")))
    if decision.action == "search_more":
        on_llm_path = backend == "llm" or (backend == "cascade" and state.get("offline_verdict") is not None)
        return Command(goto="search_llm" if on_llm_path else "search", update={"continue_search": True})
    return Command(goto="remember", update={"verdict": apply_review(verdict, decision)})


async def remember(state: VerifierState, agents: Agents) -> dict:
    """Keep the evidence that bore on the verdict; stamp the claim's wall time."""
    memory = agents.resources.memory
    if memory is not None:
        # items from memory are kept only when new to it (a remembered lookup's passage that now bears
        # on a verdict); remember() gives stored ones no "seen-again" check
        worth_keeping = [
            e for e in state["evidence"] if (e.score or 0) >= REMEMBER_MIN_SCORE and e.stance != Stance.NEUTRAL
        ]
        await memory.remember(_memory_keys(state), worth_keeping, gathered=state["evidence"])
    stats = state["stats"].model_copy(
        update={
            "seconds": round(time.time() - state["started_at"], 3),
            "stance_unavailable": agents.resources.stance_problem,
        }
    )
    return {"stats": stats}


# ----------------------------------------------------------------------------- the routes


def _after_offline_judge(state: VerifierState) -> str:
    return "escalate" if state["verdict"].abstained else "explain"


def _after_llm_search(state: VerifierState) -> str:
    return "fall_back" if state.get("llm_failure") else "judge_llm"


def build_graph(resources: Resources | None = None, *, review: bool = False, checkpointer=None) -> CompiledStateGraph:
    """The compiled verification graph for the resources' backend (offline, llm or cascade), its agents wired by
    :func:`~mermaid_verifier.wiring.wire_agents` (the ones given to ``Resources.create`` in its ``Overrides``
    kept). Without ``resources``, settings come from the environment and the tool servers start on first use.

    With ``review=True`` an abstained verdict pauses the graph (LangGraph ``interrupt``) with a
    :class:`ReviewRequest`; resume it with ``Command(resume=ReviewDecision(...).model_dump())``.
    Pausing needs a ``checkpointer`` (and a ``thread_id`` in the run's config)."""
    if resources is not None:
        return compile_graph(wire_agents(resources), review=review, checkpointer=checkpointer)
    resources = Resources.create()
    try:  # wiring reads the judge files and loads the parser: resources made here are closed if it fails
        agents = wire_agents(resources)
    except BaseException:
        if resources.owned_store is not None:
            resources.owned_store.close()
        raise
    return compile_graph(agents, review=review, checkpointer=checkpointer)


def compile_graph(agents: Agents, *, review: bool = False, checkpointer=None) -> CompiledStateGraph:
    """The graph over wired agents. The nodes are the module-level functions above, each given the graph's
    :class:`Agents` (bound here, not passed at invoke time: the graph also runs as a node of a host app, whose
    runtime context is its own)."""
    resources = agents.resources
    backend = resources.backend
    finish = "review" if review else "remember"
    graph = StateGraph(VerifierState, input_schema=VerifyInput, output_schema=VerifyOutput)
    graph.add_node("decompose", partial(decompose, agents=agents, unsearched=finish), destinations=("recall", finish))
    graph.add_node("recall", partial(recall, agents=agents))
    graph.add_node("explain", partial(explain, agents=agents))
    graph.add_node("remember", partial(remember, agents=agents))
    graph.add_edge(START, "decompose")
    if backend in ("offline", "cascade"):
        graph.add_node("search", partial(search, agents=agents))
        graph.add_node("judge", partial(judge, agents=agents))
        graph.add_edge("recall", "search")
        graph.add_edge("search", "judge")
    if backend in ("llm", "cascade"):
        after_llm_verdict = "keep_offline_label" if backend == "cascade" else "explain"
        graph.add_node("search_llm", partial(search_llm, agents=agents))
        graph.add_node(
            "judge_llm",
            partial(judge_llm, agents=agents, then=after_llm_verdict),
            destinations=(after_llm_verdict, "fall_back"),
        )
        graph.add_node("fall_back", partial(fall_back, agents=agents))
        graph.add_conditional_edges("search_llm", _after_llm_search, ["judge_llm", "fall_back"])
        graph.add_edge("fall_back", after_llm_verdict)
    if backend == "offline":
        graph.add_edge("judge", "explain")
    elif backend == "llm":
        graph.add_edge("recall", "search_llm")
    else:
        graph.add_node("escalate", escalate)
        graph.add_node("keep_offline_label", keep_offline_label)
        graph.add_conditional_edges("judge", _after_offline_judge, ["escalate", "explain"])
        graph.add_edge("escalate", "search_llm")
        graph.add_edge("keep_offline_label", "explain")
    graph.add_edge("explain", finish)
    if review:
        searches = (
            ("search_llm",) if backend == "llm" else ("search", "search_llm") if backend == "cascade" else ("search",)
        )
        graph.add_node("review", partial(ask_reviewer, backend=backend), destinations=(*searches, "remember"))
    graph.add_edge("remember", END)
    return graph.compile(name="mermaid-verifier", checkpointer=checkpointer)


def _memory_keys(state: VerifierState) -> list[str]:
    decomposition = state["decomposition"]
    subjects = [t.subject for t in decomposition.triplets]
    return list(dict.fromkeys(decomposition.entities + subjects))


@dataclass(frozen=True)
class Pipeline:
    """An opened verification pipeline: its resources (tool servers, models, memory), its agents and the compiled
    graph."""

    resources: Resources
    agents: Agents
    graph: CompiledStateGraph

    @property
    def extractor(self) -> ClaimExtractor:
        """The claim extractor for whole texts (loaded with ``claims=True``)."""
        return self.agents.claim_extractor


@contextlib.asynccontextmanager
async def open_pipeline(
    settings: Settings | None = None,
    *,
    review: bool = False,
    checkpointer=None,
    start: bool = True,
    claims: bool = False,
    overrides: Overrides | None = None,
) -> AsyncIterator[Pipeline]:
    """The one way the pipeline is opened — by ``verify`` and ``check``, the HTTP service, the MCP server,
    ``make_graph`` and Python users (through :func:`open_verifier` and ``TextJob.open``): the resources built, the
    agents wired, started (``start``; with ``claims`` the claim extractor for whole texts is loaded too), the graph
    compiled; everything closed when the block ends, on every path.

    ``overrides`` is what the caller gives ready-made (:class:`~mermaid_verifier.wiring.Overrides`); its
    ``early_start`` is the task that began starting its ``toolbox`` before the heavy imports
    (``tools.sources.toolbox_started_early``), awaited before the graph is used and finished on the way out.
    Building the resources reads files and opens the memory store, so it runs in a worker thread: the event loop
    never blocks (``langgraph dev`` refuses code that does)."""
    given = overrides or Overrides()
    resources: Resources | None = None
    try:
        if given.toolbox is None:  # a first run converts the default corpus: stoppable by Ctrl-C
            settings = settings or await asyncio.to_thread(Settings.from_env)
            await corpora_ready(settings)
        resources = await asyncio.to_thread(Resources.create, settings, given)
        agents = await asyncio.to_thread(wire_agents, resources)
        if start:
            await asyncio.gather(resources.warm_up(), agents.warm_up(claims=claims))
        if given.early_start is not None:
            await given.early_start
        graph = await asyncio.to_thread(compile_graph, agents, review=review, checkpointer=checkpointer)
        yield Pipeline(resources, agents, graph)
    finally:
        early = given.early_start
        if early is not None and not early.done():
            early.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await early
        if resources is not None:
            await resources.aclose()
        elif given.toolbox is not None:  # the resources were never built: the started servers still close
            await given.toolbox.aclose()


@contextlib.asynccontextmanager
async def open_verifier(
    settings: Settings | None = None,
    *,
    review: bool = False,
    checkpointer=None,
    start: bool = True,
    overrides: Overrides | None = None,
) -> AsyncIterator[CompiledStateGraph]:
    """The compiled graph of :func:`open_pipeline`, its resources started now and closed when the block ends."""
    async with open_pipeline(
        settings, review=review, checkpointer=checkpointer, start=start, overrides=overrides
    ) as pipeline:
        yield pipeline.graph


@contextlib.asynccontextmanager
async def make_graph(config: dict | None = None) -> AsyncIterator[CompiledStateGraph]:
    """Factory for LangGraph tooling (``langgraph.json``, ``langgraph dev``): settings from ``MERMAID_*``,
    overridden by the run's ``configurable`` entries that name a setting (``max_steps``, ``backend`` …).

    The server enters it for each use of the graph: for a run the tool servers start and are closed
    when the run ends (no corpus-server process outlives it); to draw or inspect the graph nothing starts."""
    configurable = (config or {}).get("configurable") or {}
    for_execution = configurable.get("__is_for_execution__", True)
    settings = await asyncio.to_thread(Settings.from_env, **settings_overrides(configurable))
    async with open_verifier(settings, start=bool(for_execution)) as graph:
        yield graph


def settings_overrides(configurable: dict) -> dict:
    """The entries of a run's ``configurable`` that name a setting (``max_steps``, ``backend`` …), e.g. from
    LangGraph Studio's assistant configuration; the rest (thread ids, the server's own keys) are not ours."""
    names = {f.name for f in dataclasses.fields(Settings)}
    return {key: value for key, value in configurable.items() if key in names}
