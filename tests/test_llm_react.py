"""The ReAct executor's habits with models that slip, and failures of the LLM endpoint: scripted chat
models, the real in-process MCP corpus server, a scripted stance model. No network."""

from __future__ import annotations

import httpx2
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from mermaid_verifier.agents.judge import JudgeConfig, decide
from mermaid_verifier.agents.llm_executor import tool_resolver
from mermaid_verifier.agents.llm_judge import LLMJudge
from mermaid_verifier.agents.tool_text import json_values, tool_calls_from_content
from mermaid_verifier.models import Evidence, Label, SourceKind
from mermaid_verifier.weighing.scoring import ReliabilityConfig, assess_trust

from .conftest import ScriptedStance
from .fake_chat import ScriptedChatModel, answer, calls, tool_call
from .llm_graph_kit import DECOMPOSITION, KUBRICK, KUBRICK_RULES, cite, models, run, verdict_json

ROUTES = {"local-corpus__search": ("local-corpus", "search"), "local-corpus__get_page": ("local-corpus", "get_page")}
SEARCH = {"name": "local-corpus__search", "args": {"query": "Kubrick"}}


# ----------------------------------------------------------------------------- calls written as text


@pytest.mark.parametrize(
    "content",
    [
        # doubled braces, copied from a template
        '{{"name": "local-corpus__search", "arguments": {{"query": "Kubrick"}}}}',
        # an object spread over lines, with prose before and after
        'I will search first.\n{\n  "name": "local-corpus__search",\n  "arguments": {\n    "query": "Kubrick"\n  }\n}\nThen read.',
        # Python literals instead of JSON
        "{'name': 'local-corpus__search', 'arguments': {'query': 'Kubrick'}}",
        # ReAct-style keys
        '{"action": "local-corpus.search", "action_input": {"query": "Kubrick"}}',
        '{"tool": "local-corpus__search", "tool_input": {"query": "Kubrick"}}',
        # the function named as a string, arguments as a JSON string
        '{"function": "local-corpus__search", "arguments": "{\\"query\\": \\"Kubrick\\"}"}',
        # a fence without a language, the object after a sentence that itself holds braces
        'Use {curly} braces?\n```\n{"name": "local-corpus__search", "arguments": {"query": "Kubrick"}}\n```',
    ],
)
def test_every_written_form_of_a_call_is_read(content):
    [call] = tool_calls_from_content(content, tool_resolver(ROUTES))
    assert (call["name"], call["args"]) == ("local-corpus__search", {"query": "Kubrick"})


def test_several_objects_in_prose_are_all_found_in_order():
    text = (
        'First {"name": "local-corpus__search", "arguments": {"query": "a"}} and then\n'
        '{"name": "local-corpus__get_page", "arguments": {"title": "B"}}.'
    )
    assert [v["name"] for v in json_values(text)] == ["local-corpus__search", "local-corpus__get_page"]
    assert json_values("no JSON here, only [brackets] and {braces}") == []


# ----------------------------------------------------------------------------- the loop


async def test_the_tools_are_offered_with_an_explicit_tool_choice(llm_resources):
    chat = models([answer(DECOMPOSITION)], [answer("Nothing to search.")], [cite("x")])
    await run(llm_resources(ScriptedStance({}), chat), KUBRICK)
    assert chat["executor"].calls[0]["tool_choice"] == "auto"


async def test_a_repeated_call_is_not_run_again_and_two_repeating_steps_end_the_search(llm_resources):
    def repeat():
        return calls(tool_call(SEARCH["name"], {"query": "  kubrick "}))  # same call, other spacing and case

    chat = models(
        [answer(DECOMPOSITION)],
        [calls(tool_call(**SEARCH)), repeat(), repeat(), answer("never reached")],
        [cite("Stanley Kubrick")],
    )
    resources = llm_resources(ScriptedStance(KUBRICK_RULES), chat)
    out = await run(resources, KUBRICK)
    trace = [(s.step, s.action) for s in out["trace"]]
    assert trace == [(1, "local-corpus.search"), (2, "local-corpus.search"), (3, "local-corpus.search"), (3, "stop")]
    assert out["stats"].tool_calls == 1  # the repeats never reached the server
    assert (out["stats"].llm_tool_turns, out["stats"].llm_unreadable_turns) == (3, 0)
    assert out["trace"][1].observation.startswith("already done in step 1")
    assert "repeated earlier calls in 2 steps" in out["trace"][3].observation
    assert chat["executor"].remaining == 1
    told = chat["executor"].received[2][-1]
    assert isinstance(told, ToolMessage) and "already done in step 1" in told.content


