"""langgraph.json is valid for LangGraph tooling and points at a factory that builds the graph the way
``langgraph dev`` uses it: entered per use, never blocking the event loop, leaving no process behind."""

import asyncio
import importlib
import json
import os
import tempfile
from pathlib import Path

import pytest
from blockbuster import blockbuster_ctx
from langgraph_cli.config import validate_config_file

from .processes import live_processes

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def factory(tmp_path, monkeypatch):
    config = validate_config_file(REPO / "langgraph.json")
    target = config["graphs"]["mermaid_verifier"]
    module_path, attribute = target.rsplit(":", 1)
    module_name = Path(module_path).with_suffix("").as_posix().lstrip("./").replace("/", ".")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        json.dumps({"id": "1", "title": "Mount Everest", "text": "Mount Everest is in the Himalayas."}) + "\n"
    )
    monkeypatch.setenv("MERMAID_CORPUS", str(corpus))
    monkeypatch.setenv("MERMAID_SOURCES", "local")
    monkeypatch.setenv("MERMAID_CACHE_DIR", str(tmp_path / "cache"))
    # As in a fresh server process, the temporary directory is not looked up yet (pytest's tmp_path did it here).
    monkeypatch.setattr(tempfile, "tempdir", None)
    return getattr(importlib.import_module(module_name), attribute)


def children() -> set[int]:
    """Live child processes of this test process."""
    return {process.pid for process in live_processes() if process.parent == os.getpid()}


async def test_the_factory_yields_the_graph_for_inspection_without_starting_anything(factory):
    before = children()
    with blockbuster_ctx():
        async with factory({"configurable": {"__is_for_execution__": False}}) as graph:
            assert set(graph.get_graph().nodes) >= {"decompose", "recall", "search", "judge", "explain", "remember"}
            assert list(graph.get_input_jsonschema()["properties"]) == ["claim"]
            assert set(graph.get_output_jsonschema()["properties"]) == {
                "verdict",
                "evidence",
                "trace",
                "decomposition",
                "stats",
                "llm_failure",
            }
            assert await asyncio.to_thread(children) == before


async def test_a_run_through_the_factory_never_blocks_the_loop_and_leaves_no_process(factory):
    before = children()
    with blockbuster_ctx():  # what langgraph dev enforces: a blocking call in the event loop raises
        async with factory({"configurable": {"__is_for_execution__": True}}) as graph:
            during = await asyncio.to_thread(children) - before
            out = await graph.ainvoke({"claim": "Mount Everest is in the Himalayas."})
            assert out["stats"].tool_calls >= 1
    assert during, "the run had its own corpus server"
    assert out["evidence"] and out["evidence"][0].title == "Mount Everest"
    assert children() == before, "the corpus server of the run is gone"


async def test_the_run_configuration_overrides_settings_by_name(factory):
    config = {"configurable": {"__is_for_execution__": True, "search_k": 1, "thread_id": "t-1"}}
    async with factory(config) as graph:
        out = await graph.ainvoke({"claim": "Mount Everest is in the Himalayas."})
    searches = [s.action_input for s in out["trace"] if s.action == "local-corpus.search"]
    assert searches and all(arguments["k"] == 1 for arguments in searches)  # the default is 5


async def test_the_grounding_graph_runs_from_its_factory_without_blocking_the_loop(tmp_path, monkeypatch):
    config = validate_config_file(REPO / "langgraph.json")
    module_path, attribute = config["graphs"]["mermaid_verifier_grounding"].rsplit(":", 1)
    module_name = Path(module_path).with_suffix("").as_posix().lstrip("./").replace("/", ".")
    factory = getattr(importlib.import_module(module_name), attribute)
    monkeypatch.setenv("MERMAID_CACHE_DIR", str(tmp_path / "cache"))
    async with factory({"configurable": {"__is_for_execution__": False}}) as graph:
        assert set(graph.get_graph().nodes) >= {"extract", "ground", "sentences"}
        assert list(graph.get_input_jsonschema()["properties"]) == ["text", "documents"]
    with blockbuster_ctx():
        async with factory({"configurable": {"__is_for_execution__": True}}) as graph:
            out = await graph.ainvoke(
                {
                    "text": "Mount Everest is in the Himalayas.",
                    "documents": [{"name": "everest.txt", "text": "Mount Everest is in the Himalayas, in Nepal."}],
                }
            )
    (sentence,) = out["result"].sentences
    assert sentence.label == "supported" and sentence.passage.name == "everest.txt"
