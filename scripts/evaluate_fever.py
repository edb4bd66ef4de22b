"""Evaluate the offline pipeline on a part of the page-disjoint FEVER paper_dev split.

    python -m scripts.evaluate_fever --part test --out runs/eval-test
    python -m scripts.evaluate_fever --part validation --out runs/eval-validation   # for evaluate_scoring.py

Runs every claim of the part through the real graph (spaCy decomposer, local-corpus MCP server over
stdio, stance model, judge), with memory off unless ``--memory``, and writes ``results.jsonl`` and
``metrics.json`` to ``--out``. Needs ../shared/data (the claims and the wiki corpus).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from mermaid_verifier.config import Settings
from mermaid_verifier.evaluation.batch import verify_labelled
from mermaid_verifier.evaluation.datasets import load_split_ids, read_labelled_claims, select
from mermaid_verifier.evaluation.metrics import label_metrics
from mermaid_verifier.graph import open_verifier

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"


async def evaluate(claims, settings: Settings, concurrency: int, results_path: Path) -> list[dict]:
    with (
        results_path.open("w") as out,
        Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=False
        ) as progress,
    ):
        task = progress.add_task("verifying", total=len(claims))
        done: list[dict] = []

        def record(row: dict) -> None:
            out.write(json.dumps(row) + "\n")
            done.append(row)
            correct = sum(r["gold"] == r["verdict"] for r in done)
            progress.update(task, advance=1, description=f"verifying (accuracy so far {correct / len(done):.3f})")

        async with open_verifier(settings) as verifier:
            return await verify_labelled(verifier, claims, concurrency, record)


def summarise(rows: list[dict], wall_seconds: float) -> dict:
    metrics = label_metrics([r["gold"] for r in rows], [r["verdict"] for r in rows], [r["abstained"] for r in rows])
    metrics["mean_tool_calls"] = statistics.mean(r["stats"]["tool_calls"] for r in rows)
    metrics["mean_seconds_per_claim"] = statistics.mean(r["stats"]["seconds"] for r in rows)
    metrics["wall_seconds"] = wall_seconds
    metrics["claims_per_second"] = len(rows) / wall_seconds
    return metrics


def markdown(metrics: dict) -> str:
    lines = [
        "| claims | accuracy | macro-F1 | F1 SUPPORTS | F1 REFUTES | F1 NEI | mean tool calls | s/claim (graph) |",
        "|---|---|---|---|---|---|---|---|",
        "| {claims} | {accuracy:.3f} | {macro_f1:.3f} | {s:.3f} | {r:.3f} | {n:.3f} | {mean_tool_calls:.2f} | {mean_seconds_per_claim:.3f} |".format(
            s=metrics["per_class"]["SUPPORTS"]["f1"],
            r=metrics["per_class"]["REFUTES"]["f1"],
            n=metrics["per_class"]["NOT ENOUGH INFO"]["f1"],
            **metrics,
        ),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["test", "calibration", "validation", "train"], default="test")
    parser.add_argument("--claims", type=Path, default=SHARED / "fever" / "paper_dev.jsonl")
    parser.add_argument("--corpus", type=Path, action="append", default=None)
    parser.add_argument("--split", type=Path, default=REPO / "training" / "splits" / "fever_paper_dev.json")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--memory", action="store_true", help="use a fresh evidence memory across the run")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if not args.claims.is_file():
        sys.exit(f"claims file not found: {args.claims} (needs ../shared/data)")

    claims, bad = read_labelled_claims(args.claims)
    claims = select(claims, load_split_ids(args.split), args.part)
    if args.limit:
        claims = claims[: args.limit]
    args.out.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="mermaid-eval-"))
    settings = Settings.from_env(
        corpora=tuple(args.corpus or [SHARED / "corpus" / "wiki_sentences.jsonl"]),
        cache_dir=cache,
        use_memory=args.memory,
    )
    started = time.perf_counter()
    rows = asyncio.run(evaluate(claims, settings, args.concurrency, args.out / "results.jsonl"))
    metrics = summarise(rows, time.perf_counter() - started)
    metrics.update(part=args.part, memory=args.memory, concurrency=args.concurrency, bad_lines=len(bad))
    (args.out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(markdown(metrics))
    print(
        json.dumps(
            {k: metrics[k] for k in ("coverage", "selective_accuracy", "wall_seconds", "claims_per_second")}, indent=2
        )
    )


if __name__ == "__main__":
    main()
