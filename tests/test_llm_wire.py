"""What goes over the wire: the exact Chat Completions bodies the code sends through the real ``openai``
client, to a stub server on 127.0.0.1 that answers with responses recorded from a real llama.cpp server
(``tests/fixtures/llama_cpp/``, recorded by ``record.py`` there: Qwen2.5-Coder-1.5B-Instruct Q4_K_M
behind llama-cpp-python 0.3.36). No fake chat model, no network."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from mermaid_verifier.agents.chat_models import chat_model_factory, compatible_payload
from mermaid_verifier.agents.llm_decomposer import ClaimDecomposition, LLMDecomposer
from mermaid_verifier.agents.structured import StructuredCaller
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import LLMServiceError
from mermaid_verifier.graph import open_verifier
from mermaid_verifier.models import Label

from .conftest import WIKI_MINI
from .llm_stub import Reply, StubServer, recorded, replies_from

KUBRICK = "Stanley Kubrick directed 2001: A Space Odyssey."


def settings_for(url: str, tmp_path, **overrides) -> Settings:
    return Settings.from_env(
        {},
        corpora=(WIKI_MINI,),
        sources=("local",),
        cache_dir=tmp_path / "cache",
        use_memory=False,
        backend="llm",
        openai_base_url=url,
        llm_model="local",
        **overrides,
    )


def kinds(body: dict) -> str:
    if body.get("response_format"):
        return body["response_format"]["type"]
    return "tools" if body.get("tools") else "plain"


@pytest.fixture(scope="module")
def replayed_run(tmp_path_factory):
    """The LLM backend verifying one claim against the recorded llama.cpp answers (run once per module)."""
    tmp_path = tmp_path_factory.mktemp("wire")

    async def go():
        with StubServer(replies_from("kubrick_llm_graph")) as stub:
            async with open_verifier(settings_for(stub.url, tmp_path)) as verifier:
                return stub, await verifier.ainvoke({"claim": KUBRICK})

    return asyncio.run(go())


def test_every_request_caps_the_answer_with_max_tokens_and_never_sends_null_content(replayed_run):
    stub, _ = replayed_run
    assert len(stub.requests) == len(recorded("kubrick_llm_graph")["exchanges"])
    for body in stub.requests:
        assert body["max_tokens"] == Settings().llm_max_tokens and "max_completion_tokens" not in body
        assert all(message.get("content") is not None for message in body["messages"])
    tool_turns = [m for body in stub.requests for m in body["messages"] if m.get("tool_calls")]
    assert tool_turns and all(m["content"] == "" for m in tool_turns)  # the call was the text: "" not null


def test_structured_output_falls_back_from_json_schema_to_json_object_with_the_schema(replayed_run):
    stub, out = replayed_run
    sent = [kinds(body) for body in stub.requests]
    statuses = [e.status for e in stub.exchanges]
    # the decomposer: json_schema refused with llama.cpp's HTTP 500 (retried once), then json_object with the schema
    assert sent[:3] == ["json_schema", "json_schema", "json_object"] and statuses[:3] == [500, 500, 200]
    schema = stub.requests[2]["response_format"]["schema"]
    assert schema["properties"].keys() == {"triplets", "keywords", "entities"}
    # the judge is a separate caller and finds the same
    assert sent[-3:] == ["json_schema", "json_schema", "json_object"]
    assert stub.requests[-1]["response_format"]["schema"]["properties"].keys() >= {"label", "confidence", "cited"}
    # the judge's json_object reply was parsed, citation included: its reading is in the reason whether the verdict
    # stands or abstains (the shipped stance model reads the screenplay sentence as refuting, a conflict)
    verdict = out["verdict"]
    assert verdict.label == Label.SUPPORTS
    assert "[LLM judge: SUPPORTS at 1.00 × mean reliability" in verdict.reason
    assert "of 1 cited item(s)" in verdict.reason


def test_the_executor_offers_the_tools_with_tool_choice_auto_and_reads_the_calls_written_as_text(replayed_run):
    stub, out = replayed_run
    executor_requests = [body for body in stub.requests if body.get("tools")]
    assert executor_requests
    for body in executor_requests:
        assert body["tool_choice"] == "auto"
        assert [t["function"]["name"] for t in body["tools"]] == ["local-corpus__search", "local-corpus__get_page"]
    # llama.cpp's template answers tool calls as JSON text in "content", not as tool_calls
    first = next(e for e in stub.exchanges if e.request.get("tools"))
    message = first.response["choices"][0]["message"]
    assert not message.get("tool_calls") and '"name": "local-corpus__search"' in message["content"]
    assert out["stats"].tool_calls >= 1
    searched = [s for s in out["trace"] if s.action.startswith("local-corpus.")]
    assert searched and all(s.action_input for s in searched)


def test_an_attribution_the_claim_does_not_name_is_dropped(replayed_run):
    stub, out = replayed_run
    answered = stub.exchanges[2].response["choices"][0]["message"]["content"]
    assert "According to Wikipedia" in answered  # what the small model really wrote
    assert all(t.attribution is None for t in out["decomposition"].triplets)


def test_the_usage_the_server_reports_is_counted(replayed_run):
    stub, out = replayed_run
    reported = [e.response["usage"] for e in stub.exchanges if e.status == 200]
    assert out["stats"].llm_calls == len(reported)
    assert out["stats"].prompt_tokens == sum(u["prompt_tokens"] for u in reported)
    assert out["stats"].completion_tokens == sum(u["completion_tokens"] for u in reported)


# ----------------------------------------------------------------------------- error paths


def error(status: int) -> Reply:
    """llama.cpp's recorded answer with that status (error_table.json)."""
    exchange = next(e for e in recorded("error_table")["exchanges"] if e["status"] == status)
    return Reply(exchange["status"], exchange["response"])


