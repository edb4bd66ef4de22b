"""The graph's state and its narrow input / output schemas."""

from __future__ import annotations

from typing import NotRequired  # pydantic needs it on Python < 3.12 for JSON schemas

from typing_extensions import TypedDict

from mermaid_verifier.models import Decomposition, Evidence, Stats, TraceStep, Verdict


class VerifyInput(TypedDict):
    """What a caller (or a parent graph) passes in."""

    claim: str


class VerifyOutput(TypedDict):
    """What a caller (or a parent graph) gets back."""

    verdict: Verdict
    evidence: list[Evidence]
    trace: list[TraceStep]
    decomposition: Decomposition
    stats: Stats
    llm_failure: NotRequired[str | None]  # the LLM endpoint failure that made the claim abstain, if any


class VerifierState(VerifyInput, VerifyOutput, total=False):
    """Everything the nodes share while one claim is verified."""

    remembered: list[Evidence]
    started_at: float
    assessed: list[Evidence]  # the gathered evidence with trust and topicality, as the verdict was judged on
    offline_verdict: Verdict  # cascade: the offline verdict that abstained and sent the claim to the LLM path
    continue_search: bool  # the next search continues the evidence and trace here (escalation, "search more")