async def test_earlier_observations_are_shortened_so_the_prompt_stays_short(llm_resources):
    chat = models(
        [answer(DECOMPOSITION)],
        [
            calls(tool_call(**SEARCH)),
            calls(tool_call("local-corpus__get_page", {"title": "Stanley Kubrick"})),
            answer("Done."),
        ],
        [cite("Stanley Kubrick")],
    )
    out = await run(llm_resources(ScriptedStance(KUBRICK_RULES), chat), KUBRICK)
    second, third = chat["executor"].received[1], chat["executor"].received[2]
    full = second[-1].content
    assert isinstance(second[-1], ToolMessage) and "passage(s):" in full and len(full) > 200
    shortened = third[3]
    assert shortened.tool_call_id == second[-1].tool_call_id
    assert shortened.content.startswith("(earlier result, shortened)") and len(shortened.content) < len(full)
    ids = [e.id for e in out["evidence"] if e.id in full]
    assert ids and all(i in shortened.content for i in ids[:1])  # the ids stay citable
    assert isinstance(third[-1], ToolMessage) and not third[-1].content.startswith("(earlier")  # newest kept whole


async def test_an_unreadable_call_is_asked_for_again_once_then_the_reply_ends_the_search(llm_resources):
    broken = 'Calling local-corpus__search with {"query": "Kubrick"'  # unclosed JSON
    chat = models([answer(DECOMPOSITION)], [answer(broken), answer(broken)], [cite("x")])
    out = await run(llm_resources(ScriptedStance({}), chat), KUBRICK)
    repair = chat["executor"].received[1]
    assert isinstance(repair[-2], AIMessage) and repair[-2].content == broken
    assert isinstance(repair[-1], HumanMessage) and "could not be read as a tool call" in repair[-1].content
    [finish] = out["trace"]
    assert finish.action == "finish" and finish.observation == f"the model ended the search: {broken}"
    assert (out["stats"].llm_tool_turns, out["stats"].llm_unreadable_turns) == (0, 2)


async def test_a_plain_summary_ends_the_search_and_the_trace_quotes_it(llm_resources):
    chat = models([answer(DECOMPOSITION)], [answer("The film is by Kubrick, no search needed.")], [cite("x")])
    out = await run(llm_resources(ScriptedStance({}), chat), KUBRICK)
    assert out["trace"][-1].observation == "the model ended the search: The film is by Kubrick, no search needed."
    assert len(chat["executor"].received) == 1  # no repair for plain prose


# ----------------------------------------------------------------------------- endpoint failures


def server_error(status: int = 500) -> openai.APIStatusError:
    request = httpx2.Request("POST", "http://127.0.0.1:8765/v1/chat/completions")
    response = httpx2.Response(status, request=request)
    return openai.InternalServerError("Internal Server Error", response=response, body=None)


async def test_an_endpoint_failure_mid_search_abstains_names_it_and_keeps_the_evidence(llm_resources):
    chat = models([answer(DECOMPOSITION)], [calls(tool_call(**SEARCH)), server_error()], [])
    out = await run(llm_resources(ScriptedStance(KUBRICK_RULES), chat), KUBRICK)
    assert [s.action for s in out["trace"]] == ["local-corpus.search", "llm.error"]
    assert out["evidence"], "the passages found before the failure are kept"
    verdict = out["verdict"]
    assert verdict.abstained and "the LLM endpoint failed (LLM endpoint error (HTTP 500)" in verdict.reason
    assert "stance model's reading" in verdict.reason
    assert out["llm_failure"].startswith("LLM endpoint error (HTTP 500)")
    assert not chat["judge"].received, "the judge is not asked once the endpoint failed"


async def test_an_endpoint_failure_in_the_judge_or_decomposer_abstains_too(llm_resources):
    chat = models([answer(DECOMPOSITION)], [calls(tool_call(**SEARCH)), answer("Done.")], [server_error(502)])
    out = await run(llm_resources(ScriptedStance(KUBRICK_RULES), chat), KUBRICK)
    assert chat["judge"].received and out["evidence"]
    assert out["verdict"].abstained and "HTTP 502" in out["verdict"].reason and out["llm_failure"]

    chat = models([openai.APIConnectionError(request=httpx2.Request("POST", "http://127.0.0.1:8765/v1"))], [], [])
    out = await run(llm_resources(ScriptedStance({}), chat), KUBRICK)
    assert out["verdict"].abstained and "could not be decomposed" in out["verdict"].reason
    assert "APIConnectionError" in out["llm_failure"]


