"""One registry of sources (mermaid_verifier/source_registry.py): what config, the toolbox, the executor and the
console scripts read agree with it."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

from mermaid_verifier.agents.executor import SOURCE_KINDS, plan_actions
from mermaid_verifier.config import KNOWN_SOURCES
from mermaid_verifier.models import Decomposition, Triplet
from mermaid_verifier.source_registry import LIVE, SOURCES

REPO = Path(__file__).resolve().parents[1]


def test_each_source_has_a_server_module_and_its_console_script():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    for source in SOURCES:
        module = importlib.import_module(source.module)
        assert scripts[source.script] == f"{source.module}:main" and callable(module.main)
        # each server names itself, its command and the host it calls from the registry, not from a copy
        assert (module.SERVER_NAME, module.PROG) == (source.server, source.script)
        assert module.SOURCE is source and getattr(module, "HOST", source.host) == source.host
    assert {s for s in scripts if s.startswith("mermaid-verifier-")} == {source.script for source in SOURCES}


def test_settings_executor_and_registry_name_the_same_sources():
    assert KNOWN_SOURCES == tuple(source.name for source in SOURCES)
    assert SOURCE_KINDS == {source.server: source.kind for source in SOURCES}


def test_the_live_sources_first_actions_come_right_after_the_first_local_search_in_registry_order():
    decomposition = Decomposition(triplets=[Triplet(subject="Marie Curie", relation="won", object="Nobel Prize")])
    available = {source.server: {"search", "get_page", "page_sentences"} for source in SOURCES}
    plan = plan_actions("Marie Curie won the Nobel Prize.", decomposition, 5, available=available)
    assert plan[0].server == "local-corpus" and plan[0].tool == "search"
    assert [(a.server, a.tool) for a in plan[1 : 1 + len(LIVE)]] == [
        (source.server, source.first_action.tool) for source in LIVE
    ]
    assert plan[1].arguments == {"title": "Marie Curie", "max_sentences": 20}


def test_one_table_says_which_agents_each_backend_uses():
    from mermaid_verifier.config import Settings
    from mermaid_verifier.wiring import BackendPlan, backend_plan

    endpoint = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    assert backend_plan(Settings.from_env({})) == BackendPlan("offline", "offline", False, True)
    assert backend_plan(Settings.from_env({**endpoint, "MERMAID_BACKEND": "llm"})) == BackendPlan(
        "llm", "llm", True, True
    )
    unchecked = Settings.from_env({**endpoint, "MERMAID_BACKEND": "llm", "MERMAID_JUDGE_CHECK": "off"})
    assert backend_plan(unchecked) == BackendPlan("llm", "llm", True, False)
    cascade = Settings.from_env({**endpoint, "MERMAID_BACKEND": "cascade", "MERMAID_JUDGE_CHECK": "off"})
    assert backend_plan(cascade) == BackendPlan("offline", "offline", True, True)  # its offline judge reads the model
