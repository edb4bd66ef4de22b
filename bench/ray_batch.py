"""Batch on Ray against the in-process batch: the same claims, end to end as a user's command runs them.

    python bench/ray_batch.py [--claims 500] [--workers 1 2] [--concurrency 2] [--repeat 3] [--out runs/ray-bench]

Verifies the first ``--claims`` claims of the FEVER paper_dev *test* part (offline backend, the
local wiki corpus only, memory off) three ways through ``fever_run.run`` — what ``mermaid-verifier
fever`` calls: in this process, then with ``--ray local --workers N`` for each N. Each way writes its
own run directory under ``--out`` (fresh each time). Wall time is the whole run, start-up included
(Ray's cluster start, each worker building its graph); the corpus index is cached under
``--cache-dir`` beforehand so no way pays for building it. Overhead is the 1-worker Ray wall time
against the in-process one, at the same per-process concurrency. The ways take turns ``--repeat``
times (in process, Ray 1, Ray 2, in process, ...), so a slow spell of the machine falls on all of them;
the table gives each way's median wall time and every run's time beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import shutil
import statistics
import time
from pathlib import Path

from fever_sample import CLAIMS, CORPUS, DEFAULT_CACHE, SPLIT, test_part_sample


def options_for(args, out_dir: Path, workers: int | None):
    from mermaid_verifier.evaluation.fever_run import RunOptions
    from mermaid_verifier.evaluation.ray_batch import RayOptions

    return RunOptions(
        claims_path=CLAIMS,
        out_dir=out_dir,
        limit=args.claims,
        concurrency=args.concurrency,
        split_file=SPLIT,
        parts=("test",),
        ray=RayOptions(address="local", workers=workers) if workers else None,
    )


async def timed_run(options, settings) -> dict:
    from mermaid_verifier.evaluation.fever_run import run

    if options.out_dir.exists():
        shutil.rmtree(options.out_dir)
    started = time.perf_counter()
    outcome = await run(options, settings)
    wall = time.perf_counter() - started
    rows = outcome.rows
    return {
        "claims": len(rows),
        "wall_s": wall,
        "claims_per_s": len(rows) / wall,
        "accuracy": sum(r["gold"] == r["verdict"] for r in rows) / len(rows),
        "verdicts": {r["id"]: r["verdict"] for r in rows},
    }


async def warm_index(settings) -> None:
    """Build (or load) the corpus index once, so no measured run pays for it."""
    from mermaid_verifier.evaluation.batch import verify_labelled
    from mermaid_verifier.graph import open_verifier

    _, warm_up = test_part_sample(1)
    async with open_verifier(settings) as verifier:
        await verify_labelled(verifier, warm_up, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=500)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--concurrency", type=int, default=2, help="claims at once per process (per Ray worker)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each way, taking turns")
    parser.add_argument("--out", type=Path, default=Path("runs/ray-bench"))
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    from mermaid_verifier.config import Settings

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a throwaway local cluster
    settings = Settings.from_env(
        corpora=(CORPUS,), cache_dir=args.cache_dir, use_memory=False, sources=("local",), backend="offline"
    )
    print(
        f"{datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, {platform.platform()}, {os.cpu_count()} cpus, "
        f"Python {platform.python_version()}, load avg {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    asyncio.run(warm_index(settings))
    runs: dict[str, list[dict]] = {}
    for turn in range(1, args.repeat + 1):
        for workers in [None, *args.workers]:
            name = "in process" if workers is None else f"Ray, {workers} worker{'s' * (workers > 1)}"
            out_dir = args.out / name.replace(" ", "-").replace(",", "")
            result = asyncio.run(timed_run(options_for(args, out_dir, workers), settings))
            runs.setdefault(name, []).append(result)
            print(f"run {turn}, {name}: {result['claims_per_s']:.2f} claims/s, {result['wall_s']:.1f} s", flush=True)

    baseline_verdicts = runs["in process"][0]["verdicts"]
    baseline_wall = statistics.median(r["wall_s"] for r in runs["in process"])
    print(
        "\n| way | claims | median wall s (each run) | claims/s | wall vs in process | accuracy | verdicts as in process |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, results in runs.items():
        wall = statistics.median(r["wall_s"] for r in results)
        each = ", ".join(f"{r['wall_s']:.1f}" for r in results)
        same = min(sum(r["verdicts"][i] == v for i, v in baseline_verdicts.items()) for r in results)
        print(
            f"| {name} | {results[0]['claims']} | {wall:.1f} ({each}) | {results[0]['claims'] / wall:.2f} | "
            f"{wall / baseline_wall - 1:+.1%} | {results[0]['accuracy']:.3f} | {same}/{len(baseline_verdicts)} |"
        )


if __name__ == "__main__":
    main()
