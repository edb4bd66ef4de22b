"""How long the tool servers of every source take to start together (process, imports, index, MCP handshake),
as a run with the network up starts them; the live servers need no network to start, so none is used.

    python -m bench.server_start [--runs 3] [--corpus PATH]

Each run starts the Wikipedia, arXiv, PubMed and local-corpus servers in one toolbox, times ``Toolbox.start``
and closes them; the first run (which may build the corpus index) is reported apart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


async def start_once(corpus: Path, cache: Path) -> tuple[float, list[str]]:
    from mermaid_verifier.tools.sources import plan_sources
    from mermaid_verifier.tools.toolbox import Toolbox

    plan = plan_sources(
        ("wikipedia", "arxiv", "pubmed", "local"), [corpus], cache / "index", cache, probe=lambda h: True
    )
    toolbox = Toolbox(plan.servers)
    started = time.perf_counter()
    try:
        await toolbox.start()
        return time.perf_counter() - started, list(toolbox.tools)
    finally:
        await toolbox.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=REPO / "tests" / "fixtures" / "wiki_mini.jsonl")
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="mermaid-servers-"))
    times = []
    for run in range(args.runs + 1):
        elapsed, servers = asyncio.run(start_once(args.corpus, cache))
        print(f"run {run}{' (builds index)' if run == 0 else ''}: {elapsed:.2f}s, {', '.join(servers)}")
        if run:
            times.append(elapsed)
    print(f"{len(servers)} servers started together: median {statistics.median(times):.2f}s, max {max(times):.2f}s")
    from mermaid_verifier.reader.model_check import machine_record

    print(f"machine: {json.dumps(machine_record())}")


if __name__ == "__main__":
    main()
