"""Time cold `verify "…"` runs: process start to exit, each a fresh process (warm disk caches).

    python -m bench.cold_verify [--runs 5] [--corpus PATH] [--baseline OTHER_VERIFY] [claim]
    python -m bench.cold_verify --text FILE [--runs 5] [--baseline OTHER_VERIFY]

With ``--text``, cold ``mermaid-verifier check FILE --no-memory`` runs are timed instead (the ``mermaid-verifier``
script beside each ``verify``); the summary then compares the texts' verdicts.

The first run of each build may build the corpus index; it is reported separately and left out of the summary.
``--baseline`` names another build's ``verify`` script (say, main's, installed in a second virtualenv): the two are
run in turn, each with its own cache directory, and the summary gives this build's median as a ratio of the
baseline's, measured in the same run on the same machine. Each verdict is compared with the baseline's.
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
from pathlib import Path


def run_once(verify: str, args: argparse.Namespace, cache: str) -> tuple[float, dict]:
    corpora = [f"--corpus={c}" for c in args.corpus]
    if args.text:
        command = [str(Path(verify).with_name("mermaid-verifier")), "check", args.text, "--json", "--no-memory"]
        command += corpora
    else:
        command = [verify, "--json", "--no-memory"] + corpora + [args.claim]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "MERMAID_CACHE_DIR": cache})
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{verify} failed ({done.returncode}): {done.stderr.strip()}")
    result = json.loads(done.stdout)
    if args.text:  # the text's verdicts, claim by claim, in place of one claim's
        result = {"verdict": " ".join(c["result"]["verdict"] for c in result["claims"])}
    return elapsed, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claim", nargs="?", default="Stanley Kubrick directed 2001: A Space Odyssey.")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", action="append", default=[])
    parser.add_argument("--baseline", help="another build's `verify` script, run in turn with this one")
    parser.add_argument("--text", help="time `mermaid-verifier check TEXT` instead of `verify CLAIM`")
    args = parser.parse_args()
    verify = shutil.which("verify") or sys.exit("the `verify` console script is not on PATH (pip install -e .)")
    builds = {"this build": verify} | ({"baseline": args.baseline} if args.baseline else {})
    caches = {name: tempfile.mkdtemp(prefix="mermaid-cold-") for name in builds}
    times: dict[str, list[float]] = {name: [] for name in builds}
    verdicts: dict[str, set[str]] = {name: set() for name in builds}
    for run in range(args.runs + 1):
        for name, script in builds.items():
            elapsed, result = run_once(script, args, caches[name])
            print(f"{name}, run {run}{' (builds index)' if run == 0 else ''}: {elapsed:.2f}s, {result['verdict']}")
            verdicts[name].add(result["verdict"])
            if run:
                times[name].append(elapsed)
    for name in builds:
        print(
            f"{name}: cold {'check' if args.text else 'verify'} over {args.runs} runs: median {statistics.median(times[name]):.2f}s, max {max(times[name]):.2f}s"
        )
    if args.baseline:
        ratio = statistics.median(times["this build"]) / statistics.median(times["baseline"])
        same = "the same verdict" if verdicts["this build"] == verdicts["baseline"] else f"verdicts differ: {verdicts}"
        print(f"ratio (this build / baseline, medians): {ratio:.2f}; {same}")
    from mermaid_verifier.reader.model_check import machine_record

    print(f"machine: {json.dumps(machine_record())}")


if __name__ == "__main__":
    main()
