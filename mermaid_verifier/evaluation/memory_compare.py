"""``fever --compare-memory``: the same claims without memory, then with a fresh memory in shuffled
and in clustered order; how many tool calls memory saves and what it does to accuracy.

Each configuration is an ordinary resumable run in ``DIR/compare-memory/<name>/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from mermaid_verifier.config import Settings
from mermaid_verifier.evaluation.fever_run import Order, RunOptions, RunOutcome, write_json

CONFIGURATIONS: tuple[tuple[str, bool, Order], ...] = (  # name, memory on, order
    ("no-memory", False, "shuffled"),
    ("memory-shuffled", True, "shuffled"),
    ("memory-clustered", True, "clustered"),
)


def configuration_summary(metrics: dict) -> dict:
    """A configuration's figures, with the machine that wrote them and the machines that decided its rows
    (as in its ``metrics.json``)."""
    return {
        "claims": metrics["claims"],
        "accuracy": metrics["accuracy"],
        "macro_f1": metrics["macro_f1"],
        "tool_calls_per_claim": metrics["tool_calls"]["mean"],
        "memory_hit_rate": metrics["memory_hit_rate"],
        "machine": metrics.get("machine"),
        "machines": metrics.get("machines"),
    }


def against_baseline(summaries: dict[str, dict], baseline: str = "no-memory") -> dict[str, dict]:
    """Each configuration with its tool-call reduction (share of the baseline's calls saved) and accuracy change."""
    base = summaries[baseline]
    out = {}
    for name, summary in summaries.items():
        reduction = (
            1 - summary["tool_calls_per_claim"] / base["tool_calls_per_claim"] if base["tool_calls_per_claim"] else 0.0
        )
        out[name] = summary | {
            "tool_call_reduction": reduction,
            "accuracy_change": summary["accuracy"] - base["accuracy"],
            "macro_f1_change": summary["macro_f1"] - base["macro_f1"],
        }
    return out


async def compare(
    options: RunOptions, settings: Settings, run_one: Callable[[RunOptions, Settings], Awaitable[RunOutcome]]
) -> dict[str, dict]:
    root = options.out_dir / "compare-memory"
    summaries = {}
    for name, use_memory, order in CONFIGURATIONS:
        directory = root / name
        run_options = dataclasses.replace(options, out_dir=directory, order=order)
        run_settings = settings.with_(use_memory=use_memory, memory_location=directory / "evidence-memory")
        outcome = await run_one(run_options, run_settings)
        summaries[name] = configuration_summary(outcome.metrics)
    comparison = against_baseline(summaries)
    write_json(options.out_dir / "compare-memory.json", comparison)
    return comparison


def comparison_rows(comparison: dict[str, dict]) -> list[tuple[str, str]]:
    return [
        (
            name,
            f"{c['tool_calls_per_claim']:.2f} calls/claim ({c['tool_call_reduction']:+.1%} saved) · "
            f"accuracy {c['accuracy']:.3f} ({c['accuracy_change']:+.3f}) · macro-F1 {c['macro_f1']:.3f}",
        )
        for name, c in comparison.items()
    ]
