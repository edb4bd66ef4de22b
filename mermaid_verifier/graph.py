"""The verification graph: decompose → recall → execute → judge → remember.

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
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore
from langgraph.types import Command, interrupt

from mermaid_verifier import calibration as calibration_module
from mermaid_verifier.agents.chat_models import as_model_factory, chat_model_factory
from mermaid_verifier.agents.decomposer import SpacyDecomposer, names_something
from mermaid_verifier.agents.executor import ExecutionResult, OfflineExecutor
from mermaid_verifier.agents.judge import (
    JudgeConfig,
    OfflineJudge,
    abstain_after_llm_failure,
    abstention_names_nothing,
    abstention_without_decomposition,
    annotate,
    assess,
    cascade_verdict,
)
from mermaid_verifier.agents.model_calls import Pricing, add_usage, usage_scope
from mermaid_verifier.agents.roles import Decomposer, Executor, Judge
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import LLMOutputError, LLMServiceError
from mermaid_verifier.memory.evidence import EvidenceMemory, LookupPolicy
from mermaid_verifier.memory.store import OpenedStore, open_store
from mermaid_verifier.models import Decomposition, Stance, Stats, TraceStep, Verdict
from mermaid_verifier.review import ReviewDecision, ReviewRequest, apply_review
from mermaid_verifier.scoring import ReliabilityConfig
from mermaid_verifier.stance import StanceModel
from mermaid_verifier.state import VerifierState, VerifyInput, VerifyOutput
from mermaid_verifier.tools.sources import toolbox_for
from mermaid_verifier.tools.toolbox import Toolbox

logger = logging.getLogger(__name__)
REMEMBER_MIN_SCORE = 0.5  # only evidence that bore on a verdict is worth keeping


@dataclass
class Resources:
    """The live objects one graph uses; shared by every claim it verifies."""

    settings: Settings
    toolbox: Toolbox
    decomposer: Decomposer  # SpacyDecomposer, LLMDecomposer
    stance: StanceModel
    judge_config: JudgeConfig
    memory: EvidenceMemory | None
    owned_store: OpenedStore | None = None  # closed by aclose(); a store passed in is the caller's
    reliability_config: ReliabilityConfig = field(default_factory=ReliabilityConfig)
    clock: Callable[[], float] = time.time  # "now" for ages and decay; tests move it
    backend: str = "offline"  # "offline" | "llm" | "cascade" (settings.effective_backend)
    chat_models: Callable[[str], Any] | None = None  # role ("decomposer", "executor", "judge") -> chat model
    skipped_sources: dict[str, str] = field(default_factory=dict)  # chosen sources not used in this run, and why

    @classmethod
    def create(
        cls,
        settings: Settings | None = None,
        *,
        toolbox: Toolbox | None = None,
        store: BaseStore | None = None,
        memory: EvidenceMemory | None = None,
        stance: StanceModel | None = None,
        decomposer: Any = None,
        chat_model: Any = None,
        judge_config: JudgeConfig | None = None,
    ) -> Resources:
        """Resources from settings; pass any of them ready-made to override (tests, host apps).

        ``store`` is any LangGraph ``BaseStore`` (``InMemoryStore``, ``PostgresStore`` …) to keep the
        evidence memory in; by default LangGraph's SQLite store under the cache directory.
        ``chat_model`` (one chat model, a ``{role: model}`` mapping or a ``role -> model`` callable)
        replaces the ChatOpenAI models the LLM and cascade backends build from the settings.
        ``judge_config`` replaces the bundled thresholds (and any fitted ``calibrate`` threshold)."""
        settings = settings or Settings.from_env()
        backend = settings.effective_backend
        chat_models = None
        if backend != "offline":
            chat_models = as_model_factory(chat_model) if chat_model is not None else chat_model_factory(settings)
            if decomposer is None and backend == "llm":
                from mermaid_verifier.agents.llm_decomposer import LLMDecomposer

                decomposer = LLMDecomposer(
                    chat_models("decomposer"), method=settings.structured_method, prompts_dir=settings.prompts_dir
                )
        skipped_sources: dict[str, str] = {}
        if toolbox is None:
            toolbox, skipped_sources = toolbox_for(settings)
            if skipped_sources:
                logger.warning("not using %s", "; ".join(f"{k} ({v})" for k, v in skipped_sources.items()))
        # Files are read before the store is opened, so a bad file leaves nothing open behind it.
        reliability = (
            ReliabilityConfig.from_file(settings.reliability_file) if settings.reliability_file else ReliabilityConfig()
        )
        judge_config = judge_config or judge_config_for(settings)
        stance = stance or StanceModel(settings.stance_model_dir)
        owned_store = None
        if memory is None and settings.use_memory:
            if store is None:
                owned_store = open_store(settings.memory_dir, settings.memory_url)
                store = owned_store.store
            memory = EvidenceMemory(
                store,
                lookups=LookupPolicy(local_days=settings.lookup_ttl_days, live_days=settings.live_lookup_ttl_days),
            )
        if memory is not None:
            memory.reliability_config = reliability
        try:
            decomposer = decomposer or SpacyDecomposer()
        except BaseException:
            if owned_store is not None:
                owned_store.close()
            raise
        return cls(
            settings,
            toolbox,
            decomposer,
            stance,
            judge_config,
            memory,
            owned_store,
            reliability,
            backend=backend,
            chat_models=chat_models,
            skipped_sources=skipped_sources,
        )

    async def warm_up(self) -> None:
        """Start the tool servers and load the parser and stance model, all at once."""
        await asyncio.gather(
            self.toolbox.start(),
            asyncio.to_thread(self.decomposer.warm_up),
            asyncio.to_thread(self.stance.load),
        )

    async def aclose(self) -> None:
        await self.toolbox.aclose()
        close_models = getattr(self.chat_models, "aclose", None)  # ChatModels built here; not a caller's models
        if close_models is not None:
            await close_models()
        if self.owned_store is not None:
            self.owned_store.close()


def judge_config_for(settings: Settings) -> JudgeConfig:
    """The bundled judge thresholds, with the abstention threshold from `calibrate` when one was fitted."""
    config = JudgeConfig.bundled()
    calibration = calibration_module.load(settings.calibration_path)
    if calibration is not None:
        config = config.model_copy(
            update={
                "abstain_below": calibration.abstain_below,
                "threshold_source": f"calibrate: {settings.calibration_path} (max risk {calibration.max_risk:g} on "
                f"{calibration.claims} claims of {calibration.fitted_on}, {calibration.fitted_at}; "
                f"`mermaid-verifier calibrate --reset` removes it)",
            }
        )
    return config


@dataclass
class Agents:
    """What the nodes use, wired once per graph from its :class:`Resources`: the executor and judges of
    the chosen backend, plus where a failed decomposition goes next."""

    resources: Resources
    executor: Executor  # OfflineExecutor, LLMExecutor or CascadeExecutor
    judges: dict[str, Judge]  # "offline" and, with an LLM backend, "llm"
    pricing: Pricing | None
    after_failed_decomposition: str = "remember"


def wire_agents(resources: Resources, *, review: bool = False) -> Agents:
    """The executor and judges for ``resources.backend`` (offline, llm or cascade)."""
    settings, config = resources.settings, resources.judge_config
    pricing = Pricing.from_settings(settings)
    offline_executor = OfflineExecutor(
        resources.toolbox,
        resources.stance,
        max_steps=settings.max_steps,
        search_k=settings.search_k,
        stop_threshold=config.stop_threshold,
        reliability=resources.reliability_config,
        clock=resources.clock,
        topicality=config.topicality,
        lookups=resources.memory,
    )
    executor: Executor = offline_executor
    judges: dict[str, Judge] = {"offline": OfflineJudge(config)}
    if resources.backend != "offline":
        from mermaid_verifier.agents.llm_executor import CascadeExecutor, LLMExecutor
        from mermaid_verifier.agents.llm_judge import LLMJudge

        models = resources.chat_models or chat_model_factory(settings)
        llm_executor = LLMExecutor(
            models("executor"), offline_executor, prompts_dir=settings.prompts_dir, pricing=pricing
        )
        judges["llm"] = LLMJudge(
            models("judge"), config, method=settings.structured_method, prompts_dir=settings.prompts_dir
        )
        if resources.backend == "cascade":
            executor = CascadeExecutor(
                offline_executor, llm_executor, config, resources.reliability_config, resources.clock
            )
        else:
            executor = llm_executor
    return Agents(resources, executor, judges, pricing, "review" if review else "remember")


# ----------------------------------------------------------------------------- the nodes


async def decompose(state: VerifierState, agents: Agents) -> Command:
    """Claim -> triplets, keywords, entities; a claim that cannot be decomposed abstains at once."""
    started_at = time.time()
    with usage_scope() as usage:
        try:
            decomposition = await agents.resources.decomposer.adecompose(state["claim"])
        except (LLMOutputError, LLMServiceError) as exc:  # no decomposition: abstain and say why
            stats = add_usage(Stats(backend="llm"), usage, agents.pricing)
            if isinstance(exc, LLMServiceError):
                stats.llm_failure = str(exc)
            return _abstain_unsearched(
                state, agents, Decomposition(), abstention_without_decomposition(str(exc)), str(exc), stats, started_at
            )
    stats = add_usage(Stats(), usage, agents.pricing)
    if not names_something(decomposition):  # "claim one": whatever a search returns, nothing is about it
        observation = "no named entity and no subject to look up"
        return _abstain_unsearched(
            state, agents, decomposition, abstention_names_nothing(), observation, stats, started_at
        )
    return Command(goto="recall", update={"decomposition": decomposition, "started_at": started_at, "stats": stats})


def _abstain_unsearched(
    state: VerifierState,
    agents: Agents,
    decomposition: Decomposition,
    verdict: Verdict,
    observation: str,
    stats: Stats,
    started_at: float,
) -> Command:
    """Straight to the end of the claim with an abstention and the decompose step that explains it: nothing
    is searched."""
    step = TraceStep(
        step=0,
        thought="Split the claim into facts to check.",
        action="decompose",
        action_input={"claim": state["claim"]},
        observation=observation,
    )
    return Command(
        goto=agents.after_failed_decomposition,
        update={
            "decomposition": decomposition,
            "verdict": verdict,
            "evidence": [],
            "trace": [step],
            "stats": stats,
            "started_at": started_at,
        },
    )


async def recall(state: VerifierState, agents: Agents) -> dict:
    """Remembered evidence about the claim's entities, from the corpora and sources this run uses."""
    resources = agents.resources
    if resources.memory is None:
        return {"remembered": []}
    origins = {source for source in resources.toolbox.sources.values() if source}
    recalled = await resources.memory.recall(_memory_keys(state), state["claim"], origins=origins)
    return {"remembered": recalled.items}


