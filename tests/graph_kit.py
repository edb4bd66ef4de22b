"""Running a claim through the verification graph in tests."""

from __future__ import annotations

from mermaid_verifier.graph import build_graph


async def verify(resources, claim):
    return await build_graph(resources).ainvoke({"claim": claim})
