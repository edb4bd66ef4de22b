"""Batch on Ray against the in-process batch: the same claims, each way a user's command in a fresh process.

    python -m bench.ray_batch [--claims 500] [--workers 1 2] [--concurrency 2] [--repeat 3] [--out runs/ray-bench]

Verifies the first ``--claims`` claims of the FEVER paper_dev *test* part (offline backend, the
local wiki corpus only, memory off) by running ``mermaid-verifier fever`` as a user would: in
process, then with ``--ray local --workers N`` for each N. Each run is a new process, so every way
pays its own start-up — Python and its imports, the graph's tool servers and stance model, and for
Ray the cluster's start and stop and each worker's imports and graph. Wall time is the command's,
from start to exit. The corpus index is cached under ``--cache-dir`` beforehand so no way pays for
building it. Overhead is the 1-worker Ray wall time against the in-process one, at the same
per-process concurrency. The ways take turns ``--repeat`` times (in process, Ray 1, Ray 2, in
process, ...), so a slow spell of the machine falls on all of them; the table gives each way's
median wall time and every run's time beside it. Each run's directory and console output stay
under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

from bench.fever_sample import CLAIMS, CORPUS, DEFAULT_CACHE, SPLIT

WARM_UP_CLAIMS = 3


def fever_command(args, out_dir: Path, claims: int, workers: int | None) -> list[str]:
    command = [
        str(Path(sys.executable).with_name("mermaid-verifier")),
        "fever",
        str(CLAIMS),
        "--corpus",
        str(CORPUS),
        "--split",
        str(SPLIT),
        "--part",
        "test",
        "--limit",
        str(claims),
        "--no-memory",
        "--concurrency",
        str(args.concurrency),
        "--out",
        str(out_dir),
    ]
    if workers:
        command += ["--ray", "local", "--workers", str(workers)]
    return command


def bench_environment(cache_dir: Path) -> dict[str, str]:
    return os.environ | {
        "MERMAID_SOURCES": "local",
        "MERMAID_BACKEND": "offline",
        "MERMAID_CACHE_DIR": str(cache_dir),
        "RAY_AUTH_MODE": "disabled",  # a throwaway local cluster
    }


def timed_run(args, out_dir: Path, claims: int, workers: int | None) -> dict:
    """Run the command once in a fresh process; its wall time and what it decided."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    console = out_dir.with_suffix(".log")
    started = time.perf_counter()
    with console.open("w") as log:
        done = subprocess.run(
            fever_command(args, out_dir, claims, workers),
            env=bench_environment(args.cache_dir),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the run in {out_dir} failed (exit {done.returncode}); see {console}")
    rows = [orjson.loads(line) for line in (out_dir / "results.jsonl").read_bytes().splitlines() if line.strip()]
    return {
        "claims": len(rows),
        "wall_s": wall,
        "claims_per_s": len(rows) / wall,
        "accuracy": sum(r["gold"] == r["verdict"] for r in rows) / len(rows),
        "verdicts": {r["id"]: r["verdict"] for r in rows},
    }


def machine() -> dict:
    """This machine's record with the platform, the load and the date the figures were measured at."""
    from mermaid_verifier.reader.model_check import measurement_record

    return measurement_record()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=500)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--concurrency", type=int, default=2, help="claims at once per process (per Ray worker)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each way, taking turns")
    parser.add_argument("--out", type=Path, default=Path("runs/ray-bench"))
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    for path in (CLAIMS, CORPUS):
        if not path.is_file():
            sys.exit(f"{path} not found: this benchmark needs the shared FEVER data")
    print(f"machine: {json.dumps(machine())}", flush=True)
    timed_run(args, args.out / "warm-up", WARM_UP_CLAIMS, None)  # builds the corpus index cache
    runs: dict[str, list[dict]] = {}
    for turn in range(1, args.repeat + 1):
        for workers in [None, *args.workers]:
            name = "in process" if workers is None else f"Ray, {workers} worker{'s' * (workers > 1)}"
            out_dir = args.out / name.replace(" ", "-").replace(",", "")
            result = timed_run(args, out_dir, args.claims, workers)
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
