"""How soon `mermaid-verifier mcp` (stdio) answers: a real MCP client starts it, as a host would, and times the
handshake and the first `verify_claim` call, each run a fresh process (warm disk caches, no memory).

    python -m bench.mcp_start [--runs 5] [--baseline OTHER_MERMAID_VERIFIER] [claim]

``--baseline`` names another build's ``mermaid-verifier`` script (say, main's, installed in a second virtualenv):
the two are run in turn, each with its own cache directory (the first run of each builds the corpus index and
is left out), and the summary gives this build's medians as ratios of the baseline's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time


async def run_once(command: str, claim: str, cache: str) -> tuple[float, float, str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "MERMAID_CACHE_DIR": cache}
    params = StdioServerParameters(command=command, args=["mcp", "--no-memory"], env=env)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        ready = time.perf_counter() - started
        result = await session.call_tool("verify_claim", {"claim": claim})
        answered = time.perf_counter() - started
    if result.isError:
        sys.exit(f"{command} mcp failed: {result.content}")
    return ready, answered, result.structuredContent["verdict"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claim", nargs="?", default="Stanley Kubrick directed 2001: A Space Odyssey.")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", help="another build's `mermaid-verifier` script, run in turn with this one")
    args = parser.parse_args()
    this = shutil.which("mermaid-verifier") or sys.exit("`mermaid-verifier` is not on PATH (pip install -e .)")
    builds = {"this build": this} | ({"baseline": args.baseline} if args.baseline else {})
    caches = {name: tempfile.mkdtemp(prefix="mermaid-mcp-") for name in builds}
    times: dict[str, dict[str, list[float]]] = {name: {"ready": [], "answered": []} for name in builds}
    verdicts: dict[str, set[str]] = {name: set() for name in builds}
    for run in range(args.runs + 1):
        for name, command in builds.items():
            ready, answered, verdict = asyncio.run(run_once(command, args.claim, caches[name]))
            note = " (builds index)" if run == 0 else ""
            print(f"{name}, run {run}{note}: handshake {ready:.2f}s, first verdict {answered:.2f}s, {verdict}")
            verdicts[name].add(verdict)
            if run:
                times[name]["ready"].append(ready)
                times[name]["answered"].append(answered)
    medians = {name: {k: statistics.median(v) for k, v in t.items()} for name, t in times.items()}
    for name, median in medians.items():
        print(f"{name}: median handshake {median['ready']:.2f}s, first verdict {median['answered']:.2f}s")
    if args.baseline:
        ratios = {k: medians["this build"][k] / medians["baseline"][k] for k in ("ready", "answered")}
        same = "the same verdict" if verdicts["this build"] == verdicts["baseline"] else f"verdicts differ: {verdicts}"
        print(
            f"ratios (this build / baseline, medians): handshake {ratios['ready']:.2f}, first verdict "
            f"{ratios['answered']:.2f}; {same}"
        )
    from mermaid_verifier.reader.model_check import machine_record

    print(f"machine: {json.dumps(machine_record())}")


if __name__ == "__main__":
    main()
