"""Offline verification throughput (claims/s) at several concurrency levels, on FEVER paper_dev test claims.

    python -m bench.throughput [--claims 60] [--concurrency 1 2 4] [--cache-dir DIR]

Takes the first ``--claims`` claims of the *test* part of the page-disjoint FEVER paper_dev split
(``../shared/data/fever/paper_dev.jsonl``, ``training/splits/fever_paper_dev.json``) and verifies
them with the offline backend over the wiki corpus (``../shared/data/corpus/wiki_sentences.jsonl``;
the local-corpus source only, memory off), through ``batch.verify_labelled`` as ``evaluate_fever``
does. One ``open_verifier`` per concurrency level (its start-up is timed apart), then a warm-up on
3 other test claims that is not counted, then the timed run. Per-claim seconds are the graph's own
(``stats.seconds``). The corpus index is cached under ``--cache-dir`` (default: a fixed directory
in the system temp dir), so only the first run ever builds it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from bench.fever_sample import CORPUS, DEFAULT_CACHE, test_part_sample
from mermaid_verifier.evaluation.run_metrics import percentile


async def run(levels: list[int], measured, warm_up, settings) -> list[dict]:
    from mermaid_verifier.evaluation.batch import verify_labelled
    from mermaid_verifier.graph import open_verifier

    results, verdicts = [], {}
    for concurrency in levels:
        started = time.perf_counter()
        async with open_verifier(settings) as verifier:
            open_s = time.perf_counter() - started
            started = time.perf_counter()
            await verify_labelled(verifier, warm_up, concurrency)
            warm_s = time.perf_counter() - started
            started = time.perf_counter()
            rows = await verify_labelled(verifier, measured, concurrency)
            wall = time.perf_counter() - started
        seconds = [r["stats"]["seconds"] for r in rows]
        verdicts[concurrency] = {r["id"]: r["verdict"] for r in rows}
        result = {
            "concurrency": concurrency,
            "claims": len(rows),
            "open_s": open_s,
            "warm_up_s": warm_s,
            "wall_s": wall,
            "claims_per_s": len(rows) / wall,
            "claim_mean_s": statistics.mean(seconds),
            "claim_p50_s": statistics.median(seconds),
            "claim_p95_s": percentile(seconds, 95),
            "accuracy": sum(r["gold"] == r["verdict"] for r in rows) / len(rows),
            "tool_calls_mean": statistics.mean(r["stats"]["tool_calls"] for r in rows),
        }
        results.append(result)
        print(
            f"concurrency {concurrency}: {result['claims_per_s']:.2f} claims/s ({len(rows)} claims in {wall:.1f}s; "
            f"verifier start {open_s:.1f}s, warm-up {warm_s:.1f}s)",
            flush=True,
        )
    first = verdicts[levels[0]]
    differing = sum(first[i] != v[i] for v in verdicts.values() for i in first)
    if differing:
        print(f"note: {differing} verdicts differ between concurrency levels", flush=True)
    return results


def machine() -> dict:
    """This machine's record with the platform, the load and the date the figures were measured at."""
    from mermaid_verifier.reader.model_check import measurement_record

    return measurement_record()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=60)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=DEFAULT_CACHE,
        help=f"kept between runs: the wiki corpus index lives here (default {DEFAULT_CACHE})",
    )
    args = parser.parse_args()
    if args.claims < 1 or min(args.concurrency) < 1:
        parser.error("--claims and --concurrency must be at least 1")
    from mermaid_verifier.config import Settings

    measured, warm_up = test_part_sample(args.claims)
    settings = Settings.from_env(
        corpora=(CORPUS,), cache_dir=args.cache_dir, use_memory=False, sources=("local",), backend="offline"
    )
    indexed = any(args.cache_dir.glob("corpus-index/bm25-*/passages.json"))
    print(f"machine: {json.dumps(machine())}", flush=True)
    print(
        f"{len(measured)} FEVER paper_dev test claims, offline backend, local wiki corpus, memory off, "
        f"cache {args.cache_dir}{'' if indexed else ' (no cached index yet: the first start builds it)'}",
        flush=True,
    )
    results = asyncio.run(run(args.concurrency, measured, warm_up, settings))
    print("\n| concurrency | claims/s | wall s | s/claim mean | p50 | p95 | accuracy | tool calls/claim |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['concurrency']} | {r['claims_per_s']:.2f} | {r['wall_s']:.1f} | {r['claim_mean_s']:.2f} | "
            f"{r['claim_p50_s']:.2f} | {r['claim_p95_s']:.2f} | {r['accuracy']:.3f} | {r['tool_calls_mean']:.1f} |"
        )


if __name__ == "__main__":
    main()
