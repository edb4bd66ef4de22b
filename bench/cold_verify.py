"""Time cold `verify "…"` runs: process start to exit, each a fresh process (warm disk caches).

    python bench/cold_verify.py [--runs 5] [--corpus PATH] [claim]

The first run may build the corpus index; it is reported separately and left out of the summary.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claim", nargs="?", default="Stanley Kubrick directed 2001: A Space Odyssey.")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", action="append", default=[])
    args = parser.parse_args()
    verify = shutil.which("verify") or sys.exit("the `verify` console script is not on PATH (pip install -e .)")
    cache = tempfile.mkdtemp(prefix="mermaid-cold-")
    command = [verify, "--json", "--no-memory"] + [f"--corpus={c}" for c in args.corpus] + [args.claim]
    env = {**os.environ, "MERMAID_CACHE_DIR": cache}
    times = []
    for run in range(args.runs + 1):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"verify failed ({done.returncode}): {done.stderr.strip()}")
        print(f"run {run}{' (builds index)' if run == 0 else ''}: {elapsed:.2f}s")
        if run:
            times.append(elapsed)
    from mermaid_verifier.model_check import machine_record

    print(f"cold verify over {len(times)} runs: median {statistics.median(times):.2f}s, max {max(times):.2f}s")
    print(f"machine: {json.dumps(machine_record())}")


if __name__ == "__main__":
    main()
