"""Per-node latency of the verification graph (decompose, recall, execute, judge, remember) on FEVER test claims.

    python -m bench.node_latency [--claims 40] [--cache-dir DIR]

Runs the first ``--claims`` claims of the *test* part of the page-disjoint FEVER paper_dev split one
at a time (offline backend, local wiki corpus only, memory off, one ``open_verifier``; 3 further test
claims first as an uncounted warm-up) with ``graph.astream(..., stream_mode="updates")``. Each node is
timed by a LangChain callback handler (``on_chain_start`` / ``on_chain_end`` of the node's run, called
inline on the event loop): the node function plus its channel writes. As a cross-check the gap
between successive ``updates`` chunks arriving is reported too (it adds LangGraph's scheduling between
nodes). "outside nodes" is the graph run's own span minus the nodes' sum. The corpus index is cached
under ``--cache-dir`` (default: a fixed directory in the system temp dir), shared with throughput.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from bench.fever_sample import CORPUS, DEFAULT_CACHE, test_part_sample
from mermaid_verifier.evaluation.run_metrics import percentile


class NodeTimer(BaseCallbackHandler):
    """Wall time of each top-level node run of one graph invocation, and of the invocation itself."""

    run_inline = True  # called on the event loop, not from a thread pool, so the timestamps are when it happens

    def __init__(self, nodes: set[str]):
        self.nodes = nodes
        self.root: UUID | None = None
        self.started: dict[UUID, tuple[str, float]] = {}
        self.seconds: dict[str, float] = {}
        self.total = 0.0

    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict | None = None,
        **kwargs: Any,
    ) -> None:
        now = time.perf_counter()
        if parent_run_id is None:
            self.root = run_id
            self.started[run_id] = ("(graph)", now)
        elif parent_run_id == self.root and kwargs.get("name") in self.nodes:
            self.started[run_id] = (kwargs["name"], now)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)  # a Command/interrupt unwinding a node still ends its span

    def _end(self, run_id: UUID) -> None:
        if run_id in self.started:
            name, started = self.started.pop(run_id)
            elapsed = time.perf_counter() - started
            if name == "(graph)":
                self.total = elapsed
            else:
                self.seconds[name] = self.seconds.get(name, 0.0) + elapsed


async def time_one(graph, nodes: set[str], claim: str) -> tuple[NodeTimer, dict[str, float]]:
    timer = NodeTimer(nodes)
    gaps: dict[str, float] = {}
    last = time.perf_counter()
    async for chunk in graph.astream({"claim": claim}, config={"callbacks": [timer]}, stream_mode="updates"):
        now = time.perf_counter()
        for name in chunk:
            if name in nodes:
                gaps[name] = gaps.get(name, 0.0) + now - last
        last = now
    return timer, gaps


async def run(
    measured, warm_up, settings
) -> tuple[list[str], dict[str, list[float]], dict[str, list[float]], list[float]]:
    from mermaid_verifier.graph import open_verifier

    async with open_verifier(settings) as graph:
        order = [n for n in graph.nodes if not n.startswith("__")]
        nodes = set(order)
        for claim in warm_up:
            await time_one(graph, nodes, claim.claim)
        per_node: dict[str, list[float]] = {n: [] for n in order}
        stream_gaps: dict[str, list[float]] = {n: [] for n in order}
        totals: list[float] = []
        for number, claim in enumerate(measured, start=1):
            timer, gaps = await time_one(graph, nodes, claim.claim)
            for name in order:  # a node that did not run this time (none, without review) counts as 0
                per_node[name].append(timer.seconds.get(name, 0.0))
                stream_gaps[name].append(gaps.get(name, 0.0))
            totals.append(timer.total)
            if number % 10 == 0:
                print(f"  … {number}/{len(measured)} claims", flush=True)
    return order, per_node, stream_gaps, totals


def machine() -> dict:
    """This machine's record with the platform, the load and the date the figures were measured at."""
    from mermaid_verifier.reader.model_check import measurement_record

    return measurement_record()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=40)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=DEFAULT_CACHE,
        help=f"kept between runs: the wiki corpus index lives here (default {DEFAULT_CACHE})",
    )
    args = parser.parse_args()
    if args.claims < 1:
        parser.error("--claims must be at least 1")
    from mermaid_verifier.config import Settings

    measured, warm_up = test_part_sample(args.claims)
    settings = Settings.from_env(
        corpora=(CORPUS,), cache_dir=args.cache_dir, use_memory=False, sources=("local",), backend="offline"
    )
    print(f"machine: {json.dumps(machine())}", flush=True)
    print(
        f"{len(measured)} FEVER paper_dev test claims one at a time, offline backend, local wiki corpus, memory off, "
        f"cache {args.cache_dir}",
        flush=True,
    )
    order, per_node, gaps, totals = asyncio.run(run(measured, warm_up, settings))
    total_mean = statistics.mean(totals)
    outside = [t - sum(per_node[n][i] for n in order) for i, t in enumerate(totals)]
    print("\n| node | mean ms | p50 ms | p95 ms | share of graph time | stream-gap mean ms |")
    print("|---|---|---|---|---|---|")
    for name, values, gap in [(n, per_node[n], statistics.mean(gaps[n]) * 1000) for n in order] + [
        ("(outside nodes)", outside, None),
        ("(graph run)", totals, None),
    ]:
        print(
            f"| {name} | {statistics.mean(values) * 1000:.1f} | {statistics.median(values) * 1000:.1f} | "
            f"{percentile(values, 95) * 1000:.1f} | {statistics.mean(values) / total_mean:.1%} | "
            f"{'' if gap is None else f'{gap:.1f}'} |"
        )


if __name__ == "__main__":
    main()