def test_the_recorded_server_refuses_null_content_and_the_payload_never_carries_it():
    refused = recorded("error_table")["exchanges"][1]
    assert refused["status"] == 500 and refused["request"]["messages"][2]["content"] is None
    sent = compatible_payload({"messages": [dict(m) for m in refused["request"]["messages"]]}, "local")
    assert sent["messages"][2]["content"] == ""
    assert compatible_payload({"messages": [], "max_completion_tokens": 9}, "local") == {
        "messages": [],
        "max_tokens": 9,
    }
    assert compatible_payload({"messages": [], "max_completion_tokens": 9}, "o3-mini") == {
        "messages": [],
        "max_completion_tokens": 9,
    }  # OpenAI's o-series take only this one


async def test_a_context_overflow_is_reported_as_such_and_not_mistaken_for_a_missing_mode(tmp_path):
    with StubServer([error(400)]) as stub:
        model = chat_model_factory(settings_for(stub.url, tmp_path))("decomposer")
        caller = StructuredCaller(model, ClaimDecomposition, method="json_object")
        with pytest.raises(LLMServiceError) as caught:
            await caller([], repair=str)
    assert caught.value.context_overflow and caught.value.status_code == 400
    assert "maximum context length is 8192 tokens" in str(caught.value)
    assert caller.method == "json_object" and len(stub.requests) == 1  # no fallback, no retry


async def test_a_server_that_does_not_answer_in_time_is_retried_once_then_reported(tmp_path):
    slow = recorded("kubrick_llm_graph")["exchanges"][2]
    with StubServer([Reply(200, slow["response"], delay=3.0)] * 2) as stub:
        settings = settings_for(stub.url, tmp_path, llm_timeout_s=0.5, llm_retries=1)
        decomposer = LLMDecomposer(chat_model_factory(settings)("decomposer"), method="json_object")
        started = time.monotonic()
        with pytest.raises(LLMServiceError, match="Timeout|timed out"):
            await decomposer.adecompose(KUBRICK)
    assert len(stub.requests) == 2 and time.monotonic() - started < 6


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_a_server_that_is_down_makes_the_claim_abstain_with_the_reason(tmp_path):
    settings = settings_for(f"http://127.0.0.1:{closed_port()}/v1", tmp_path, llm_retries=0)
    async with open_verifier(settings) as verifier:
        out = await verifier.ainvoke({"claim": KUBRICK})
    assert out["verdict"].abstained and "could not be decomposed" in out["verdict"].reason
    assert "Connection error" in out["llm_failure"]


def test_two_event_loops_in_one_process_each_get_a_working_client(tmp_path):
    """LangChain's process-wide default client would be bound to the first loop ("Event loop is closed")."""
    answer = recorded("kubrick_llm_graph")["exchanges"][2]
    with StubServer([Reply(200, answer["response"])] * 2) as stub:
        settings = settings_for(stub.url, tmp_path)

        async def decompose_once():
            models = chat_model_factory(settings)
            try:
                return await LLMDecomposer(models("decomposer"), method="json_object").adecompose(KUBRICK)
            finally:
                await models.aclose()

        first, second = asyncio.run(decompose_once()), asyncio.run(decompose_once())
    assert first == second and first.triplets and len(stub.requests) == 2
