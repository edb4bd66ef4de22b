"""Human review: an uncertain verdict pauses the graph, and resumes from its checkpoint."""

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from mermaid_verifier.graph import build_graph
from mermaid_verifier.models import Label

from .conftest import ScriptedStance

UNSETTLED = "Stanley Kubrick was born in the Bronx in 1928."
SETTLED = "Stanley Kubrick directed 2001: A Space Odyssey."


@pytest.fixture
def reviewed_graph(make_resources):
    resources = make_resources(
        ScriptedStance({"directed by Stanley Kubrick": "supports"}, only_for_claims_with="directed"),
        use_memory=False,
        max_steps=2,
    )
    judge_config = resources.overrides.judge_config
    assert judge_config is not None
    resources.overrides = resources.overrides.replace(
        judge_config=judge_config.model_copy(update={"abstain_below": 0.75})
    )
    yield build_graph(resources, review=True, checkpointer=InMemorySaver())


async def test_an_abstention_pauses_with_what_the_reviewer_needs(reviewed_graph):
    config = {"configurable": {"thread_id": "t1"}}
    paused = await reviewed_graph.ainvoke({"claim": UNSETTLED}, config)
    assert "__interrupt__" in paused, paused.get("verdict")
    [request] = paused["__interrupt__"]
    assert request.value["claim"] == UNSETTLED
    assert request.value["verdict"]["abstained"] is True and request.value["searches_so_far"] == 2

    done = await reviewed_graph.ainvoke(Command(resume={"action": "accept", "note": "checked"}), config)
    assert done["verdict"].abstained is False and "accepted by a reviewer (checked)" in done["verdict"].reason
    assert done["verdict"].label == Label.NOT_ENOUGH_INFO


async def test_override_sets_the_label(reviewed_graph):
    config = {"configurable": {"thread_id": "t2"}}
    await reviewed_graph.ainvoke({"claim": UNSETTLED}, config)
    done = await reviewed_graph.ainvoke(Command(resume={"action": "override", "label": "REFUTES"}), config)
    assert done["verdict"].label == Label.REFUTES and done["verdict"].confidence == 1.0
    assert "by a reviewer" in done["verdict"].reason and "the judge said NOT ENOUGH INFO" in done["verdict"].reason


async def test_search_more_continues_the_trace_then_asks_again(reviewed_graph):
    config = {"configurable": {"thread_id": "t3"}}
    await reviewed_graph.ainvoke({"claim": UNSETTLED}, config)
    again = await reviewed_graph.ainvoke(Command(resume={"action": "search_more"}), config)
    request = again["__interrupt__"][0].value
    assert request["searches_so_far"] == 4  # two more steps, numbered on from the first round
    state = await reviewed_graph.aget_state(config)
    assert [s.step for s in state.values["trace"]] == [1, 2, 3, 4]
    assert len({(s.action, str(s.action_input)) for s in state.values["trace"]}) == 4  # nothing repeated
    done = await reviewed_graph.ainvoke(Command(resume={"action": "accept"}), config)
    assert done["stats"].tool_calls == 4


async def test_a_confident_verdict_does_not_pause(reviewed_graph):
    done = await reviewed_graph.ainvoke({"claim": SETTLED}, {"configurable": {"thread_id": "t4"}})
    assert "__interrupt__" not in done and done["verdict"].label == Label.SUPPORTS and not done["verdict"].abstained


def test_an_override_without_a_label_is_refused():
    from pydantic import ValidationError

    from mermaid_verifier.review import ReviewDecision

    with pytest.raises(ValidationError, match="needs a label"):
        ReviewDecision(action="override")