async def execute(state: VerifierState, agents: Agents) -> dict:
    """The executor's search (≤ max_steps tool-using steps), continuing an earlier round when a reviewer asked."""
    previous = None
    if state.get("search_more"):  # a reviewer asked for more search: continue where the last round stopped
        previous = ExecutionResult(evidence=state["evidence"], trace=state["trace"], stats=state["stats"])
    result = await agents.executor.run(
        state["claim"], state["decomposition"], state.get("remembered", []), previous=previous
    )
    stats = result.stats
    if previous is None and state.get("stats") is not None:  # count the decomposer's LLM calls too
        stats = add_usage(stats, state["stats"], agents.pricing)
    return {"evidence": result.evidence, "trace": result.trace, "stats": stats, "search_more": False}


async def judge(state: VerifierState, agents: Agents) -> dict:
    """Assess the evidence once (trust, topicality), then the verdict (agents/judge.py decides, whichever judge asks)."""
    resources = agents.resources
    stats = state["stats"]
    entities = state["decomposition"].entities
    trusted = assess(
        state["evidence"],
        resources.reliability_config,
        resources.judge_config,
        state["claim"],
        entities,
        resources.clock(),
    )
    with usage_scope() as usage:
        if stats.llm_failure is None:
            try:
                verdict = await agents.judges.get(stats.backend, agents.judges["offline"]).judge(
                    state["claim"], trusted, entities
                )
            except LLMServiceError as exc:
                stats = stats.model_copy(update={"llm_failure": str(exc)})
        if stats.llm_failure is not None:  # the search or the LLM judge failed: abstain, keep the evidence
            stance_reading = await agents.judges["offline"].judge(state["claim"], trusted, entities)
            verdict = abstain_after_llm_failure(stance_reading, stats.llm_failure)
    if stats.offline_label is not None and stats.offline_confidence is not None:  # a claim the cascade escalated
        verdict = cascade_verdict(verdict, stats.offline_label, stats.offline_confidence)
    ranked = annotate(trusted, resources.judge_config, state["claim"], entities, verdict)
    return {"verdict": verdict, "evidence": ranked, "stats": add_usage(stats, usage, agents.pricing)}


