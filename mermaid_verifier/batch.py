"""Verify many labelled claims through one graph (one set of tool sessions, one memory)."""

from __future__ import annotations

import asyncio
import json
from typing import Callable

from langgraph.graph.state import CompiledStateGraph

from mermaid_verifier.datasets import LabelledClaim
from mermaid_verifier.output import result_from_output


async def verify_labelled(verifier: CompiledStateGraph, claims: list[LabelledClaim], concurrency: int,
                          on_result: Callable[[dict], None] | None = None) -> list[dict]:
    """Each claim's result as a JSON-ready row with ``id`` and ``gold``; ``on_result`` sees each as it lands."""
    semaphore = asyncio.Semaphore(concurrency)
    rows: list[dict] = []

    async def one(claim: LabelledClaim) -> None:
        async with semaphore:
            output = await verifier.ainvoke({"claim": claim.claim})
        result = result_from_output(claim.claim, output)
        row = {"id": claim.id, "gold": claim.label.value, **json.loads(result.model_dump_json())}
        rows.append(row)
        if on_result is not None:
            on_result(row)

    await asyncio.gather(*(one(c) for c in claims))
    return rows
