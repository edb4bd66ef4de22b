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
import time
from dataclasses import dataclass
from typing import AsyncIterator

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from mermaid_verifier.agents.decomposer import SpacyDecomposer
from mermaid_verifier.agents.executor import OfflineExecutor
from mermaid_verifier.agents.judge import JudgeConfig, annotate, decide
from mermaid_verifier.config import Settings
from mermaid_verifier.corpora import resolve_corpora
from mermaid_verifier.memory import EvidenceMemory
from mermaid_verifier.models import Stance
from mermaid_verifier.stance import StanceModel
from mermaid_verifier.state import VerifierState, VerifyInput, VerifyOutput
from mermaid_verifier.toolbox import Toolbox, corpus_server

REMEMBER_MIN_SCORE = 0.5  # only evidence that bore on a verdict is worth keeping


@dataclass
class Resources:
    """The live objects one graph uses; shared by every claim it verifies."""

    settings: Settings
    toolbox: Toolbox
    decomposer: SpacyDecomposer
    stance: StanceModel
    judge_config: JudgeConfig
    memory: EvidenceMemory | None

    @classmethod
    def create(cls, settings: Settings | None = None, *, toolbox: Toolbox | None = None,
               memory: EvidenceMemory | None = None, stance: StanceModel | None = None,
               decomposer: SpacyDecomposer | None = None) -> "Resources":
        """Resources from settings; pass any of them ready-made to override (tests, host apps)."""
        settings = settings or Settings.from_env()
        if toolbox is None:
            corpora = resolve_corpora(settings.corpora, settings.cache_dir)
            toolbox = Toolbox([corpus_server(corpora, settings.index_cache_dir)], settings.tool_timeout_s)
        if memory is None and settings.use_memory:
            memory = EvidenceMemory(settings.memory_dir)
        return cls(settings, toolbox, decomposer or SpacyDecomposer(), stance or StanceModel(settings.stance_model_dir),
                   JudgeConfig.bundled(), memory)

    async def warm_up(self) -> None:
        """Start the tool servers and load the parser and stance model, all at once."""
        await asyncio.gather(
            self.toolbox.start(),
            asyncio.to_thread(self.decomposer.warm_up),
            asyncio.to_thread(self.stance.load),
        )

    async def aclose(self) -> None:
        await self.toolbox.aclose()
        if self.memory is not None:
            self.memory.close()


def build_graph(resources: Resources | None = None) -> CompiledStateGraph:
    """The compiled verification graph. Without ``resources``, settings come from the environment
    and the tool servers start on first use."""
    resources = resources or Resources.create()
    executor = OfflineExecutor(
        resources.toolbox,
        resources.stance,
        max_steps=resources.settings.max_steps,
        search_k=resources.settings.search_k,
        stop_threshold=resources.judge_config.stop_threshold,
    )

    async def decompose(state: VerifierState) -> dict:
        return {"decomposition": await resources.decomposer.adecompose(state["claim"]), "started_at": time.perf_counter()}

    async def recall(state: VerifierState) -> dict:
        if resources.memory is None:
            return {"remembered": []}
        return {"remembered": await resources.memory.arecall(_memory_keys(state))}

    async def execute(state: VerifierState) -> dict:
        result = await executor.run(state["claim"], state["decomposition"], state.get("remembered", []))
        return {"evidence": result.evidence, "trace": result.trace, "stats": result.stats}

    async def judge(state: VerifierState) -> dict:
        return {"verdict": decide(state["evidence"], resources.judge_config), "evidence": annotate(state["evidence"])}

    async def remember(state: VerifierState) -> dict:
        if resources.memory is not None:
            worth_keeping = [e for e in state["evidence"] if not e.from_memory and (e.score or 0) >= REMEMBER_MIN_SCORE
                             and e.stance != Stance.NEUTRAL]
            await resources.memory.aremember(_memory_keys(state), worth_keeping)
        stats = state["stats"].model_copy(update={"seconds": round(time.perf_counter() - state["started_at"], 3)})
        return {"stats": stats}

    graph = StateGraph(VerifierState, input_schema=VerifyInput, output_schema=VerifyOutput)
    for name, node in [("decompose", decompose), ("recall", recall), ("execute", execute), ("judge", judge), ("remember", remember)]:
        graph.add_node(name, node)
    graph.add_edge(START, "decompose")
    graph.add_edge("decompose", "recall")
    graph.add_edge("recall", "execute")
    graph.add_edge("execute", "judge")
    graph.add_edge("judge", "remember")
    graph.add_edge("remember", END)
    return graph.compile(name="mermaid-verifier")


def _memory_keys(state: VerifierState) -> list[str]:
    decomposition = state["decomposition"]
    subjects = [t.subject for t in decomposition.triplets]
    return list(dict.fromkeys(decomposition.entities + subjects))


@contextlib.asynccontextmanager
async def open_verifier(settings: Settings | None = None, **resource_overrides) -> AsyncIterator[CompiledStateGraph]:
    """The compiled graph with its resources started now and closed when the block ends."""
    resources = Resources.create(settings, **resource_overrides)
    try:
        await resources.warm_up()
        yield build_graph(resources)
    finally:
        await resources.aclose()


def make_graph(config: dict | None = None) -> CompiledStateGraph:
    """Factory for LangGraph tooling (``langgraph.json``); settings from ``MERMAID_*`` variables."""
    return build_graph()
