"""Grounding from plain Python (mermaid_verifier.texts.plain): no asyncio for the caller, in a script or where an
event loop already runs (a notebook), with the models loaded once for many answers."""

from __future__ import annotations

import asyncio

import pytest

import mermaid_verifier
from mermaid_verifier import Grounder, ground
from mermaid_verifier.errors import UsageError

HARBOUR = "The harbour of Holm Island was rebuilt in 1923 after a storm."


def test_one_answer_against_plain_text_contexts():
    result = ground("The harbour of Holm Island was rebuilt in 1923. It has a blue lighthouse.", [HARBOUR])
    assert [s.label for s in result.sentences] == ["supported", "not stated"]
    assert result.claims[0].passage.name == "document 1" and result.summary.supported_share == 0.5


def test_a_grounder_keeps_its_models_for_many_answers_and_works_inside_a_running_loop():
    async def in_a_notebook() -> list[str]:  # a loop runs here, as in Jupyter: asyncio.run would refuse
        with Grounder() as grounder:
            job = grounder._job
            first = grounder.ground("The harbour of Holm Island was rebuilt in 1923.", [HARBOUR])
            second = grounder.ground("The harbour of Holm Island was rebuilt in 1950.", [("Holm Island", HARBOUR)])
            assert grounder._job is job  # one job, its extractor and stance model loaded once
        return [first.sentences[0].label, second.sentences[0].label]

    assert asyncio.run(in_a_notebook()) == ["supported", "contradicted"]


def test_errors_reach_the_caller_and_a_closed_grounder_says_so():
    grounder = Grounder()
    try:
        with pytest.raises(UsageError, match="the text to check is empty"):
            grounder.ground("   ", [HARBOUR])
        with pytest.raises(UsageError, match="no documents"):
            grounder.ground("The harbour was rebuilt in 1923.", [])
    finally:
        grounder.close()
    grounder.close()  # twice is fine
    with pytest.raises(UsageError, match="closed"):
        grounder.ground("The harbour was rebuilt in 1923.", [HARBOUR])
    with pytest.raises(AttributeError):
        mermaid_verifier.no_such_name  # noqa: B018


def test_the_event_stream_is_closed_when_the_result_is_in():
    """Left open, the graph's stream is finalised by the loop later, after a Grounder's loop has stopped: "Task was
    destroyed but it is pending" and a callback coroutine never awaited (seen with bench/ground_batch.py same)."""
    from mermaid_verifier.texts.events import GroundingEvent
    from mermaid_verifier.texts.job import TextJob

    closed: list[bool] = []

    async def events(text, documents=None, concurrency=None):
        try:
            yield GroundingEvent.model_construct(result="the result")
            yield GroundingEvent.model_construct(result="never reached")
        finally:
            closed.append(True)

    async def check() -> tuple[object, list[bool]]:
        job = TextJob.__new__(TextJob)
        job.events = events  # type: ignore[method-assign]
        result = await job.check("text")
        return result, list(closed)  # before asyncio.run's own finaliser could close it

    assert asyncio.run(check()) == ("the result", [True])


def test_the_graphs_own_stream_is_closed_with_the_event_stream():
    """The text job's events stop at the result; the graph's stream under them must be closed then too, not by the
    loop's finaliser after the caller's loop has stopped (its run's error callback left pending)."""
    from types import SimpleNamespace

    from mermaid_verifier.texts.events import GroundingEvent
    from mermaid_verifier.texts.job import TextJob

    closed: list[bool] = []

    class Graph:
        async def astream(self, inputs, config, stream_mode):
            try:
                yield {"finish": {"result": "the result"}}
                yield {"finish": {"result": "never reached"}}
            finally:
                closed.append(True)

    done = SimpleNamespace(of=lambda result: GroundingEvent.model_construct(result=result))
    reader = SimpleNamespace(
        name="given", inputs=lambda text, documents: {}, concurrency=1, step="ground", finish="finish", done_event=done
    )
    job = TextJob.__new__(TextJob)
    job.reader = lambda documents: reader  # type: ignore[method-assign]
    job.graphs = {"given": Graph()}

    async def check() -> tuple[object, list[bool]]:
        result = await job.check("text")
        return result, list(closed)  # before asyncio.run's own finaliser could close it

    assert asyncio.run(check()) == ("the result", [True])