async def ask_reviewer(state: VerifierState, agents: Agents) -> Command:
    """Pause an abstained verdict for a person (LangGraph ``interrupt``); act on their decision."""
    verdict = state["verdict"]
    if not verdict.abstained:
        return Command(goto="remember")
    request = ReviewRequest(
        claim=state["claim"], verdict=verdict, evidence=state["evidence"][:5], searches_so_far=len(state["trace"])
    )
    decision = ReviewDecision.model_validate(interrupt(request.model_dump(mode="json")))
    if decision.action == "search_more":
        return Command(goto="execute", update={"search_more": True})
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
    stats = state["stats"].model_copy(update={"seconds": round(time.time() - state["started_at"], 3)})
    return {"stats": stats}


def build_graph(resources: Resources | None = None, *, review: bool = False, checkpointer=None) -> CompiledStateGraph:
    """The compiled verification graph. Without ``resources``, settings come from the environment
    and the tool servers start on first use.

    The nodes are the module-level functions above, each given the graph's :class:`Agents` (bound
    here, not passed at invoke time: the graph also runs as a node of a host app, whose runtime
    context is its own).

    With ``review=True`` an abstained verdict pauses the graph (LangGraph ``interrupt``) with a
    :class:`ReviewRequest`; resume it with ``Command(resume=ReviewDecision(...).model_dump())``.
    Pausing needs a ``checkpointer`` (and a ``thread_id`` in the run's config)."""
    agents = wire_agents(resources or Resources.create(), review=review)
    graph = StateGraph(VerifierState, input_schema=VerifyInput, output_schema=VerifyOutput)
    graph.add_node(
        "decompose", partial(decompose, agents=agents), destinations=("recall", agents.after_failed_decomposition)
    )
    for name, node in [("recall", recall), ("execute", execute), ("judge", judge), ("remember", remember)]:
        graph.add_node(name, partial(node, agents=agents))
    graph.add_edge(START, "decompose")
    graph.add_edge("recall", "execute")
    graph.add_edge("execute", "judge")
    if review:
        graph.add_node("review", partial(ask_reviewer, agents=agents), destinations=("execute", "remember"))
        graph.add_edge("judge", "review")
    else:
        graph.add_edge("judge", "remember")
    graph.add_edge("remember", END)
    return graph.compile(name="mermaid-verifier", checkpointer=checkpointer)


def _memory_keys(state: VerifierState) -> list[str]:
    decomposition = state["decomposition"]
    subjects = [t.subject for t in decomposition.triplets]
    return list(dict.fromkeys(decomposition.entities + subjects))


@contextlib.asynccontextmanager
async def open_verifier(
    settings: Settings | None = None,
    *,
    review: bool = False,
    checkpointer=None,
    start: bool = True,
    **resource_overrides,
) -> AsyncIterator[CompiledStateGraph]:
    """The compiled graph with its resources started now and closed when the block ends.

    Building the resources reads files and opens the memory store, so it runs in a worker thread: the
    event loop never blocks (``langgraph dev`` refuses code that does)."""
    resources = await asyncio.to_thread(Resources.create, settings, **resource_overrides)
    try:
        if start:
            await resources.warm_up()
        yield await asyncio.to_thread(build_graph, resources, review=review, checkpointer=checkpointer)
    finally:
        await resources.aclose()


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
