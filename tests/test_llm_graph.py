"""The whole graph through the LLM backend: scripted chat models, the real in-process MCP corpus server,
a scripted stance model. No network."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from mermaid_verifier.agents.llm_decomposer import LLMDecomposer
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import ConfigError, ModelSelfCheckError
from mermaid_verifier.graph import Overrides, Resources, build_graph, judge_llm, keep_offline_label, wire_agents
from mermaid_verifier.models import Label, Stance, Stats, Verdict, result_from_output
from mermaid_verifier.reader.stance import StanceForUncheckedJudge, StanceModel
from mermaid_verifier.tools.toolbox import Toolbox

from .conftest import (
    LLM_ENDPOINT,
    ScriptedStance,
    refusing_stance_model,
)
from .fake_chat import ScriptedChatModel, answer, calls, tool_call
from .llm_graph_kit import DECOMPOSITION, KUBRICK, KUBRICK_RULES, cite, models, run, verdict_json  # noqa: F401

FILM_0 = "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:0"
ENDPOINT = LLM_ENDPOINT


def research_script():
    """Search, then read a page and search again in parallel, then a call written as JSON text, then stop."""
    return [
        calls(
            tool_call("local-corpus__search", {"query": "Stanley Kubrick 2001: A Space Odyssey", "k": 3}),
            text="Search for the film and its director first.",
        ),
        calls(
            tool_call("local-corpus__get_page", {"title": "2001: A Space Odyssey (film)"}),
            tool_call("local-corpus__search", {"query": "Kubrick director film", "k": 2}),
            text="Read the film's page and look for Kubrick as a director.",
        ),
        answer('{"name": "local-corpus__get_page", "arguments": {"title": "Stanley Kubrick", "max_passages": 3}}'),
        answer("The film's page names Kubrick as its director."),
    ]


async def test_the_llm_path_gathers_real_passages_with_multi_step_and_parallel_tool_use(llm_resources):
    chat = models([answer(DECOMPOSITION, (50, 30))], research_script(), [cite("2001: A Space Odyssey (film) (line 0)")])
    resources = llm_resources(ScriptedStance(KUBRICK_RULES), chat)
    in_flight, most = 0, 0
    real_call = resources.toolbox.call

    async def watched_call(server, tool, arguments):
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        try:
            await asyncio.sleep(0.05)
            return await real_call(server, tool, arguments)
        finally:
            in_flight -= 1

    resources.toolbox.call = watched_call
    out = await run(resources, KUBRICK)

    assert [t.subject for t in out["decomposition"].triplets] == ["Stanley Kubrick"]
    trace = out["trace"]
    assert [(s.step, s.action) for s in trace] == [
        (1, "local-corpus.search"),
        (2, "local-corpus.get_page"),
        (2, "local-corpus.search"),
        (3, "local-corpus.get_page"),
        (4, "finish"),
    ]
    assert trace[0].thought == "Search for the film and its director first."
    assert trace[1].thought == trace[2].thought == "Read the film's page and look for Kubrick as a director."
    assert trace[3].thought == "" and trace[3].action_input == {"title": "Stanley Kubrick", "max_passages": 3}
    assert trace[4].thought == "The film's page names Kubrick as its director."
    assert most == 2  # the two calls of step 2 ran at the same time
    assert out["stats"].tool_calls == 4
    assert out["stats"].tool_calls_by_tool == {"local-corpus.search": 2, "local-corpus.get_page": 2}

    evidence = {e.id: e for e in out["evidence"]}
    assert len(evidence) == len(out["evidence"]) == sum(s.new_evidence for s in trace)
    assert {FILM_0, "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:1", "wiki_mini:Stanley_Kubrick:2"} <= set(
        evidence
    )
    film = evidence[FILM_0]
    assert film.text.startswith("2001: A Space Odyssey is a 1968 epic science fiction film")
    assert film.stance == Stance.SUPPORTS and film.stance_probabilities["supports"] == pytest.approx(0.95)
    assert all(e.stance_probabilities and e.trust is not None for e in out["evidence"])

    executor = chat["executor"]
    assert executor.tool_names(0) == ["local-corpus__search", "local-corpus__get_page"]
    spec = executor.calls[0]["tools"][0]["function"]
    assert spec["parameters"] == resources.toolbox.tools["local-corpus"]["search"].inputSchema
    second = executor.received[1]
    assert isinstance(second[2], AIMessage) and isinstance(second[3], ToolMessage)
    assert (
        "[wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:0] 2001: A Space Odyssey (film) (line 0): 2001: A Space"
        in second[3].content
    )
    third = executor.received[2]
    step_two_ids = [c["id"] for c in third[4].tool_calls]
    assert [m.tool_call_id for m in third[5:7]] == step_two_ids and len(step_two_ids) == 2
    fourth = executor.received[3]
    assert fourth[7].tool_calls[0]["name"] == "local-corpus__get_page"  # the JSON text became a real call
    assert "Stanley Kubrick (line 0): Stanley Kubrick (July 26" in fourth[8].content

    verdict = out["verdict"]
    assert verdict.label == Label.SUPPORTS and not verdict.abstained and verdict.cited == [FILM_0]
    cited = next(e for e in out["evidence"] if e.id == FILM_0)
    assert verdict.confidence == pytest.approx(0.9 * cited.trust.reliability, abs=1e-4)
    assert out["stats"].backend == "llm"


async def test_unknown_citations_are_repaired_and_every_call_is_accounted_for(llm_resources):
    chat = models(
        [answer(DECOMPOSITION, (50, 30))],
        research_script(),
        [
            answer(verdict_json("SUPPORTS", 0.9, ["E99", FILM_0]), (180, 30)),
            cite("2001: A Space Odyssey (film) (line 0)", tokens=(220, 50)),
        ],
    )
    resources = llm_resources(ScriptedStance(KUBRICK_RULES), chat, prices=(2.0, 8.0))
    out = await run(resources, KUBRICK)

    repair = chat["judge"].received[1]
    assert isinstance(repair[-2], AIMessage) and "E99" in repair[-2].content
    assert (
        "unknown evidence id(s) E99" in repair[-1].content and "cite only ids from this list: E1," in repair[-1].content
    )
    assert out["verdict"].cited == [FILM_0] and out["verdict"].label == Label.SUPPORTS

    stats = out["stats"]
    # decomposer 1 call (50/30), executor 4 calls (100/20 each), judge 2 calls (180/30 and 220/50)
    assert stats.llm_calls == 7
    assert (stats.prompt_tokens, stats.completion_tokens) == (50 + 400 + 400, 30 + 80 + 80)
    assert stats.cost_usd == pytest.approx((850 * 2.0 + 190 * 8.0) / 1e6)
    assert all(m.remaining == 0 for m in chat.values())


async def test_a_malformed_decomposition_is_repaired_on_the_second_try(llm_resources):
    chat = models(
        [answer("Here you go: Kubrick -> directed -> 2001"), answer(DECOMPOSITION)], [answer("Nothing to search.")]
    )
    out = await run(llm_resources(ScriptedStance({}), chat), KUBRICK)
    assert out["decomposition"].triplets[0].object == "2001: A Space Odyssey"
    repair = chat["decomposer"].received[1][-1].content
    assert "could not be used: Invalid json output: Here you go" in repair
    assert out["verdict"].label == Label.NOT_ENOUGH_INFO and out["verdict"].abstained  # it searched nothing
    assert out["stats"].llm_calls == 3 and chat["judge"].received == []  # no evidence: the judge is not asked


@pytest.mark.parametrize("review", [False, True])
async def test_a_decomposition_malformed_twice_abstains_with_the_reason(llm_resources, review):
    chat = models(
        [answer("Kubrick directed 2001."), answer(json.dumps({"triplets": [], "keywords": [], "entities": []}))]
    )
    resources = llm_resources(ScriptedStance({}), chat)
    graph = build_graph(resources, review=review, checkpointer=InMemorySaver() if review else None)
    try:
        out = await graph.ainvoke({"claim": KUBRICK}, {"configurable": {"thread_id": "d"}})
    finally:
        await resources.aclose()
    if review:  # the abstention goes to the reviewer like any other
        request = out["__interrupt__"][0].value
        assert "could not be decomposed" in request["verdict"]["reason"]
        return
    verdict = out["verdict"]
    assert verdict.abstained and verdict.label == Label.NOT_ENOUGH_INFO and verdict.confidence == 0.0
    assert "could not be decomposed" in verdict.reason and "triplets is empty" in verdict.reason
    assert out["trace"][0].action == "decompose" and out["evidence"] == []
    assert out["stats"].llm_calls == 2 and chat["executor"].received == chat["judge"].received == []


async def test_a_model_that_keeps_calling_tools_stops_at_the_step_budget(llm_resources):
    searches = [
        calls(tool_call("local-corpus__search", {"query": q, "k": 2}), text=f"Try {q}.")
        for q in ("Kubrick", "Space Odyssey", "Clarke screenplay")
    ]
    chat = models([answer(DECOMPOSITION)], searches, [answer(verdict_json("NOT ENOUGH INFO", 0.8, []))])
    out = await run(llm_resources(ScriptedStance({}), chat, max_steps=2), KUBRICK)
    trace = out["trace"]
    assert [s.action for s in trace] == ["local-corpus.search", "local-corpus.search", "stop"]
    assert "step budget exhausted: 2 tool-using step(s) taken" in trace[-1].observation
    assert f"the {len(out['evidence'])} evidence item(s) gathered so far" in trace[-1].observation
    assert out["evidence"] and out["stats"].tool_calls == 2
    assert len(chat["executor"].received) == 2 and chat["executor"].remaining == 1  # never asked a third time
    assert "at most 2 rounds of tool calls" in chat["executor"].received[0][0].content
    assert out["verdict"].label == Label.NOT_ENOUGH_INFO


async def test_cascade_calls_the_llm_only_when_the_offline_verdict_abstains(llm_resources):
    stance = ScriptedStance(KUBRICK_RULES, only_for_claims_with="directed")
    chat = models(
        executor=[
            calls(tool_call("local-corpus__search", {"query": "Stanley Kubrick born Bronx"})),
            answer("The corpus gives his birth year, not his birthplace."),
        ],
        judge=[answer(verdict_json("NOT ENOUGH INFO", 0.9, [], "Nothing mentions the Bronx."))],
    )
    confident = await run(llm_resources(stance, chat, backend="cascade"), KUBRICK)
    assert confident["verdict"].label == Label.SUPPORTS and not confident["verdict"].abstained
    assert confident["stats"].backend == "offline" and confident["stats"].llm_calls == 0
    assert result_from_output(KUBRICK, confident).backend == "offline"
    assert all(m.received == [] for m in chat.values())

    uncertain = await run(
        llm_resources(stance, chat, backend="cascade"), "Stanley Kubrick was born in the Bronx in 1928."
    )
    trace = uncertain["trace"]
    escalation = next(i for i, s in enumerate(trace) if s.action == "cascade.escalate")
    assert escalation > 0 and all(s.action.startswith("local-corpus.") for s in trace[:escalation])
    assert "offline verdict NOT ENOUGH INFO" in trace[escalation].observation
    assert [s.action for s in trace[escalation + 1 :]] == ["local-corpus.search", "finish"]
    first = chat["executor"].received[0][1].content
    assert "Tool calls already made:\n- local-corpus.search" in first  # the LLM continues from the offline round
    assert uncertain["stats"].backend == "llm" and uncertain["stats"].llm_calls == 3
    assert result_from_output("Stanley Kubrick was born in the Bronx in 1928.", uncertain).backend == "llm"
    assert uncertain["stats"].tool_calls == escalation + 1
    assert "Nothing mentions the Bronx." in uncertain["verdict"].reason and "LLM judge" in uncertain["verdict"].reason
    assert chat["decomposer"].received == []  # cascade decomposes offline
    assert trace[escalation].action_input["offline_label"] == "NOT ENOUGH INFO"  # confirmed: the LLM's verdict stands
    assert trace[escalation].action_input["offline_confidence"] is not None


async def test_with_the_check_off_the_llm_path_runs_on_when_the_stance_model_fails_its_self_check(
    llm_resources, tmp_path
):
    broken = StanceForUncheckedJudge(refusing_stance_model(tmp_path / "model"))
    chat = models(
        decomposer=[answer(DECOMPOSITION)], executor=research_script(), judge=[cite("2001: A Space Odyssey (film)")]
    )
    out = await run(llm_resources(broken, chat, judge_check="off"), KUBRICK)
    verdict = out["verdict"]
    assert verdict.label == Label.SUPPORTS and not verdict.abstained
    assert "MERMAID_JUDGE_CHECK=off" in verdict.reason
    assert "failed its self-check" in out["stats"].stance_unavailable  # named in every result
    assert out["evidence"] and all(e.stance_probabilities is None for e in out["evidence"])  # nothing was read


async def test_where_the_stance_model_checks_the_llm_judge_a_failed_self_check_stops_the_run(llm_resources, tmp_path):
    chat = models(decomposer=[answer(DECOMPOSITION)], executor=research_script(), judge=[cite("2001")])
    with pytest.raises(ModelSelfCheckError, match="failed its self-check"):
        await run(llm_resources(StanceModel(refusing_stance_model(tmp_path / "model")), chat), KUBRICK)


def test_only_the_unchecked_llm_judge_gets_a_stance_model_that_may_give_no_readings(tmp_path):
    for backend, check, expected in (
        ("llm", "off", StanceForUncheckedJudge),
        ("llm", "cap", StanceModel),
        ("llm", "strict", StanceModel),
        ("cascade", "off", StanceModel),  # the cascade's offline judge decides with the stance model
        ("offline", "off", StanceModel),
    ):
        settings = Settings.from_env(
            {}, backend=backend, judge_check=check, openai_base_url=ENDPOINT, cache_dir=tmp_path, use_memory=False
        )
        resources = Resources.create(settings, Overrides(toolbox=Toolbox([]), chat_model=models()))
        assert type(resources.stance) is expected, (backend, check)
        assert resources.stance_problem is None


def test_the_judge_check_setting_reaches_the_llm_judge(llm_resources):
    for check in ("strict", "cap", "off"):
        agents = wire_agents(llm_resources(ScriptedStance(KUBRICK_RULES), models(), judge_check=check))
        assert agents.llm_judge is not None and agents.llm_judge.check == check


async def test_in_the_cascade_the_llm_path_confirms_the_offline_label_but_never_overturns_it(llm_resources):
    """The nodes after an escalated claim's LLM judge: an LLM reading that agrees with the stance model on
    the evidence but not with the offline verdict that escalated gives that offline label, abstained."""
    stance = ScriptedStance(KUBRICK_RULES)
    offline = await run(llm_resources(stance, models(), backend="cascade"), KUBRICK)  # evidence to judge
    chat = models(judge=[cite("2001: A Space Odyssey (film)"), cite("2001: A Space Odyssey (film)")])
    resources = llm_resources(stance, chat, backend="cascade")
    agents = wire_agents(resources)
    state = {
        "claim": KUBRICK,
        "evidence": offline["evidence"],
        "decomposition": offline["decomposition"],
        "stats": Stats(backend="llm"),
    }

    async def escalated_from(label: Label) -> dict:
        offline_verdict = Verdict(label=label, confidence=0.41, abstained=True, reason="abstained: not confident")
        judged = await judge_llm(state, agents, then="keep_offline_label")
        assert judged.goto == "keep_offline_label"
        return keep_offline_label(state | judged.update | {"offline_verdict": offline_verdict})

    try:
        overturned = await escalated_from(Label.REFUTES)
        confirmed = await escalated_from(Label.SUPPORTS)
    finally:
        await resources.aclose()
    verdict = overturned["verdict"]
    assert (verdict.label, verdict.abstained, verdict.confidence) == (Label.REFUTES, True, 0.41)
    assert "the LLM path read the claim as SUPPORTS" in verdict.reason and "not overturn it" in verdict.reason
    assert verdict.cited == []
    assert (confirmed["verdict"].label, confirmed["verdict"].abstained) == (Label.SUPPORTS, False)
    assert confirmed["verdict"].cited


async def test_a_reviewer_asking_for_more_continues_the_llm_search(llm_resources):
    chat = models(
        [answer(DECOMPOSITION)],
        [
            calls(tool_call("local-corpus__search", {"query": "Kubrick Bronx", "k": 2})),
            calls(tool_call("local-corpus__get_page", {"title": "Stanley Kubrick"})),
            answer("Still no birthplace."),
        ],
        [answer(verdict_json("NOT ENOUGH INFO", 0.4, [])), answer(verdict_json("NOT ENOUGH INFO", 0.4, []))],
    )
    resources = llm_resources(ScriptedStance({}), chat, max_steps=1)
    graph = build_graph(resources, review=True, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "more"}}
    try:
        paused = await graph.ainvoke({"claim": "Stanley Kubrick was born in the Bronx."}, config)
        assert "__interrupt__" in paused
        again = await graph.ainvoke(Command(resume={"action": "search_more"}), config)
        assert "__interrupt__" in again
        done = await graph.ainvoke(Command(resume={"action": "accept"}), config)
    finally:
        await resources.aclose()
    assert [(s.step, s.action) for s in done["trace"]] == [
        (1, "local-corpus.search"),
        (2, "stop"),
        (3, "local-corpus.get_page"),
        (4, "stop"),
    ]
    second_round = chat["executor"].received[1][1].content
    assert 'Tool calls already made:\n- local-corpus.search {"query": "Kubrick Bronx", "k": 2}' in second_round
    assert done["stats"].tool_calls == 2 and done["stats"].llm_calls == 1 + 2 + 2
    assert chat["executor"].remaining == 1  # the budget of each round was one step


def test_the_llm_backend_without_an_endpoint_is_a_config_error():
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"MERMAID_BACKEND": "llm"})
    message = str(caught.value)
    assert "\n" not in message and "OPENAI_BASE_URL" in message and "OPENAI_API_KEY" in message
    with pytest.raises(ConfigError, match="MERMAID_BACKEND=cascade needs an LLM endpoint"):
        Settings.from_env({"MERMAID_BACKEND": "cascade"})


def test_the_llm_backend_with_a_local_endpoint_needs_no_key(tmp_path):
    settings = Settings.from_env(
        {
            "MERMAID_BACKEND": "llm",
            "OPENAI_BASE_URL": "http://localhost:8080/v1",
            "MERMAID_CACHE_DIR": str(tmp_path),
            "MERMAID_MEMORY": "0",
        }
    )
    resources = Resources.create(settings, Overrides(toolbox=Toolbox([]), stance=ScriptedStance({})))
    assert resources.backend == "llm" and isinstance(wire_agents(resources).decomposer, LLMDecomposer)
    graph = build_graph(resources)
    assert set(graph.get_graph().nodes) == {
        "__start__",
        "decompose",
        "recall",
        "search_llm",
        "judge_llm",
        "fall_back",
        "explain",
        "remember",
        "__end__",
    }
    offline = Resources.create(
        Settings.from_env({"MERMAID_CACHE_DIR": str(tmp_path), "MERMAID_MEMORY": "0"}),
        Overrides(toolbox=Toolbox([]), stance=ScriptedStance({})),
    )
    assert offline.backend == "offline" and offline.chat_models is None


@pytest.mark.parametrize("backend", ["llm", "cascade"])
def test_the_llm_executor_searches_and_weighs_with_the_configured_offline_executor(llm_resources, backend):
    from mermaid_verifier.agents.llm_executor import LLMExecutor

    models = {role: ScriptedChatModel() for role in ("decomposer", "executor", "judge")}
    resources = llm_resources(ScriptedStance({}), models, backend=backend)
    agents = wire_agents(resources)
    llm = agents.llm_executor
    assert isinstance(llm, LLMExecutor)
    offline = llm.offline
    # one offline executor, configured once: stop threshold and topicality included
    assert offline.topicality == agents.judge_config.topicality
    assert offline.stop_threshold == agents.judge_config.stop_threshold and llm.toolbox is resources.toolbox
    assert agents.offline_executor is offline
