"""Label metrics for a batch of verdicts: accuracy, per-class precision/recall/F1, macro-F1, confusion."""

from __future__ import annotations

from collections import Counter
from statistics import mean

from mermaid_verifier.stance_format import Label  # no pydantic: the training code scores with these

LABELS = [label.value for label in Label]


def confusion(gold: list[str], predicted: list[str]) -> dict[str, dict[str, int]]:
    """``confusion[gold][predicted]`` counts."""
    counts = Counter(zip(gold, predicted))
    return {g: {p: counts[(g, p)] for p in LABELS} for g in LABELS}


def per_class(gold: list[str], predicted: list[str]) -> dict[str, dict[str, float]]:
    scores = {}
    for label in LABELS:
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        fp = sum(g != label and p == label for g, p in zip(gold, predicted))
        fn = sum(g == label and p != label for g, p in zip(gold, predicted))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores[label] = {"precision": precision, "recall": recall, "f1": f1, "support": tp + fn}
    return scores


def macro_f1(gold: list[str], predicted: list[str]) -> float:
    """The mean of the three labels' F1 (a label never given nor predicted counts 0)."""
    return mean(c["f1"] for c in per_class(gold, predicted).values())


def label_metrics(gold: list[str], predicted: list[str], abstained: list[bool] | None = None) -> dict:
    if len(gold) != len(predicted) or not gold:
        raise ValueError("gold and predicted must be non-empty and of equal length")
    classes = per_class(gold, predicted)
    out = {
        "claims": len(gold),
        "accuracy": sum(g == p for g, p in zip(gold, predicted)) / len(gold),
        "macro_f1": mean(c["f1"] for c in classes.values()),
        "per_class": classes,
        "confusion": confusion(gold, predicted),
    }
    if abstained is not None:
        answered = [(g, p) for g, p, a in zip(gold, predicted, abstained) if not a]
        out["coverage"] = len(answered) / len(gold)
        out["selective_accuracy"] = sum(g == p for g, p in answered) / len(answered) if answered else None
    return out


def pair_figures(rows: list[dict], predicted: list[str]) -> dict:
    """Figures of a stance model's labels ``predicted`` for labelled pairs ``rows`` (``label``, ``origin``):
    accuracy, macro-F1, F1 per class and accuracy per pair origin — what training runs and benchmarks report."""
    gold = [row["label"] for row in rows]
    metrics = label_metrics(gold, predicted)
    by_origin: dict[str, list[bool]] = {}
    for row, g, p in zip(rows, gold, predicted):
        by_origin.setdefault(row["origin"], []).append(g == p)
    return {
        "pairs": len(rows),
        "accuracy": round(metrics["accuracy"], 4),
        "macro_f1": round(metrics["macro_f1"], 4),
        "f1_per_class": {label: round(metrics["per_class"][label]["f1"], 4) for label in LABELS},
        "accuracy_by_origin": {o: [round(sum(v) / len(v), 4), len(v)] for o, v in sorted(by_origin.items())},
    }
