"""The wiring: one role table, one typed object of what a caller hands in, and what the resources own."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
from mermaid_verifier.agents.decomposer import SpacyDecomposer
from mermaid_verifier.agents.executor import OfflineExecutor
from mermaid_verifier.agents.llm_claim_extractor import LLMClaimExtractor
from mermaid_verifier.agents.llm_decomposer import LLMDecomposer
from mermaid_verifier.agents.llm_executor import LLMExecutor
from mermaid_verifier.agents.llm_judge import LLMJudge
from mermaid_verifier.config import Settings
from mermaid_verifier.tools.toolbox import Toolbox
from mermaid_verifier.wiring import Overrides, Resources, backend_plan, wire_agents

from .conftest import LLM_ENDPOINT, MECHANICS_JUDGE, ScriptedStance
from .fake_chat import ScriptedChatModel

ROLES = ("decomposer", "executor", "judge")


def resources_for(tmp_path, backend: str, **given) -> Resources:
    settings = Settings.from_env(
        {}, backend=backend, openai_base_url=LLM_ENDPOINT, cache_dir=tmp_path, use_memory=False
    )
    models = {role: ScriptedChatModel() for role in ROLES}
    return Resources.create(
        settings, Overrides(toolbox=Toolbox([]), stance=ScriptedStance({}), chat_model=models, **given)
    )


@pytest.mark.parametrize(
    ("backend", "decomposer", "extractor", "llm_agents"),
    [
        ("offline", SpacyDecomposer, SpacyClaimExtractor, False),
        ("llm", LLMDecomposer, LLMClaimExtractor, True),
        ("cascade", SpacyDecomposer, SpacyClaimExtractor, True),
    ],
)
def test_every_role_comes_from_the_backend_plan(tmp_path, backend, decomposer, extractor, llm_agents):
    resources = resources_for(tmp_path, backend)
    plan = backend_plan(resources.settings)
    agents = wire_agents(resources)
    assert type(agents.decomposer) is decomposer and type(agents.claim_extractor) is extractor
    assert plan.llm_agents is llm_agents
    assert isinstance(agents.offline_executor, OfflineExecutor)
    assert isinstance(agents.llm_executor, LLMExecutor) is llm_agents
    assert isinstance(agents.llm_judge, LLMJudge) is llm_agents
    assert agents.resources is resources


def test_what_the_overrides_give_is_kept_and_the_rest_is_built(tmp_path):
    decomposer, extractor = SpacyDecomposer(), SpacyClaimExtractor()
    resources = resources_for(
        tmp_path, "llm", decomposer=decomposer, claim_extractor=extractor, judge_config=MECHANICS_JUDGE
    )
    agents = wire_agents(resources)
    assert agents.decomposer is decomposer and agents.claim_extractor is extractor
    assert agents.judge_config is MECHANICS_JUDGE
    assert agents.offline_executor.stop_threshold == MECHANICS_JUDGE.stop_threshold
    # without a judge configuration given, the bundled one
    bundled = wire_agents(resources_for(tmp_path / "bundled", "offline"))
    assert bundled.judge_config != MECHANICS_JUDGE and bundled.judge_config.threshold_source


def test_overrides_are_one_frozen_object_changed_only_by_copy():
    given = Overrides(judge_config=MECHANICS_JUDGE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        given.judge_config = None  # type: ignore[misc]
    changed = given.replace(stance=ScriptedStance({}))
    assert given.stance is None and changed.stance is not None and changed.judge_config is MECHANICS_JUDGE
    with pytest.raises(TypeError):
        Overrides(MECHANICS_JUDGE)  # type: ignore[misc]  # keywords only: no field is given by position
    with pytest.raises(TypeError):
        Overrides(judge=MECHANICS_JUDGE)  # type: ignore[call-arg]  # a misspelt override is an error, not ignored


def test_the_resources_own_what_opens_and_closes_and_no_agent(tmp_path):
    fields = {f.name for f in dataclasses.fields(Resources)}
    assert {"toolbox", "stance", "memory", "owned_store", "chat_models"} <= fields
    assert not fields & {"decomposer", "claim_extractor", "judge_config", "offline_executor", "llm_judge"}


def test_a_graph_built_from_the_environment_closes_the_store_it_opened_when_wiring_fails(tmp_path, monkeypatch):
    from mermaid_verifier import wiring
    from mermaid_verifier.errors import MermaidError
    from mermaid_verifier.graph import build_graph

    broken = tmp_path / "calibration.json"
    broken.write_text("{not json")
    monkeypatch.setenv("MERMAID_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("MERMAID_CALIBRATION", str(broken))
    opened = []
    real_open_store = wiring.open_store

    def recording_open_store(*args, **kwargs):
        opened.append(real_open_store(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(wiring, "open_store", recording_open_store)
    with pytest.raises(MermaidError, match="calibration.json"):
        build_graph()
    assert len(opened) == 1
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        opened[0].store.conn.execute("select 1")
