"""Offline vs LLM vs cascade on the same FEVER test-part claims, against a real OpenAI-compatible server.

    python scripts/local_llm.py serve                       # or any server: OPENAI_BASE_URL, MERMAID_LLM_MODEL
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 python bench/llm_backends.py --claims 100 --out runs/llm-bench

The first ``--claims`` claims of the *test* part of the page-disjoint FEVER paper_dev split, verified
over the wiki corpus (local-corpus source only, memory off, one claim at a time: a local server has one
slot) by each backend in turn. Each backend's run is a ``fever`` run directory under ``--out``
(``results.jsonl`` written claim by claim): a rerun continues where a killed one stopped, so the
hours an LLM run takes on a CPU are never lost. Prints and writes (``--out/summary.json``) accuracy,
macro-F1, tool calls, LLM tokens and seconds per claim, the share of executor replies whose tool call
could be read, and how many claims took the LLM path or met an endpoint failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
from pathlib import Path

from fever_sample import CLAIMS, CORPUS, DEFAULT_CACHE, SPLIT

from mermaid_verifier.config import Settings
from mermaid_verifier.evaluation.fever_run import RunOptions, run

BACKENDS = ("offline", "llm", "cascade")


def figures(metrics: dict) -> dict:
    claims = metrics["claims"]
    llm = metrics["llm"]
    return {
        "claims": claims,
        "accuracy": metrics["accuracy"],
        "macro_f1": metrics["macro_f1"],
        "tool_calls_per_claim": metrics["tool_calls"]["mean"],
        "prompt_tokens_per_claim": llm["prompt_tokens"] / claims,
        "completion_tokens_per_claim": llm["completion_tokens"] / claims,
        "llm_calls_per_claim": llm["calls"] / claims,
        "seconds_per_claim": metrics["latency"]["mean"],
        "seconds_p95": metrics["latency"]["p95"],
        "parsed_call_share": llm["parsed_call_share"],
        "claims_on_llm_path": llm["claims_on_llm_path"],
        "claims_with_endpoint_failure": llm["claims_with_endpoint_failure"],
        "answered_share": metrics["coverage"],
    }


async def bench(backend: str, count: int, out: Path, base_url: str | None, model: str, cache_dir: Path) -> dict:
    settings = Settings.from_env(
        {},
        corpora=(CORPUS,),
        sources=("local",),
        use_memory=False,
        cache_dir=cache_dir,
        backend=backend,
        openai_base_url=base_url if backend != "offline" else None,
        llm_model=model,
    )
    options = RunOptions(
        claims_path=CLAIMS,
        out_dir=out / backend,
        limit=count,
        concurrency=1,
        resume=True,
        split_file=SPLIT,
        parts=("test",),
    )
    done = [0]

    def progress(row: dict) -> None:
        done[0] += 1
        stats = row["stats"]
        print(
            f"  {backend} {done[0]}: {row['verdict']:<16} gold {row['gold']:<16} {stats['seconds']:6.1f}s "
            f"{stats['tool_calls']} call(s) {stats.get('prompt_tokens', 0)}+{stats.get('completion_tokens', 0)} tokens",
            flush=True,
        )

    outcome = await run(options, settings, on_progress=progress)
    return figures(outcome.metrics)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=100)
    parser.add_argument("--backend", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--out", type=Path, default=Path("runs/llm-bench"))
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    for path in (CLAIMS, CORPUS):
        if not path.is_file():
            sys.exit(f"{path} not found: this benchmark needs the shared FEVER data")
    base_url = os.environ.get("OPENAI_BASE_URL")
    if base_url is None and set(args.backend) - {"offline"}:
        sys.exit("set OPENAI_BASE_URL to the server to test (python scripts/local_llm.py serve prints it)")
    model = os.environ.get("MERMAID_LLM_MODEL", "local")
    summary = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "server": base_url,
        "model": model,
        "claims": args.claims,
        "backends": {},
    }
    for backend in args.backend:
        summary["backends"][backend] = asyncio.run(
            bench(backend, args.claims, args.out, base_url, model, args.cache_dir)
        )
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(
        f"\n{'backend':<9} {'acc':>6} {'F1':>6} {'calls':>6} {'tok in':>7} {'tok out':>7} {'s/claim':>8} {'parsed':>7} {'on LLM':>7} {'failed':>6}"
    )
    for backend, f in summary["backends"].items():
        parsed = "-" if f["parsed_call_share"] is None else f"{f['parsed_call_share']:.0%}"
        print(
            f"{backend:<9} {f['accuracy']:6.3f} {f['macro_f1']:6.3f} {f['tool_calls_per_claim']:6.2f} "
            f"{f['prompt_tokens_per_claim']:7.0f} {f['completion_tokens_per_claim']:7.0f} {f['seconds_per_claim']:8.1f} "
            f"{parsed:>7} {f['claims_on_llm_path']:7d} {f['claims_with_endpoint_failure']:6d}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
