"""Verify many labelled claims through one graph (one set of tool sessions, one memory)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from mermaid_verifier.errors import LLMServiceError, MermaidError, UsageError
from mermaid_verifier.evaluation.datasets import LabelledClaim
from mermaid_verifier.models import result_from_output

if TYPE_CHECKING:  # the graph's import is heavy and a Ray driver never builds one
    from langgraph.graph.state import CompiledStateGraph


def result_row(claim: LabelledClaim, output: dict) -> dict:
    """One line of ``results.jsonl``: the verification result plus the claim's id, gold label and gold evidence."""
    result = result_from_output(claim.claim, output)
    return {
        "id": claim.id,
        "gold": claim.label.value,
        "gold_evidence": [[list(pointer) for pointer in evidence_set] for evidence_set in claim.evidence_sets],
        **json.loads(result.model_dump_json()),
    }


def llm_failure(output: dict) -> str | None:
    """Why the LLM endpoint failed during this claim's verification (its verdict is then an abstention
    that says so), or None."""
    return output.get("llm_failure")


async def verify_labelled(
    verifier: CompiledStateGraph,
    claims: list[LabelledClaim],
    concurrency: int,
    on_result: Callable[[dict], None] | None = None,
    on_failure: Callable[[LabelledClaim, MermaidError], None] | None = None,
    slots: asyncio.Semaphore | None = None,
) -> list[dict]:
    """Each claim's result row, in completion order; ``on_result`` sees each as it lands.

    At most ``concurrency`` claims run at once; ``slots`` instead shares that limit with other calls
    running beside this one (a Ray worker's overlapping batches).
    A claim whose verification raises a :class:`MermaidError` (e.g. the LLM service failed) goes to
    ``on_failure`` when given, and the run goes on; without it, or when the error is a
    :class:`UsageError` (a corpus that cannot be read fails every claim alike), the error propagates."""
    semaphore = slots if slots is not None else asyncio.Semaphore(concurrency)
    rows: list[dict] = []

    async def one(claim: LabelledClaim) -> None:
        async with semaphore:
            try:
                output = await verifier.ainvoke({"claim": claim.claim})
                failure = llm_failure(output)
                if failure is not None and on_failure is not None:  # an abstention forced by a dead endpoint
                    raise LLMServiceError(failure)  # is no verdict: it goes to failures, for --resume to retry
            except MermaidError as exc:
                if on_failure is None or isinstance(exc, UsageError):  # a bad corpus or setting fails every claim
                    raise
                on_failure(claim, exc)
                return
        row = result_row(claim, output)
        rows.append(row)
        if on_result is not None:
            on_result(row)

    try:
        async with asyncio.TaskGroup() as group:  # one failure that is not handled cancels the rest
            for claim in claims:
                group.create_task(one(claim))
    except* MermaidError as failures:
        raise failures.exceptions[0] from None
    return rows