# ----------------------------------------------------------------------------- judge cross-check

NOW = 1_700_000_000.0


def _items(supports: float, refutes: float) -> list[Evidence]:
    item = Evidence(
        id="c:Film:0",
        source="local-corpus",
        source_kind=SourceKind.LOCAL_CORPUS,
        retrieved_at=NOW,
        title="2001: A Space Odyssey (film)",
        text="2001 is a film directed by Stanley Kubrick.",
        stance_probabilities={"supports": supports, "refutes": refutes, "neutral": 1 - supports - refutes},
    )
    return assess_trust([item], ReliabilityConfig(), NOW)


ENTITIES = ["Stanley Kubrick", "2001: A Space Odyssey"]
CONFIG = JudgeConfig(abstain_below=0.5)


async def test_an_llm_verdict_against_a_confident_stance_reading_abstains():
    evidence = _items(0.95, 0.01)
    assert decide(evidence, CONFIG, ENTITIES, KUBRICK).label == Label.SUPPORTS
    model = ScriptedChatModel(script=[answer(verdict_json("REFUTES", 0.99, ["E1"]))])
    verdict = await LLMJudge(model, CONFIG).judge(KUBRICK, evidence, ENTITIES)
    assert verdict.abstained and verdict.label == Label.SUPPORTS  # the stance model's label is kept
    assert "the LLM judge said REFUTES" in verdict.reason
    assert "contradicts a confident stance-model verdict" in verdict.reason
    assert "gives REFUTES only 0.01" in verdict.reason  # the cap on the LLM's confidence


async def test_with_the_check_at_cap_a_contradiction_is_capped_but_not_an_abstention_by_itself():
    evidence = _items(0.95, 0.01)
    stance = decide(evidence, CONFIG, ENTITIES, KUBRICK)
    assert stance.label == Label.SUPPORTS and not stance.abstained
    capped = await LLMJudge(
        ScriptedChatModel(script=[answer(verdict_json("REFUTES", 0.99, ["E1"]))]), CONFIG, check="cap"
    ).judge(KUBRICK, evidence, ENTITIES)
    assert "caps the confidence" in capped.reason
    assert "contradicts a confident stance-model verdict" not in capped.reason
    assert capped.abstained and "is below 0.50" in capped.reason  # the capped confidence (0.01) decides
    strict = await LLMJudge(
        ScriptedChatModel(script=[answer(verdict_json("REFUTES", 0.99, ["E1"]))]), CONFIG, check="strict"
    ).judge(KUBRICK, evidence, ENTITIES)
    assert strict.abstained and strict.label == Label.SUPPORTS
    assert "contradicts a confident stance-model verdict" in strict.reason


async def test_with_the_check_off_the_llm_verdict_stands_on_its_own_confidence():
    evidence = _items(0.95, 0.01)  # the stance model reads it as confidently supporting
    model = ScriptedChatModel(script=[answer(verdict_json("REFUTES", 0.99, ["E1"]))])
    verdict = await LLMJudge(model, CONFIG, check="off").judge(KUBRICK, evidence, ENTITIES)
    assert verdict.label == Label.REFUTES and not verdict.abstained
    assert verdict.confidence == pytest.approx(0.99 * evidence[0].trust.reliability)
    assert "caps the confidence" not in verdict.reason and "MERMAID_JUDGE_CHECK=off" in verdict.reason
    low = await LLMJudge(
        ScriptedChatModel(script=[answer(verdict_json("REFUTES", 0.3, ["E1"]))]), CONFIG, check="off"
    ).judge(KUBRICK, evidence, ENTITIES)
    assert low.abstained and low.label == Label.REFUTES  # its own label, abstained: the stance label is not used
    assert "is below" in low.reason


async def test_an_agreeing_llm_verdict_keeps_its_confidence():
    evidence = _items(0.95, 0.01)
    model = ScriptedChatModel(script=[answer(verdict_json("SUPPORTS", 0.9, ["E1"]))])
    verdict = await LLMJudge(model, CONFIG).judge(KUBRICK, evidence, ENTITIES)
    assert not verdict.abstained and verdict.confidence == pytest.approx(0.9 * evidence[0].trust.reliability)
    assert "caps the confidence" not in verdict.reason
