"""The live objects one verification graph uses, built from settings, and the agents wired from them.

:class:`Resources` owns what must be opened and closed (tool-server sessions, the memory store, chat
models); :func:`wire_agents` picks the executors and judges of the chosen backend. The graph
(``mermaid_verifier.graph``) routes a claim between them; nothing here decides a route.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.store.base import BaseStore

from mermaid_verifier import calibration as calibration_module
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
from mermaid_verifier.scoring import ReliabilityConfig
from mermaid_verifier.stance import StanceForUncheckedJudge, StanceModel
from mermaid_verifier.tools.sources import toolbox_for
from mermaid_verifier.tools.toolbox import Toolbox

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BackendPlan:
    """Which agent plays each role under a backend: the one table of ``MERMAID_BACKEND``'s choices."""

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
        plan = backend_plan(settings)
        chat_models = None
        if plan.llm_agents:
            chat_models = as_model_factory(chat_model) if chat_model is not None else chat_model_factory(settings)
            if decomposer is None and plan.decomposer == "llm":
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
        if stance is None:  # unchecked only where no verdict rests on its readings
            stance = (StanceModel if plan.stance_checked else StanceForUncheckedJudge)(settings.stance_model_dir)
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

    @property
    def stance_problem(self) -> str | None:
        """Why the stance model gives no readings in this run (it failed its self-check where the LLM judge
        decides alone), or None."""
        return getattr(self.stance, "problem", None)

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
    """What the graph's nodes use, wired once per graph from its :class:`Resources`."""

    resources: Resources
    offline_executor: Executor
    offline_judge: Judge
    pricing: Pricing | None
    llm_executor: Executor | None = None  # with the llm and cascade backends
    llm_judge: Judge | None = None
    check_worthiness: CheckWorthiness = field(default_factory=CheckWorthiness)  # check's rule, for one claim


def wire_agents(resources: Resources) -> Agents:
    """The offline executor and judge, and with an LLM backend (llm, cascade) the LLM executor and judge."""
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
    agents = Agents(resources, offline_executor, OfflineJudge(config), pricing)
    if backend_plan(settings).llm_agents:
        from mermaid_verifier.agents.llm_executor import LLMExecutor
        from mermaid_verifier.agents.llm_judge import LLMJudge

        models = resources.chat_models or chat_model_factory(settings)
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


def claim_extractor_for(resources: Resources) -> ClaimExtractor:
    """The claim extractor for the resources' backend (:func:`extractor_for`), on their chat models."""
    return extractor_for(resources.settings, resources.chat_models)


def extractor_for(settings: Settings, chat_models=None) -> ClaimExtractor:
    """The offline claim extractor, or with the llm backend the LLM one (its fall-back is the offline one);
    the cascade extracts offline, as it decomposes."""
    from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor

    offline = SpacyClaimExtractor()
    if backend_plan(settings).claim_extractor == "offline":
        return offline
    from mermaid_verifier.agents.llm_claim_extractor import LLMClaimExtractor

    models = chat_models or chat_model_factory(settings)
    return LLMClaimExtractor(
        models("decomposer"), method=settings.structured_method, prompts_dir=settings.prompts_dir, offline=offline
    )
