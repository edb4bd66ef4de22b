"""Metrics of a batch run, computed from its result rows (the lines of ``results.jsonl``).

A row is a verification result (``verdict``, ``abstained``, ``confidence``, ``evidence``, ``stats``)
plus ``id``, ``gold`` and, where the dataset gives them, ``gold_evidence`` (sets of ``[page, line]``).
Every function here is pure: rows in, numbers out.
"""

from __future__ import annotations

import statistics
from collections import Counter

from mermaid_verifier.evaluation.metrics import label_metrics
from mermaid_verifier.models import Label
from mermaid_verifier.weighing.calibration import Outcome, area_under_risk_coverage, risk_coverage

FEVER_EVIDENCE_LIMIT = 5
SELECTIVE_ALPHAS = (0.5, 1.0, 2.0)
CALIBRATION_BINS = 10


def _correct(row: dict) -> bool:
    return row["verdict"] == row["gold"]


def predicted_sentences(row: dict, limit: int = FEVER_EVIDENCE_LIMIT) -> list[tuple[str, int]]:
    """The first ``limit`` evidence items that are corpus sentences, as (page, line), in ranked order."""
    sentences = [
        (e["page"], e["line"])
        for e in row.get("evidence", [])
        if e.get("page") is not None and e.get("line") is not None
    ]
    return sentences[:limit]


def fever_correct(row: dict) -> bool:
    """FEVER's strict criterion: the right label and, for SUPPORTS / REFUTES, at least one complete gold
    evidence set among the first five predicted sentences. Abstention does not change the label."""
    if not _correct(row):
        return False
    if row["gold"] == Label.NOT_ENOUGH_INFO.value:
        return True
    predicted = set(predicted_sentences(row))
    return any(all((page, line) in predicted for page, line in gold_set) for gold_set in row.get("gold_evidence") or [])


def fever_score(rows: list[dict]) -> float | None:
    """Share of claims that are FEVER-correct; None when no SUPPORTS/REFUTES row carries gold evidence."""
    if not any(row.get("gold_evidence") for row in rows if row["gold"] != Label.NOT_ENOUGH_INFO.value):
        return None
    return sum(fever_correct(row) for row in rows) / len(rows)


def selective_metrics(rows: list[dict]) -> dict:
    """Coverage, selective accuracy, abstention precision and the selective score at each α.

    abstention precision: of the abstained claims, the share whose kept label was wrong (abstaining
    helped). Selective score S_α = (correct answered − α · wrong answered) / all claims, so an
    abstention scores 0, a right answer 1 and a wrong one −α (the selective-utility form MMA reports).
    """
    answered = [row for row in rows if not row["abstained"]]
    abstained = [row for row in rows if row["abstained"]]
    right = sum(_correct(row) for row in answered)
    wrong = len(answered) - right
    return {
        "coverage": len(answered) / len(rows),
        "selective_accuracy": right / len(answered) if answered else None,
        "abstention_precision": sum(not _correct(row) for row in abstained) / len(abstained) if abstained else None,
        "selective_score": {f"{alpha:g}": (right - alpha * wrong) / len(rows) for alpha in SELECTIVE_ALPHAS},
    }


def risk_coverage_metrics(rows: list[dict]) -> dict:
    outcomes = [Outcome(confidence=row["confidence"], correct=_correct(row)) for row in rows]
    curve = risk_coverage(outcomes)
    return {
        "risk_coverage": {
            "threshold": [t for t, _, _ in curve],
            "coverage": [c for _, c, _ in curve],
            "risk": [r for _, _, r in curve],
        },
        "aurc": area_under_risk_coverage(outcomes),
    }


