"""Where the agents are wired: what a graph opens and closes, the one table of which agent plays each role, and
what a caller hands in ready-made.

:class:`Overrides` is everything a caller (a command that started the tool servers early, a test, a host app)
gives instead of what the settings would build; it travels as one object. :class:`Resources` owns what must be
opened and closed (tool-server sessions, the memory store, the stance model, chat models). :func:`wire_agents`
picks every role from :func:`backend_plan`'s table -- decomposer, claim extractor, executors, judges -- into one
:class:`Agents`. The graph (``mermaid_verifier.graph``) routes a claim between them; nothing here decides a route.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.store.base import BaseStore

from mermaid_verifier.agents.chat_models import as_model_factory, chat_model_factory
from mermaid_verifier.agents.check_worthiness import CheckWorthiness
from mermaid_verifier.agents.decomposer import SpacyDecomposer
from mermaid_verifier.agents.executor import OfflineExecutor
from mermaid_verifier.agents.judge import JudgeConfig, OfflineJudge
from mermaid_verifier.agents.model_calls import Pricing
from mermaid_verifier.agents.roles import ClaimExtractor, Decomposer, Executor, Judge
from mermaid_verifier.config import Settings
from mermaid_verifier.memory.evidence import EvidenceMemory, LookupPolicy
from mermaid_verifier.memory.store import OpenedStore, open_store
from mermaid_verifier.reader.stance import StanceForUncheckedJudge, StanceModel
from mermaid_verifier.tools.sources import toolbox_for
from mermaid_verifier.tools.toolbox import Toolbox
from mermaid_verifier.weighing import calibration as calibration_module
from mermaid_verifier.weighing.scoring import ReliabilityConfig

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Overrides:
    """What a caller hands in ready-made instead of what the settings would build; each left ``None`` is built
    from the settings. One object from the command or host app down to :meth:`Resources.create` and
    :func:`wire_agents`, through ``open_pipeline``, ``open_verifier``, ``TextJob.open`` and ``create_app``.

    ``toolbox`` with ``early_start``: tool servers already starting (``tools.sources.toolbox_started_early``), the
    task awaited before the graph is used. ``store``: any LangGraph ``BaseStore`` (``InMemoryStore``,
    ``PostgresStore`` …) to keep the evidence memory in, or ``memory`` itself. ``chat_model``: one chat model, a
    ``{role: model}`` mapping or a ``role -> model`` callable, in place of the ChatOpenAI models the llm and cascade
    backends build. ``judge_config``: in place of the bundled thresholds (and any fitted ``calibrate`` threshold)."""

    toolbox: Toolbox | None = None
    early_start: asyncio.Task | None = None
    store: BaseStore | None = None
    memory: EvidenceMemory | None = None
    stance: StanceModel | None = None
    decomposer: Decomposer | None = None
    claim_extractor: ClaimExtractor | None = None
    chat_model: Any = None
    judge_config: JudgeConfig | None = None

    def replace(self, **changes: Any) -> Overrides:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class BackendPlan:
    """Which agent plays each role under a backend: the one table of ``MERMAID_BACKEND``'s choices, read by
    :func:`wire_agents` (every role) and :func:`claim_extractor_for` (texts read against given documents alone)."""

    decomposer: Literal["offline", "llm"]
    claim_extractor: Literal["offline", "llm"]  # the llm one falls back to the offline rules on any failure
    llm_agents: bool  # the LLM executor and judge are wired (beside the offline ones, which they build on)
    stance_checked: bool  # False: the stance model may fail its self-check and give no readings (LLM judge alone)


def backend_plan(settings: Settings) -> BackendPlan:
    """The agents each backend uses. offline: the spaCy decomposer and claim extractor, the offline executor and
    judge. llm: LLM decomposer, claim extractor, executor and judge (the judge checked against the stance model
    unless ``MERMAID_JUDGE_CHECK=off``, when the stance model may be unavailable). cascade: offline decomposition
    and extraction, the offline executor and judge first and the LLM ones for the claims it escalates."""
    backend = settings.effective_backend
    llm = backend == "llm"
    return BackendPlan(
        decomposer="llm" if llm else "offline",
        claim_extractor="llm" if llm else "offline",
        llm_agents=backend != "offline",
        stance_checked=not (llm and settings.judge_check == "off"),
    )


@dataclass
class Resources:
    """What one graph opens and closes, shared by every claim it verifies: the tool servers, the evidence memory
    (with the reliability settings it scores by), the stance model and the chat models; and the
    :class:`Overrides` they were created with, whose ready-made agents and judge thresholds :func:`wire_agents`
    keeps."""

    settings: Settings
    toolbox: Toolbox
    stance: StanceModel
    memory: EvidenceMemory | None
    owned_store: OpenedStore | None = None  # closed by aclose(); a store passed in is the caller's
    reliability_config: ReliabilityConfig = field(default_factory=ReliabilityConfig)
    clock: Callable[[], float] = time.time  # "now" for ages and decay; tests move it
    backend: str = "offline"  # "offline" | "llm" | "cascade" (settings.effective_backend)
    chat_models: Callable[[str], Any] | None = None  # role ("decomposer", "executor", "judge") -> chat model
    skipped_sources: dict[str, str] = field(default_factory=dict)  # chosen sources not used in this run, and why
    overrides: Overrides = field(default_factory=Overrides)

    @classmethod
    def create(cls, settings: Settings | None = None, overrides: Overrides | None = None) -> Resources:
        """Resources from settings, with what ``overrides`` gives ready-made (tests, host apps, early-started
        servers); by default the evidence memory is LangGraph's SQLite store under the cache directory."""
        settings = settings or Settings.from_env()
        given = overrides or Overrides()
        plan = backend_plan(settings)
        chat_models = None
        if plan.llm_agents:
            chat_models = (
                as_model_factory(given.chat_model) if given.chat_model is not None else chat_model_factory(settings)
            )
        toolbox, skipped_sources = given.toolbox, dict[str, str]()
        if toolbox is None:
            toolbox, skipped_sources = toolbox_for(settings)
            if skipped_sources:
                logger.warning("not using %s", "; ".join(f"{k} ({v})" for k, v in skipped_sources.items()))
        # Files are read before the store is opened, so a bad file leaves nothing open behind it.
        reliability = (
            ReliabilityConfig.from_file(settings.reliability_file) if settings.reliability_file else ReliabilityConfig()
        )
        stance = given.stance
        if stance is None:  # unchecked only where no verdict rests on its readings
            stance = (StanceModel if plan.stance_checked else StanceForUncheckedJudge)(settings.stance_model_dir)
        memory, store, owned_store = given.memory, given.store, None
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
        return cls(
            settings,
            toolbox,
            stance,
            memory,
            owned_store,
            reliability,
            backend=settings.effective_backend,
            chat_models=chat_models,
            skipped_sources=skipped_sources,
            overrides=given,
        )

    @property
    def stance_problem(self) -> str | None:
        """Why the stance model gives no readings in this run (it failed its self-check where the LLM judge
        decides alone), or None."""
        return getattr(self.stance, "problem", None)

    async def warm_up(self) -> None:
        """Start the tool servers and load the stance model, at once."""
        await asyncio.gather(self.toolbox.start(), asyncio.to_thread(self.stance.load))

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
    """Every role of one graph, wired once from its :class:`Resources` by :func:`wire_agents`: what the graph's
    nodes use, and the claim extractor a text job reads texts with."""

    resources: Resources
    decomposer: Decomposer
    claim_extractor: ClaimExtractor
    judge_config: JudgeConfig
    offline_executor: Executor
    offline_judge: Judge
    pricing: Pricing | None
    llm_executor: Executor | None = None  # with the llm and cascade backends
    llm_judge: Judge | None = None
    check_worthiness: CheckWorthiness = field(default_factory=CheckWorthiness)  # check's rule, for one claim

    async def warm_up(self, claims: bool = False) -> None:
        """Load the parsers the first claim would otherwise wait for: the decomposer's, and with ``claims`` the
        claim extractor's."""
        loads = [asyncio.to_thread(self.decomposer.warm_up)]
        if claims:
            loads.append(asyncio.to_thread(self.claim_extractor.warm_up))
        await asyncio.gather(*loads)


