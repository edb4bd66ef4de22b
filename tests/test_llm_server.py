"""Integration tests against a real OpenAI-compatible server (never in CI): skipped unless
``MERMAID_TEST_LLM_URL`` names one, e.g. the llama.cpp server ``scripts/local_llm.py serve`` starts:

    MERMAID_TEST_LLM_URL=http://127.0.0.1:8765/v1 python -m pytest tests/test_llm_server.py -v

A small local model answers slowly (tens of seconds per request on 2 cores) and not always well: these
tests check that the path works end to end — real tool calls, real structured outputs, real errors —
not the quality of the answers (``bench/llm_backends.py`` measures that).
"""

from __future__ import annotations

import os
import socket

import pytest
from langchain_core.messages import HumanMessage

from mermaid_verifier.agents.chat_models import chat_model_factory
from mermaid_verifier.agents.judge import JudgeConfig
from mermaid_verifier.agents.llm_decomposer import LLMDecomposer
from mermaid_verifier.agents.llm_judge import LLMJudge
from mermaid_verifier.agents.model_calls import ainvoke_model
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import LLMServiceError
from mermaid_verifier.graph import open_verifier
from mermaid_verifier.models import Evidence, Label, SourceKind
from mermaid_verifier.weighing.scoring import ReliabilityConfig, assess_trust

from .conftest import WIKI_MINI

URL = os.environ.get("MERMAID_TEST_LLM_URL")
MODEL = os.environ.get("MERMAID_TEST_LLM_MODEL", "local")
pytestmark = [
    pytest.mark.llm_server,
    pytest.mark.skipif(
        not URL,
        reason="no LLM server configured: set MERMAID_TEST_LLM_URL (python -m scripts.local_llm serve starts one)",
    ),
]
KUBRICK = "Stanley Kubrick directed 2001: A Space Odyssey."


def settings(tmp_path, **overrides) -> Settings:
    values = (
        dict(
            corpora=(WIKI_MINI,),
            sources=("local",),
            cache_dir=tmp_path / "cache",
            use_memory=False,
            backend="llm",
            openai_base_url=URL,
            llm_model=MODEL,
            llm_timeout_s=300.0,
        )
        | overrides
    )
    return Settings.from_env({}, **values)


def model(tmp_path, role: str = "decomposer", **overrides):
    return chat_model_factory(settings(tmp_path, **overrides))(role)


async def test_decomposition_is_structured_output_the_server_accepts(tmp_path):
    decomposer = LLMDecomposer(model(tmp_path))  # json_schema first, as configured by default
    decomposition = await decomposer.adecompose(KUBRICK)
    assert decomposition.triplets and decomposition.triplets[0].subject
    assert any("Kubrick" in e for e in decomposition.entities + decomposition.keywords)
    assert decomposer.ask.method in ("json_schema", "json_object", "function_calling")


async def test_a_full_react_run_makes_real_tool_calls(tmp_path):
    async with open_verifier(settings(tmp_path)) as verifier:
        out = await verifier.ainvoke({"claim": KUBRICK})
    stats = out["stats"]
    assert out.get("llm_failure") is None and stats.tool_calls >= 1 and stats.llm_tool_turns >= 1
    assert out["evidence"] and stats.prompt_tokens > 0 and stats.completion_tokens > 0
    assert out["verdict"].reason


async def test_the_judge_answers_with_a_cited_structured_verdict(tmp_path):
    now = 1_700_000_000.0
    item = Evidence(
        id="c:Film:0",
        source="local-corpus",
        source_kind=SourceKind.LOCAL_CORPUS,
        retrieved_at=now,
        title="2001: A Space Odyssey (film)",
        text="2001: A Space Odyssey is a 1968 science fiction film produced and directed by Stanley Kubrick.",
        stance_probabilities={"supports": 0.95, "refutes": 0.01, "neutral": 0.04},
    )
    evidence = assess_trust([item], ReliabilityConfig(), now)
    verdict = await LLMJudge(model(tmp_path, "judge"), JudgeConfig.bundled()).judge(
        KUBRICK, evidence, ["Stanley Kubrick", "2001: A Space Odyssey"]
    )
    assert verdict.label in set(Label)
    assert verdict.reason and ("LLM judge" in verdict.reason or "stance model's reading" in verdict.reason)


async def test_a_prompt_over_the_context_window_is_a_context_overflow(tmp_path):
    with pytest.raises(LLMServiceError) as caught:
        await ainvoke_model(model(tmp_path), [HumanMessage("ocean " * 40000)])
    assert caught.value.context_overflow


async def test_a_request_that_outlives_its_timeout_is_reported(tmp_path):
    slow = model(tmp_path, llm_timeout_s=0.05, llm_retries=0)
    with pytest.raises(LLMServiceError, match="Timeout|timed out"):
        await ainvoke_model(slow, [HumanMessage("Write a long story about the sea. " * 20)])


async def test_a_server_that_is_down_is_a_service_error(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = model(tmp_path, openai_base_url=f"http://127.0.0.1:{port}/v1", llm_retries=0)
    with pytest.raises(LLMServiceError, match="Connection"):
        await ainvoke_model(down, [HumanMessage("Hello")])
