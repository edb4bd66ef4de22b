"""A self-contained HTML report for a batch (FEVER) run: headline metrics, charts, per-claim table.

The page is one file with no external resources: the charts are inline SVG built here, the styles and the
small filter script are inline in the template (``templates/report.html.j2``). Every metric is optional;
what is missing shows as "n/a" or "not available".
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from markupsafe import Markup, escape

from mermaid_verifier.models import Label
from mermaid_verifier.rendering import (
    SHOWN_EVIDENCE,
    environment,
    evidence_view,
    finite,
    fmt_decimal,
    fmt_percent,
    fmt_seconds,
)

DEFAULT_TITLE = "mermaid-verifier FEVER run"
LABELS = [label.value for label in Label]
MAX_CURVE_POINTS = 400  # a risk–coverage curve has one point per distinct confidence; thin it for file size

# Chart geometry (SVG user units).
_WIDTH, _HEIGHT = 420, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 52, 16, 14, 44
_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


# ---- number formatting --------------------------------------------------------------------------


# ---- headline numbers ---------------------------------------------------------------------------


def _nested(metrics: dict, key: str, inner: str):
    value = metrics.get(key)
    return value.get(inner) if isinstance(value, dict) else None


def headline_numbers(metrics: dict, rows: list[dict]) -> list[tuple[str, str]]:
    """(label, formatted value) for the summary cards, in display order."""
    claims = metrics.get("claims")
    fever = metrics.get("fever_score")
    mean_tools = _nested(metrics, "tool_calls", "mean")
    throughput = metrics.get("throughput_claims_per_second", metrics.get("claims_per_second"))
    cards = [
        ("Claims", str(len(rows) if claims is None else claims)),
        ("Accuracy", fmt_percent(metrics.get("accuracy"))),
        ("Macro-F1", fmt_decimal(metrics.get("macro_f1"))),
        ("FEVER score", "n/a (no gold evidence)" if fever is None else fmt_percent(fever)),
        ("Coverage", fmt_percent(metrics.get("coverage"))),
        ("Selective accuracy", fmt_percent(metrics.get("selective_accuracy"))),
        ("Mean tool calls", fmt_decimal(mean_tools if mean_tools is not None else metrics.get("mean_tool_calls"), 2)),
        ("Latency p50", fmt_seconds(_nested(metrics, "latency", "p50"))),
        ("Latency p95", fmt_seconds(_nested(metrics, "latency", "p95"))),
        ("Throughput", "n/a" if finite(throughput) is None else f"{throughput:.2f} claims/s"),
    ]
    return cards + optional_numbers(metrics)


def optional_numbers(metrics: dict) -> list[tuple[str, str]]:
    """Cards for the metrics only some runs have; absent ones are left out rather than shown as n/a."""
    cards = []
    if "abstention_precision" in metrics:
        cards.append(("Abstention precision", fmt_percent(metrics["abstention_precision"])))
    if "memory_hit_rate" in metrics:
        cards.append(("Memory hit rate", fmt_percent(metrics["memory_hit_rate"])))
    selective = metrics.get("selective_score")
    if isinstance(selective, dict):
        for cost, value in selective.items():
            cards.append((f"Selective score (cost {cost})", fmt_decimal(value)))
    return cards


def per_tool_calls(metrics: dict) -> list[tuple[str, str]]:
    per_tool = _nested(metrics, "tool_calls", "per_tool")
    if not isinstance(per_tool, dict):
        return []
    return [(str(name), fmt_decimal(mean, 2)) for name, mean in sorted(per_tool.items())]


_SHOWN_ELSEWHERE = {
    "claims",
    "accuracy",
    "macro_f1",
    "fever_score",
    "coverage",
    "selective_accuracy",
    "mean_tool_calls",
    "claims_per_second",
    "throughput_claims_per_second",
    "abstention_precision",
    "memory_hit_rate",
    "aurc",
    "ece",
}


def run_details(metrics: dict) -> list[tuple[str, str]]:
    """The remaining scalar metrics (run settings and the like), plus flat dicts such as ``llm``."""
    details = []
    for key, value in metrics.items():
        if key in _SHOWN_ELSEWHERE:
            continue
        if (
            isinstance(value, dict)
            and value
            and all(not isinstance(v, (dict, list)) for v in value.values())
            and key not in ("latency", "tool_calls", "selective_score")
        ):
            details += [(f"{key}.{inner}", _scalar_text(v)) for inner, v in value.items()]
        elif value is None or isinstance(value, (str, int, float, bool)):
            details.append((key, _scalar_text(value)))
    return details


def _scalar_text(value) -> str:
    if isinstance(value, float):
        return fmt_decimal(value, 4)
    return "n/a" if value is None else str(value)


# ---- the machine --------------------------------------------------------------------------------


def machine_view(machine) -> dict | None:
    """A machine record (:func:`mermaid_verifier.reader.model_check.machine_record`) as the report shows it; None
    when the metrics have none (written before machines were recorded, or a row's machine not recorded)."""
    if not isinstance(machine, dict):
        return None
    flags = machine.get("cpu_flags")
    return {
        "architecture": _scalar_text(machine.get("architecture")),
        "cpus": _scalar_text(machine.get("cpus")),
        "cpu_flags": " ".join(map(str, flags)) if isinstance(flags, list) and flags else "none reported",
        "integer_kernel": _scalar_text(machine.get("integer_kernel")),
        "python": _scalar_text(machine.get("python")),
        "onnxruntime": _scalar_text(machine.get("onnxruntime")),
    }


def machine_history(metrics: dict) -> list[dict]:
    """The machines that decided the run's rows (``metrics["machines"]``), each with its row count and the
    machines of its Ray workers; empty when one machine, the one shown, decided them all."""
    history = metrics.get("machines")
    if not isinstance(history, list):
        return []
    entries = []
    for entry in history:
        if not isinstance(entry, dict):
            continue
        workers = entry.get("ray_workers")
        entries.append(
            {
                "rows": _scalar_text(entry.get("rows")),
                "machine": machine_view(entry.get("machine")),
                "ray_workers": [machine_view(w) for w in workers] if isinstance(workers, list) else [],
                "workers_elsewhere": isinstance(workers, list) and workers != [entry.get("machine")],
            }
        )
    if len(entries) > 1 or any(entry["workers_elsewhere"] for entry in entries):
        return entries
    return []


# ---- tables -------------------------------------------------------------------------------------


def _labels_of(table: dict) -> list[str]:
    """The three FEVER labels in their usual order, then any others the table has."""
    seen = set(table)
    for inner in table.values():
        if isinstance(inner, dict):
            seen |= set(inner)
    return LABELS + sorted(label for label in seen - set(LABELS))


def per_class_rows(metrics: dict) -> list[dict]:
    per_class = metrics.get("per_class")
    if not isinstance(per_class, dict) or not per_class:
        return []
    rows = []
    for label in _labels_of(per_class):
        scores = per_class.get(label)
        if isinstance(scores, dict):
            rows.append(
                {
                    "label": label,
                    "precision": fmt_decimal(scores.get("precision")),
                    "recall": fmt_decimal(scores.get("recall")),
                    "f1": fmt_decimal(scores.get("f1")),
                    "support": scores.get("support", "n/a"),
                }
            )
    return rows


def confusion_matrix(metrics: dict) -> dict | None:
    """{"labels": [...], "rows": [{"gold", "cells": [{"count", "shade", "diagonal"}]}]}, or None."""
    table = metrics.get("confusion")
    if not isinstance(table, dict) or not table:
        return None
    labels = [
        label
        for label in _labels_of(table)
        if label in table or any(isinstance(inner, dict) and label in inner for inner in table.values())
    ]
    rows = []
    for gold in labels:
        found = table.get(gold)
        counts: dict = found if isinstance(found, dict) else {}
        total = sum(c for c in counts.values() if isinstance(c, (int, float))) or 1
        cells = [
            {
                "count": counts.get(predicted, 0),
                "diagonal": gold == predicted,
                "shade": round(0.08 + 0.6 * (counts.get(predicted, 0) or 0) / total, 3),
            }
            for predicted in labels
        ]
        rows.append({"gold": gold, "cells": cells})
    return {"labels": labels, "rows": rows}


# ---- SVG charts ---------------------------------------------------------------------------------


def _x(value: float) -> float:
    return round(_LEFT + value * (_WIDTH - _LEFT - _RIGHT), 2)


def _y(value: float, top: float = 1.0) -> float:
    return round(_HEIGHT - _BOTTOM - value / top * (_HEIGHT - _TOP - _BOTTOM), 2)


def _axes(x_label: str, y_label: str, y_top: float = 1.0) -> str:
    """Frame, grid, tick labels and axis titles for a unit-square chart (y scaled to ``y_top``)."""
    parts = [
        f'<rect x="{_LEFT}" y="{_TOP}" width="{_WIDTH - _LEFT - _RIGHT}" '
        f'height="{_HEIGHT - _TOP - _BOTTOM}" class="frame"/>'
    ]
    for tick in _TICKS:
        x, y = _x(tick), _y(tick * y_top, y_top)
        parts.append(f'<line x1="{x}" y1="{_TOP}" x2="{x}" y2="{_HEIGHT - _BOTTOM}" class="grid"/>')
        parts.append(f'<line x1="{_LEFT}" y1="{y}" x2="{_WIDTH - _RIGHT}" y2="{y}" class="grid"/>')
        parts.append(f'<text x="{x}" y="{_HEIGHT - _BOTTOM + 16}" text-anchor="middle">{tick:g}</text>')
        parts.append(f'<text x="{_LEFT - 6}" y="{y + 4}" text-anchor="end">{tick * y_top:.2g}</text>')
    middle_y = (_TOP + _HEIGHT - _BOTTOM) / 2
    parts.append(
        f'<text x="{_x(0.5)}" y="{_HEIGHT - 8}" text-anchor="middle" class="axis-title">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text x="14" y="{middle_y}" text-anchor="middle" class="axis-title" '
        f'transform="rotate(-90 14 {middle_y})">{escape(y_label)}</text>'
    )
    return "".join(parts)


def _svg(title: str, body: str) -> Markup:
    return Markup(
        f'<svg class="chart" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>{body}</svg>'
    )


def curve_points(metrics: dict) -> list[tuple[float, float]]:
    """The valid (coverage, risk) pairs of ``metrics["risk_coverage"]``, sorted by coverage."""
    curve = metrics.get("risk_coverage")
    if not isinstance(curve, dict):
        return []
    coverage, risk = curve.get("coverage") or [], curve.get("risk") or []
    points = [(finite(c), finite(r)) for c, r in zip(coverage, risk)]
    return sorted((c, r) for c, r in points if c is not None and r is not None)


def thin(points: list, limit: int = MAX_CURVE_POINTS) -> list:
    """At most ``limit`` points, evenly spaced, always keeping the last."""
    if len(points) <= limit:
        return points
    step = math.ceil(len(points) / limit)
    return points[::step] + ([points[-1]] if (len(points) - 1) % step else [])


def risk_coverage_svg(metrics: dict) -> Markup | None:
    """Risk (error rate among answered claims) against coverage; None when there is no curve."""
    points = thin(curve_points(metrics))
    if not points:
        return None
    top = min(1.0, max(0.1, math.ceil(max(r for _, r in points) * 10) / 10))
    path = " ".join(f"{_x(c)},{_y(r, top)}" for c, r in points)
    dots = (
        ""
        if len(points) > 1
        else f'<circle cx="{_x(points[0][0])}" cy="{_y(points[0][1], top)}" r="3" class="curve-dot"/>'
    )
    body = _axes("coverage", "risk (error rate)", top) + f'<polyline points="{path}" class="curve"/>' + dots
    return _svg("Risk–coverage curve", body)


def reliability_bins(metrics: dict) -> list[dict]:
    """The bins of ``metrics["reliability_diagram"]`` that have claims and an accuracy."""
    bins = metrics.get("reliability_diagram")
    if not isinstance(bins, list):
        return []
    kept = []
    for item in bins:
        if not isinstance(item, dict):
            continue
        low, high, accuracy = finite(item.get("bin_low")), finite(item.get("bin_high")), finite(item.get("accuracy"))
        if low is None or high is None or accuracy is None or not item.get("count"):
            continue
        kept.append(
            {
                "low": low,
                "high": high,
                "accuracy": accuracy,
                "count": item.get("count"),
                "confidence": finite(item.get("mean_confidence")),
            }
        )
    return kept


MIN_BAR_PX = 2


def _bar(item: dict) -> str:
    x, width = _x(item["low"]), _x(item["high"]) - _x(item["low"])
    y = min(_y(item["accuracy"]), _y(0) - MIN_BAR_PX)  # a bin of accuracy 0 stays visible (and hoverable)
    tip = (
        f"{item['low']:.2f}–{item['high']:.2f}: accuracy {item['accuracy']:.3f}, "
        f"mean confidence {fmt_decimal(item['confidence'])}, {item['count']} claims"
    )
    bar = (
        f'<rect x="{x + 1}" y="{y}" width="{max(width - 2, 1)}" height="{round(_y(0) - y, 2)}" class="bar">'
        f"<title>{escape(tip)}</title></rect>"
    )
    if item["confidence"] is not None:
        bar += f'<circle cx="{_x(item["confidence"])}" cy="{_y(item["confidence"])}" r="2.5" class="conf-dot"/>'
    return bar


def reliability_svg(metrics: dict) -> Markup | None:
    """Accuracy per confidence bin as bars, with the diagonal of perfect calibration; None when empty."""
    bins = reliability_bins(metrics)
    if not bins:
        return None
    diagonal = f'<line x1="{_x(0)}" y1="{_y(0)}" x2="{_x(1)}" y2="{_y(1)}" class="diagonal"/>'
    return _svg("Reliability diagram", _axes("confidence", "accuracy") + "".join(map(_bar, bins)) + diagonal)


# ---- per-claim rows -----------------------------------------------------------------------------


def trace_view(step: dict) -> dict:
    arguments = step.get("action_input")
    return {
        "step": step.get("step", ""),
        "thought": step.get("thought") or "",
        "action": step.get("action") or "",
        "input": json.dumps(arguments, ensure_ascii=False) if arguments else "",
        "observation": step.get("observation") or "",
    }


def is_error(row: dict) -> bool:
    """A wrong label, whether or not the judge abstained; rows without gold are never errors."""
    gold = row.get("gold")
    return gold is not None and row.get("verdict") != gold


def claim_view(row: dict) -> dict:
    return {
        "id": row.get("id", ""),
        "claim": row.get("claim", ""),
        "gold": row.get("gold") or "n/a",
        "verdict": row.get("verdict") or "n/a",
        "abstained": bool(row.get("abstained")),
        "confidence": fmt_decimal(row.get("confidence"), 2),
        "reason": row.get("reason") or "",
        "error": is_error(row),
        "evidence": [evidence_view(e) for e in (row.get("evidence") or [])[:SHOWN_EVIDENCE]],
        "trace": [trace_view(s) for s in row.get("trace") or []],
    }


# ---- rendering ----------------------------------------------------------------------------------


def render_report(metrics: dict, rows: list[dict], title: str = DEFAULT_TITLE) -> str:
    """The whole report as one HTML string."""
    metrics = metrics or {}
    claims = [claim_view(row) for row in rows]
    return (
        environment()
        .get_template("report.html.j2")
        .render(
            title=title,
            headline=headline_numbers(metrics, rows),
            per_tool=per_tool_calls(metrics),
            details=run_details(metrics),
            machine=machine_view(metrics.get("machine")),
            machine_history=machine_history(metrics),
            per_class=per_class_rows(metrics),
            confusion=confusion_matrix(metrics),
            risk_coverage=risk_coverage_svg(metrics),
            aurc=fmt_decimal(metrics.get("aurc")),
            reliability=reliability_svg(metrics),
            ece=fmt_decimal(metrics.get("ece")),
            claims=claims,
            shown_evidence=SHOWN_EVIDENCE,
            errors=sum(claim["error"] for claim in claims),
        )
    )


def write_report(path: Path, metrics: dict, rows: list[dict], title: str = DEFAULT_TITLE) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(metrics, rows, title), encoding="utf-8")
    return path
