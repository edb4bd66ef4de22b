"""The verification graph end to end: real decomposer, real MCP corpus server, scripted stance model."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from mermaid_verifier.agents.executor import OfflineExecutor
from mermaid_verifier.config import Settings
from mermaid_verifier.graph import Overrides, build_graph, open_verifier
from mermaid_verifier.models import Decomposition, Label, Stance, Triplet
from mermaid_verifier.tools.toolbox import ToolOutcome

from .conftest import WIKI_MINI, ScriptedStance
from .graph_kit import verify  # noqa: F401

KUBRICK = "Stanley Kubrick directed 2001: A Space Odyssey."
KUBRICK_RULES = {"directed by Stanley Kubrick": "supports"}


async def test_supported_claim_stops_at_decisive_evidence(make_resources):
    resources = make_resources(ScriptedStance(KUBRICK_RULES), use_memory=False)
    try:
        out = await verify(resources, KUBRICK)
    finally:
        await resources.aclose()
    assert out["verdict"].label == Label.SUPPORTS
    # two fixture sentences say "directed by Stanley Kubrick" (2001 and The Shining), so each has the
    # other's agreement: C = 0.45*0.70 (local corpus) + 0.40*1.0 (just retrieved) + 0.15*1.0 = 0.865
    assert out["verdict"].confidence == pytest.approx(0.95 * 0.865, abs=1e-4)
    assert not out["verdict"].abstained
    best = out["evidence"][0]
    assert best.trust.source_credibility == 0.70 and best.trust.recency == pytest.approx(1.0, abs=1e-3)
    assert best.trust.consensus == 1.0 and best.trust.reliability == pytest.approx(0.865, abs=1e-3)
    assert best.title == "2001: A Space Odyssey (film)" and best.page == "2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-"
    assert best.line == 0 and best.source == "local-corpus" and best.stance == Stance.SUPPORTS
    assert out["stats"].tool_calls == 1 == len(out["trace"])
    assert out["trace"][0].action == "local-corpus.search"
    assert "stopping" in out["trace"][0].observation
    assert (
        Triplet(subject="Stanley Kubrick", relation="directed", object="2001: A Space Odyssey")
        in out["decomposition"].triplets
    )


async def test_refuted_claim(make_resources):
    resources = make_resources(ScriptedStance({"located in the Himalayas": "refutes"}), use_memory=False)
    try:
        out = await verify(resources, "Mount Everest is located in the Andes.")
    finally:
        await resources.aclose()
    assert out["verdict"].label == Label.REFUTES
    assert out["evidence"][0].title == "Mount Everest"


async def test_a_decisive_looking_sentence_about_someone_else_neither_stops_the_search_nor_decides(make_resources):
    # the stance model reads "American film director" as refuting; the sentence is about Kubrick, not Coster-Waldau
    resources = make_resources(ScriptedStance({"American film director": "refutes"}), use_memory=False)
    try:
        out = await verify(resources, "Nikolaj Coster-Waldau is a film director.")
    finally:
        await resources.aclose()
    kubrick = next(e for e in out["evidence"] if e.title == "Stanley Kubrick" and e.line == 0)
    # about someone else while the claim's own subject has a page: it weighs nothing, so the stance model is not
    # asked about it (it would read it as refuting) and it is shown as bearing on neither side
    assert kubrick.stance_probabilities is None
    assert kubrick.stance == Stance.NEUTRAL and kubrick.trust.topicality == 0.0 and kubrick.score == 0.0
    assert not any("stopping" in step.observation for step in out["trace"]) and out["stats"].tool_calls == 5
    assert out["verdict"].label == Label.NOT_ENOUGH_INFO


@pytest.mark.parametrize("max_steps", [2, 5])
async def test_undecided_claim_uses_the_step_budget_and_is_not_enough_info(make_resources, max_steps):
    resources = make_resources(ScriptedStance({}), use_memory=False, max_steps=max_steps)
    try:
        out = await verify(resources, "Stanley Kubrick was born in the Bronx in 1928.")
    finally:
        await resources.aclose()
    assert out["verdict"].label == Label.NOT_ENOUGH_INFO
    assert out["stats"].tool_calls == len(out["trace"]) == max_steps
    assert [s.step for s in out["trace"]] == list(range(1, max_steps + 1))
    assert {s.action for s in out["trace"]} <= {"local-corpus.search", "local-corpus.get_page"}


async def test_memory_warm_start_makes_fewer_tool_calls(make_resources, tmp_path):
    stance = ScriptedStance(KUBRICK_RULES)
    first = make_resources(stance, memory_dir=tmp_path / "mem")
    try:
        cold = await verify(first, KUBRICK)
    finally:
        await first.aclose()
    second = make_resources(stance, memory_dir=tmp_path / "mem")  # a new graph, the same memory on disk
    try:
        warm = await verify(second, KUBRICK)
    finally:
        await second.aclose()
    assert cold["stats"].tool_calls == 1 and cold["stats"].memory_hits == 0
    assert warm["stats"].tool_calls == 0 < cold["stats"].tool_calls
    assert warm["stats"].memory_hits >= 1
    assert warm["verdict"] == cold["verdict"]  # the same answer: nothing new was found
    assert warm["evidence"][0].from_memory and warm["trace"][0].action == "memory.recall"


async def test_memory_that_does_not_settle_the_claim_still_searches(make_resources, tmp_path):
    first = make_resources(ScriptedStance(KUBRICK_RULES), memory_dir=tmp_path / "mem2")
    try:
        await verify(first, KUBRICK)
    finally:
        await first.aclose()
    other = make_resources(ScriptedStance({"8,848 metres": "supports"}), memory_dir=tmp_path / "mem2")
    try:
        out = await verify(other, "Stanley Kubrick directed The Shining.")
    finally:
        await other.aclose()
    assert out["stats"].memory_hits >= 1 and out["stats"].tool_calls >= 1
    assert "weighed with what the search finds" in out["trace"][0].observation


class ParentState(TypedDict, total=False):
    claim: str
    verdict: object
    evidence: list
    trace: list
    decomposition: object
    stats: object
    log: Annotated[list[str], operator.add]


async def test_graph_runs_as_a_node_of_a_parent_graph(make_resources):
    resources = make_resources(ScriptedStance(KUBRICK_RULES), use_memory=False)
    verifier = build_graph(resources)

    def report(state: ParentState) -> dict:
        return {"log": [f"{state['claim']} -> {state['verdict'].label.value} ({len(state['evidence'])} items)"]}

    parent = StateGraph(ParentState)
    parent.add_node("verify", verifier)
    parent.add_node("report", report)
    parent.add_edge(START, "verify")
    parent.add_edge("verify", "report")
    parent.add_edge("report", END)
    try:
        direct = await verifier.ainvoke({"claim": KUBRICK})
        out = await parent.compile().ainvoke({"claim": KUBRICK, "log": ["start"]})
    finally:
        await resources.aclose()
    assert out["verdict"].label == Label.SUPPORTS
    assert len(out["evidence"]) == len(direct["evidence"])  # nothing duplicated across the boundary
    assert out["log"] == ["start", f"{KUBRICK} -> SUPPORTS ({len(direct['evidence'])} items)"]


async def test_the_graph_over_a_real_stdio_server(tmp_path, decomposer):
    settings = Settings.from_env({}, corpora=(WIKI_MINI,), cache_dir=tmp_path, use_memory=False)
    async with open_verifier(
        settings, overrides=Overrides(stance=ScriptedStance(KUBRICK_RULES), decomposer=decomposer)
    ) as verifier:
        out = await verifier.ainvoke({"claim": KUBRICK})
    assert out["verdict"].label == Label.SUPPORTS
    assert out["evidence"][0].id.startswith("wiki_mini:2001-COLON-")


class FailingFirstToolbox:
    """Fails the first call the way a tool failure comes back (text), then answers from a script."""

    def __init__(self):
        self.calls = []

    async def call(self, server, tool, arguments):
        self.calls.append((tool, arguments))
        if len(self.calls) == 1:
            return ToolOutcome(server=server, tool=tool, ok=False, text="search timed out after 10s")
        passage = {
            "id": "x:1",
            "page": "Stanley_Kubrick",
            "line": 1,
            "title": "Stanley Kubrick",
            "text": "2001 was directed by Stanley Kubrick.",
            "corpus": "x",
            "score": 3.0,
        }
        return ToolOutcome(server=server, tool=tool, ok=True, text="{}", data={"passages": [passage]})


async def test_a_tool_failure_is_an_observation_and_the_executor_moves_on():
    toolbox = FailingFirstToolbox()
    executor = OfflineExecutor(toolbox, ScriptedStance(KUBRICK_RULES), max_steps=5)
    decomposition = Decomposition(
        triplets=[Triplet(subject="Stanley Kubrick", relation="directed", object="2001")],
        keywords=["Stanley Kubrick", "2001"],
        entities=["Stanley Kubrick"],
    )
    result = await executor.run(KUBRICK, decomposition, remembered=[])
    assert result.trace[0].observation == "error: search timed out after 10s"
    assert result.trace[1].action == "local-corpus.get_page" and result.trace[1].new_evidence == 1
    assert len(result.trace) == 2 and result.stats.tool_calls == 2
    assert result.evidence[0].stance_probabilities["supports"] == pytest.approx(0.95)


class CountingToolbox:
    """Answers every call with no passages and counts the calls."""

    def __init__(self):
        self.calls = []

    async def call(self, server, tool, arguments):
        self.calls.append((server, tool))
        return ToolOutcome(server=server, tool=tool, ok=True, text="{}", data={"passages": []})


class FixedStance:
    """Gives every pair the same probabilities."""

    def __init__(self, probabilities):
        self.probabilities = probabilities

    async def aprobabilities(self, claim, evidence):
        return [dict(self.probabilities) for _ in evidence]


@pytest.mark.parametrize("leaning", [0.10, 0.60, 0.95])
@pytest.mark.parametrize("fresh", [True, False])
async def test_remembered_evidence_never_changes_the_search(leaning, fresh):
    """Asking again must not change the answer without new evidence: remembered items join the
    evidence, but the executor takes the same steps as it would with none (decisive, leaning or not)."""
    from mermaid_verifier.models import Evidence, SourceKind

    now = 1_800_000_000.0
    remembered = Evidence(
        id="w:Kubrick:1",
        source="local-corpus",
        source_kind=SourceKind.LOCAL_CORPUS,
        title="Stanley Kubrick",
        text="He directed 2001.",
        from_memory=True,
        retrieved_at=now if fresh else now - 365 * 86400,
    )
    decomposition = Decomposition(
        triplets=[Triplet(subject="Stanley Kubrick", relation="directed", object="2001: A Space Odyssey")],
        keywords=["Stanley Kubrick", "2001"],
        entities=["Stanley Kubrick"],
    )
    stance = FixedStance({"supports": leaning, "refutes": 0.0, "neutral": 1 - leaning})
    calls = []
    for memory in ([], [remembered]):
        toolbox = CountingToolbox()
        executor = OfflineExecutor(toolbox, stance, max_steps=5, stop_threshold=0.9, clock=lambda: now)
        result = await executor.run(KUBRICK, decomposition, memory)
        calls.append(toolbox.calls)
    assert calls[0] == calls[1] and len(calls[1]) == result.stats.tool_calls == 5
    assert [e.id for e in result.evidence] == [remembered.id] and result.stats.memory_hits == 1
    assert result.trace[0].action == "memory.recall"


class NamedPagesToolbox:
    """A corpus where "House" has no page of its own but two pages of that name."""

    PAGES = {
        "House (TV series)": "House is an American medical drama television series.",
        "House (film)": "House is a 1977 Japanese horror film.",
    }

    def __init__(self):
        self.calls = []

    async def call(self, server, tool, arguments):
        self.calls.append((tool, dict(arguments)))
        data = {"passages": []}
        if tool == "get_page" and arguments["title"] in self.PAGES:
            title = arguments["title"]
            data["passages"] = [
                {
                    "id": f"x:{title}",
                    "page": title.replace(" ", "_"),
                    "line": 0,
                    "title": title,
                    "text": self.PAGES[title],
                    "corpus": "x",
                }
            ]
        elif tool == "get_page":
            data |= {
                "same_name": sorted(self.PAGES, key=len),
                "message": "No page titled 'House', but pages of that name",
            }
        return ToolOutcome(server=server, tool=tool, ok=True, text="{}", data=data)


HOUSE = Decomposition(
    triplets=[Triplet(subject="House", relation="is", object="a medical drama")],
    keywords=["House", "medical drama"],
    entities=["House"],
)


@pytest.mark.parametrize(
    ("claim", "opened"),
    [
        ("House is a TV series about a doctor.", "House (TV series)"),  # the claim's words pick the page
        ("House is about a doctor.", "House (film)"),  # nothing to go by: the shortest title
    ],
)
async def test_a_missing_page_is_followed_by_the_page_of_that_name_the_claim_means(claim, opened):
    toolbox = NamedPagesToolbox()
    result = await OfflineExecutor(toolbox, ScriptedStance({}), max_steps=5).run(claim, HOUSE, remembered=[])
    pages = [arguments["title"] for tool, arguments in toolbox.calls if tool == "get_page"]
    assert pages == ["House", opened]  # right after the miss, once
    assert [tool for tool, _ in toolbox.calls][:3] == ["search", "get_page", "get_page"]
    assert f"read {opened!r}, the page of that name" in result.trace[2].thought
    assert [e.title for e in result.evidence] == [opened]
    assert result.stats.tool_calls == len(toolbox.calls) == 5  # the follow-up spends a step of the budget


async def test_a_pronoun_taken_for_a_name_is_not_followed_to_pages_of_that_name():
    toolbox = NamedPagesToolbox()
    toolbox.PAGES = {"It (novel)": "It is a 1986 horror novel by Stephen King."}
    it = Decomposition(
        triplets=[Triplet(subject="It", relation="was", object="watched")], keywords=["watched"], entities=[]
    )
    await OfflineExecutor(toolbox, ScriptedStance({}), max_steps=5).run("It was watched.", it, remembered=[])
    assert [arguments["title"] for tool, arguments in toolbox.calls if tool == "get_page"] == ["It"]


async def test_the_page_of_that_name_comes_from_the_real_corpus_server(make_resources):
    resources = make_resources(ScriptedStance({}), use_memory=False)
    try:
        out = await verify(resources, "Soul Food was a television series.")
    finally:
        await resources.aclose()
    opened = [step.action_input["title"] for step in out["trace"] if step.action == "local-corpus.get_page"]
    assert opened[:2] == ["Soul Food", "Soul Food (TV series)"]  # "series" is in the claim, "film" is not
    miss = next(step for step in out["trace"] if step.action_input.get("title") == "Soul Food")
    assert "pages of that name" in miss.observation