def wire_agents(resources: Resources) -> Agents:
    """Every role, as :func:`backend_plan` says for the resources' backend (the ones the resources' overrides give
    kept): the decomposer, the claim extractor, the offline executor and judge, and with an LLM backend (llm,
    cascade) the LLM executor and judge. The judge thresholds are the bundled ones (with ``calibrate``'s) unless
    given."""
    settings, given = resources.settings, resources.overrides
    plan = backend_plan(settings)
    config = given.judge_config or judge_config_for(settings)
    models = resources.chat_models
    if plan.llm_agents and models is None:
        models = chat_model_factory(settings)
    decomposer = given.decomposer
    if decomposer is None and plan.decomposer == "llm":
        from mermaid_verifier.agents.llm_decomposer import LLMDecomposer

        assert models is not None  # the llm backend wires its chat models
        decomposer = LLMDecomposer(
            models("decomposer"), method=settings.structured_method, prompts_dir=settings.prompts_dir
        )
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
    agents = Agents(
        resources,
        decomposer or SpacyDecomposer(),
        given.claim_extractor or claim_extractor_for(settings, models),
        config,
        offline_executor,
        OfflineJudge(config),
        pricing,
    )
    if plan.llm_agents:
        from mermaid_verifier.agents.llm_executor import LLMExecutor
        from mermaid_verifier.agents.llm_judge import LLMJudge

        assert models is not None
        agents.llm_executor = LLMExecutor(
            models("executor"), offline_executor, prompts_dir=settings.prompts_dir, pricing=pricing
        )
        agents.llm_judge = LLMJudge(
            models("judge"),
            config,
            method=settings.structured_method,
            prompts_dir=settings.prompts_dir,
            check=settings.judge_check,
        )
    return agents


def claim_extractor_for(settings: Settings, chat_models: Callable[[str], Any] | None = None) -> ClaimExtractor:
    """The claim extractor :func:`backend_plan` names: the offline one, or with the llm backend the LLM one (its
    fall-back is the offline one); the cascade extracts offline, as it decomposes. For :func:`wire_agents`, and
    for texts read against given documents alone (no graph is wired for those)."""
    from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor

    offline = SpacyClaimExtractor()
    if backend_plan(settings).claim_extractor == "offline":
        return offline
    from mermaid_verifier.agents.llm_claim_extractor import LLMClaimExtractor

    models = chat_models or chat_model_factory(settings)
    return LLMClaimExtractor(
        models("decomposer"), method=settings.structured_method, prompts_dir=settings.prompts_dir, offline=offline
    )