def reliability_diagram(rows: list[dict], bins: int = CALIBRATION_BINS) -> list[dict]:
    """Equal-width confidence bins: count, mean confidence and accuracy of the rows in each."""
    diagram = []
    for index in range(bins):
        low, high = index / bins, (index + 1) / bins
        members = [
            row for row in rows if low <= row["confidence"] < high or (index == bins - 1 and row["confidence"] == 1.0)
        ]
        diagram.append(
            {
                "bin_low": low,
                "bin_high": high,
                "count": len(members),
                "mean_confidence": statistics.fmean(row["confidence"] for row in members) if members else None,
                "accuracy": sum(_correct(row) for row in members) / len(members) if members else None,
            }
        )
    return diagram


def expected_calibration_error(diagram: list[dict]) -> float:
    """Σ_bins (n_b / N) · |accuracy_b − mean confidence_b|."""
    total = sum(b["count"] for b in diagram)
    return sum(b["count"] / total * abs(b["accuracy"] - b["mean_confidence"]) for b in diagram if b["count"])


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0–100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def cost_metrics(rows: list[dict]) -> dict:
    """Tool calls (mean, total, mean per tool), memory hit rate, LLM usage and latency."""
    # a row's LLM endpoint failure sits beside its stats (inside them in results of earlier versions)
    stats = [row["stats"] | ({"llm_failure": row["llm_failure"]} if row.get("llm_failure") else {}) for row in rows]
    per_tool: Counter[str] = Counter()
    for s in stats:
        per_tool.update(s.get("tool_calls_by_tool") or {})
    seconds = [s["seconds"] for s in stats]
    return {
        "tool_calls": {
            "mean": statistics.fmean(s["tool_calls"] for s in stats),
            "total": sum(s["tool_calls"] for s in stats),
            "per_tool": {tool: n / len(rows) for tool, n in sorted(per_tool.items())},
        },
        "memory_hit_rate": sum(s.get("memory_hits", 0) > 0 for s in stats) / len(rows),
        # LLM figures only for a run where some claim used an LLM (rows of zeros say nothing on an offline run)
        **({"llm": llm_figures(stats)} if any(_used_llm(s) for s in stats) else {}),
        "latency": {"p50": percentile(seconds, 50), "p95": percentile(seconds, 95), "mean": statistics.fmean(seconds)},
    }


def run_metrics(rows: list[dict]) -> dict:
    """Everything ``metrics.json`` holds for these rows."""
    if not rows:
        raise ValueError("no results to measure")
    metrics = label_metrics([r["gold"] for r in rows], [r["verdict"] for r in rows])
    metrics["fever_score"] = fever_score(rows)
    metrics |= selective_metrics(rows) | risk_coverage_metrics(rows) | cost_metrics(rows)
    metrics["reliability_diagram"] = reliability_diagram(rows)
    metrics["ece"] = expected_calibration_error(metrics["reliability_diagram"])
    return metrics


def llm_figures(stats: list[dict]) -> dict:
    """The LLM side of a run (only for runs where some claim took the LLM path)."""
    costs = [s.get("cost_usd") for s in stats if s.get("cost_usd") is not None]
    tool_turns = sum(s.get("llm_tool_turns", 0) for s in stats)
    unreadable = sum(s.get("llm_unreadable_turns", 0) for s in stats)
    return {
        "calls": sum(s.get("llm_calls", 0) for s in stats),
        "prompt_tokens": sum(s.get("prompt_tokens", 0) for s in stats),
        "completion_tokens": sum(s.get("completion_tokens", 0) for s in stats),
        "cost_usd": sum(costs) if costs else None,
        "claims_on_llm_path": sum(s.get("backend") == "llm" for s in stats),
        "claims_with_endpoint_failure": sum(bool(s.get("llm_failure")) for s in stats),
        "tool_call_turns": tool_turns,
        "unreadable_call_turns": unreadable,
        # of the executor replies that tried to call a tool, the share whose call could be read
        "parsed_call_share": tool_turns / (tool_turns + unreadable) if tool_turns + unreadable else None,
    }


def _used_llm(stats: dict) -> bool:
    return (
        stats.get("backend", "offline") != "offline" or bool(stats.get("llm_calls")) or bool(stats.get("llm_failure"))
    )
