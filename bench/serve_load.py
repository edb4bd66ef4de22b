"""A bounded load test of ``mermaid-verifier serve`` on loopback: N concurrent ``POST /v1/check`` of short texts.

Starts the service in its own process (the corpus given, no memory, ``--max-concurrent`` at least N so
nothing is refused), sends N checks at once and reads every NDJSON stream to its end. Checks, per text:
no error event, the extraction first and the summary last, every extracted claim decided exactly once.
Reports the wall time of each whole check (p50 / p95 / max), claims checked, the run's wall time, and the peak
resident memory (``VmHWM``) of the service and of its tool-server processes, read from ``/proc`` after the load.

Texts: the first N ``factool-qa`` answers of ``text/factbench_dev.jsonl`` (LLM answers, a few sentences
each). Evidence for most of them is not in the corpus; this measures the service, not the verdicts.

    python -m bench.serve_load [--data ../shared/data] [--corpus FILE] [--n 20] [--out bench/results/serve_load.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

from mermaid_verifier.errors import ServiceStartError
from mermaid_verifier.reader.model_check import machine_record
from mermaid_verifier.service.child import serve_in_child

REPO = Path(__file__).resolve().parents[1]


async def one_check(client: httpx.AsyncClient, text: str) -> dict:
    started = time.perf_counter()
    events = []
    async with client.stream("POST", "/v1/check", json={"text": text}) as response:
        status = response.status_code
        async for line in response.aiter_lines():
            if line.strip():
                events.append(json.loads(line))
    seconds = time.perf_counter() - started
    kinds = [e["event"] for e in events]
    extracted = len(events[0]["claims"]) if events and events[0]["event"] == "extraction" else None
    decided = sorted(e["checked"]["index"] for e in events if e["event"] == "claim")
    problems = []
    if status != 200:
        problems.append(f"HTTP {status}")
    if "error" in kinds:
        problems.append(next(e["message"] for e in events if e["event"] == "error"))
    if not kinds or kinds[0] != "extraction" or kinds[-1] != "summary":
        problems.append(f"events out of order: {kinds}")
    if extracted is not None and decided != list(range(extracted)):
        problems.append(f"claims decided {decided}, extracted {extracted}")
    return {"seconds": seconds, "claims": len(decided), "problems": problems}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def process_tree(port: int) -> list[int]:
    """The ``serve`` process listening on ``port`` (found by its command line) and every process below it."""

    def command_line(pid: str) -> list[str]:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            return []

    roots = [
        int(p) for p in os.listdir("/proc") if p.isdigit() and {"serve", "--port", str(port)} <= set(command_line(p))
    ]
    tree, waiting = [], list(roots)
    while waiting:
        pid = waiting.pop()
        tree.append(pid)
        for task in Path(f"/proc/{pid}/task").glob("*/children"):
            waiting += [int(child) for child in task.read_text().split()]
    return tree


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run(base: str, texts: list[str]) -> tuple[list[dict], float]:
    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        started = time.perf_counter()
        results = await asyncio.gather(*(one_check(client, text) for text in texts))
        return list(results), time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--corpus", type=Path, default=None, help="default: DATA/corpus/wiki_sentences.jsonl")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    corpus = args.corpus or args.data / "corpus" / "wiki_sentences.jsonl"
    answers = args.data / "text" / "factbench_dev.jsonl"
    for needed in (corpus, answers):
        if not needed.exists():
            print(f"{needed} not found: pass --data DIR (the shared data folder) or --corpus FILE", file=sys.stderr)
            return 2
    rows = [r for r in map(json.loads, answers.open()) if r["source"] == "factool-qa"][: args.n]
    texts = [r["response"] for r in rows]
    env = {**os.environ, "MERMAID_SOURCES": "local", "MERMAID_MEMORY": "0"}
    options = ["--corpus", str(corpus), "--max-concurrent", str(max(args.n, 4)), "--timeout", "900"]
    try:
        with serve_in_child(options, env=env, ready_within_s=300, stop_within_s=60) as base:
            results, wall = asyncio.run(run(base, texts))
            peaks = {pid: round(peak_rss_mb(pid), 1) for pid in process_tree(int(base.rsplit(":", 1)[1]))}
    except ServiceStartError as error:
        print(error, file=sys.stderr)
        return 1
    seconds = [r["seconds"] for r in results]
    problems = [p for r in results for p in r["problems"]]
    figures = {
        "concurrent_checks": len(texts),
        "claims_checked": sum(r["claims"] for r in results),
        "errors": len(problems),
        "problems": problems[:10],
        "check_seconds": {
            "p50": round(statistics.median(seconds), 2),
            "p95": round(percentile(seconds, 95), 2),
            "max": round(max(seconds), 2),
        },
        "wall_seconds": round(wall, 2),
        "peak_rss_mb": {"processes": list(peaks.values()), "sum": round(sum(peaks.values()), 1)},
        "machine": machine_record(),
        "command": "python -m bench.serve_load " + " ".join(sys.argv[1:]),
    }
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=1) + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
