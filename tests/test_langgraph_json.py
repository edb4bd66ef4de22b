"""langgraph.json is valid for LangGraph tooling and points at a factory that builds the graph."""

import importlib
import json
from pathlib import Path

from langgraph_cli.config import validate_config_file

REPO = Path(__file__).resolve().parents[1]


def test_langgraph_json_validates_and_loads_the_graph(tmp_path, monkeypatch):
    config = validate_config_file(REPO / "langgraph.json")
    target = config["graphs"]["mermaid_verifier"]
    module_path, attribute = target.rsplit(":", 1)
    module_name = Path(module_path).with_suffix("").as_posix().lstrip("./").replace("/", ".")
    factory = getattr(importlib.import_module(module_name), attribute)

    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "1", "title": "T", "text": "Some text."}) + "\n")
    monkeypatch.setenv("MERMAID_CORPUS", str(corpus))
    monkeypatch.setenv("MERMAID_CACHE_DIR", str(tmp_path / "cache"))
    graph = factory({})
    assert set(graph.get_graph().nodes) >= {"decompose", "recall", "execute", "judge", "remember"}
    assert list(graph.get_input_jsonschema()["properties"]) == ["claim"]
    assert set(graph.get_output_jsonschema()["properties"]) == {"verdict", "evidence", "trace", "decomposition", "stats"}
