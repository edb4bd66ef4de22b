"""The graph's state and its narrow input / output schemas."""

from __future__ import annotations

from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12 for JSON schemas

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


class VerifierState(VerifyInput, VerifyOutput, total=False):
    """Everything the nodes share while one claim is verified."""

    remembered: list[Evidence]
    started_at: float
    search_more: bool  # set by a reviewer's "search more"; the executor then continues its trace
