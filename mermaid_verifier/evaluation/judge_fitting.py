"""Fitting the judge on verified claims: the label thresholds (grid search for macro-F1), the label model
(``JudgeModel``), the confidence model (``ConfidenceModel``, out of fold) and the abstention threshold, under
each reliability ablation; and writing the fitted judge where the runtime reads it.

Every configuration re-decides the *saved*, stance-scored evidence of each claim (``results.jsonl`` rows of
a FEVER run), so fitting needs no new retrieval. Fitting uses scikit-learn (the ``dev`` extra); the runtime
never does. ``scripts/evaluate_scoring.py`` is the command line around it.
"""

from __future__ import annotations

import datetime
import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path

from mermaid_verifier.agents.judge import (
    FEATURES,
    ConfidenceModel,
    JudgeConfig,
    JudgeModel,
    Weighing,
    confidence_inputs,
    label_and_confidence,
    weigh,
)
from mermaid_verifier.errors import ResultsError
from mermaid_verifier.evaluation.datasets import load_split_ids, page_groups, result_anchor_pages
from mermaid_verifier.evaluation.metrics import label_metrics
from mermaid_verifier.evaluation.run_metrics import expected_calibration_error, reliability_diagram
from mermaid_verifier.models import Evidence
from mermaid_verifier.weighing.calibration import Outcome, area_under_risk_coverage, risk_coverage
from mermaid_verifier.weighing.scoring import ReliabilityConfig, assess_trust
from mermaid_verifier.weighing.topicality import Topicality

NO_TOPICALITY = {"topicality": Topicality(enabled=False)}
CONFIGS = {  # name: (reliability terms, judge settings that differ from the bundled ones)
    "full": (ReliabilityConfig(), {}),
    "without S (source)": (ReliabilityConfig().without("source"), {}),
    "without T (time)": (ReliabilityConfig().without("time"), {}),
    "without Ccon (consensus)": (ReliabilityConfig().without("consensus"), {}),
    "no reliability": (ReliabilityConfig(), {"use_reliability": False}),
    "without topicality": (ReliabilityConfig(), NO_TOPICALITY),
    "no reliability, no topicality": (ReliabilityConfig(), {"use_reliability": False, **NO_TOPICALITY}),
}
DECIDERS = ("max-rule", "max-rule + confidence model", "fitted", "fitted + confidence model")
NEI_GRID = [x / 100 for x in range(6, 81, 2)]
WEIGHT_GRID = [x / 100 for x in range(40, 141, 5)]


class Claim:
    def __init__(self, row: dict, group: str):
        self.id = str(row.get("id", ""))
        self.group = group  # its page group: claims of one group share pages, so they share folds
        self.gold = row["gold"]
        self.text = row["claim"]
        self.entities = row.get("entities", [])
        self.evidence = [Evidence.model_validate(e) for e in row["evidence"]]
        self.now = max((e.retrieved_at or 0.0 for e in self.evidence), default=0.0)

    def trusted(self, reliability: ReliabilityConfig) -> list[Evidence]:
        return assess_trust(self.evidence, reliability, self.now)


def load(paths: list[Path], split: dict[str, str]) -> dict[str, list[Claim]]:
    """Every result row, grouped by the split part its claim id belongs to."""
    rows: dict[str, list[dict]] = {}
    for path in paths:
        for number, line in enumerate(path.open(), start=1):
            if line.strip():
                row = json.loads(line)
                part = split.get(str(row["id"]))
                if part is None:
                    raise ResultsError(
                        f"{path}:{number}: claim {row['id']} is in no part of the split: give results of the "
                        "split's claims (for fresh claims, read their ledger's own metrics)"
                    )
                rows.setdefault(part, []).append(row)
    parts: dict[str, list[Claim]] = {}
    for part, part_rows in rows.items():  # groups within a part: tuning folds must not depend on other parts' files
        groups = page_groups({str(row["id"]): result_anchor_pages(row) for row in part_rows})
        parts[part] = [Claim(row, groups[str(row["id"])]) for row in part_rows]
    return parts


def refuse_train_part(parts: dict[str, list[Claim]]) -> None:
    if "train" in parts:
        raise ResultsError("refusing results of train-part claims: the stance model was trained on their evidence")


def pooled_claims(parts: dict[str, list[Claim]]) -> tuple[list[Claim], list[str]]:
    """Every claim of these parts, in part order, with its group renamed ``part:group`` (page groups
    are found within a part, so two parts' groups must not merge by name), and each claim's part."""
    claims, claim_parts = [], []
    for part, part_claims in parts.items():
        for claim in part_claims:
            claim.group = f"{part}:{claim.group}"
            claims.append(claim)
            claim_parts.append(part)
    return claims, claim_parts


def weighings(claims: list[Claim], reliability: ReliabilityConfig, config: JudgeConfig) -> list[Weighing]:
    return [weigh(claim.trusted(reliability), config, claim.entities, claim.text) for claim in claims]


def predictions(weighed: list[Weighing], config: JudgeConfig) -> list[tuple[str, float, bool]]:
    return [
        (label.value, confidence, conflict)
        for label, confidence, conflict in (label_and_confidence(w, config) for w in weighed)
    ]


def tune(claims: list[Claim], weighed: list[Weighing], base: JudgeConfig) -> JudgeConfig:
    """The (nei_threshold, refute_weight) with the best macro-F1 on these claims."""
    gold = [c.gold for c in claims]
    best, best_score = base, -1.0
    for nei, weight in itertools.product(NEI_GRID, WEIGHT_GRID):
        config = base.model_copy(update={"nei_threshold": nei, "refute_weight": weight})
        score = label_metrics(gold, [label for label, _, _ in predictions(weighed, config)])["macro_f1"]
        if score > best_score:
            best, best_score = config, score
    return best


def fit_model(
    claims: list[Claim], weighed: list[Weighing], folds: int = 5, fitted_on: str = "tuning claims"
) -> tuple[JudgeModel, list[list[float]]]:
    """A multinomial logistic regression on the judge features (classes balanced, for macro-F1),
    and its out-of-fold class probabilities on these claims (for fitting the abstention threshold
    without judging the model on claims it was fitted to; none with ``folds=0``)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict

    x = [list(w.features) for w in weighed]
    y = [c.gold for c in claims]
    make = lambda: LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)  # noqa: E731
    out_of_fold = (
        cross_val_predict(
            make(), x, y, cv=GroupKFold(folds), groups=[c.group for c in claims], method="predict_proba"
        ).tolist()
        if folds
        else []
    )
    fitted = make().fit(x, y)
    model = JudgeModel(
        features=FEATURES,
        classes=tuple(fitted.classes_),
        coef=fitted.coef_.tolist(),
        intercept=fitted.intercept_.tolist(),
        fitted_on=f"{len(claims)} {fitted_on}",
    )
    return model, out_of_fold


@dataclass
class TrainPartFit:
    """A judge's label model fitted on a FEVER run's train-part claims, with the tuning parts (validation +
    calibration) it never saw, each claim weighed once under ``judge``'s settings."""

    train: list[Claim]
    tuning: list[Claim]
    train_weighed: list[Weighing]
    tuning_weighed: list[Weighing]
    judge: JudgeConfig
    reliability: ReliabilityConfig
    weighing_seconds: float


def fit_on_train_part(results: list[Path], split: Path, base: JudgeConfig) -> TrainPartFit:
    """``base`` with its label model fitted on the train part's claims of these results, as ``scripts/
    evaluate_scoring.py --fit-on-train`` fits the shipped judge; what a benchmark scores on the tuning parts."""
    parts = load(results, load_split_ids(split))
    train, tuning = parts.get("train", []), parts.get("validation", []) + parts.get("calibration", [])
    if not train or not tuning:
        raise ResultsError(
            f"{', '.join(map(str, results))}: need results of train-part and tuning-part claims of {split}; "
            f"got parts {sorted(parts) or 'none'}"
        )
    reliability = ReliabilityConfig()
    started = time.monotonic()
    train_weighed, tuning_weighed = weighings(train, reliability, base), weighings(tuning, reliability, base)
    seconds = time.monotonic() - started
    model, _ = fit_model(train, train_weighed, folds=0, fitted_on="train-part claims")
    judge = base.model_copy(update={"model": model})
    return TrainPartFit(train, tuning, train_weighed, tuning_weighed, judge, reliability, seconds)


def fit_confidence(
    claims: list[Claim],
    weighed: list[Weighing],
    config: JudgeConfig,
    folds: int = 5,
    label_interactions: bool = True,
    weights: list[float] | None = None,
) -> tuple[ConfidenceModel, list[Outcome]]:
    """A logistic regression for "the rule's label is right", and out-of-fold outcomes on these claims
    (so the abstention threshold is not fitted on probabilities the model was fitted to). Label
    interactions were chosen on the tuning parts (:func:`cross_part_check`; figures in the README).
    ``weights`` (``calibration.label_prior_weights``) weigh each claim in the fit and in its outcome."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict

    decided = predictions(weighed, config)
    x = [
        confidence_inputs(w.features, label, confidence, label_interactions)
        for w, (label, confidence, _) in zip(weighed, decided)
    ]
    y = [int(label == c.gold) for c, (label, _, _) in zip(claims, decided)]
    if len(set(y)) < 2:
        raise ValueError(f"every rule label on these {len(y)} claims is {'right' if y[0] else 'wrong'}")
    weights = weights or [1.0] * len(claims)
    make = lambda: LogisticRegression(C=1.0, max_iter=3000)  # noqa: E731
    out_of_fold = cross_val_predict(
        make(),
        x,
        y,
        cv=GroupKFold(folds),
        groups=[c.group for c in claims],
        method="predict_proba",
        params={"sample_weight": weights},
    )[:, 1]
    fitted = make().fit(x, y, sample_weight=weights)
    model = ConfidenceModel(
        features=FEATURES,
        coef=fitted.coef_[0].tolist(),
        intercept=float(fitted.intercept_[0]),
        label_interactions=label_interactions,
        fitted_on=f"{len(claims)} tuning claims",
    )
    scored = [
        Outcome(float(p) if w.has_evidence else 0.0, bool(right), conflict, claim.group, weight)
        for p, right, w, (_, _, conflict), claim, weight in zip(out_of_fold, y, weighed, decided, claims, weights)
    ]
    return model, scored


def cross_part_check(parts: dict[str, list[Claim]], base: JudgeConfig) -> list[str]:
    """Fit thresholds and confidence model on one tuning part, score the other (page-disjoint) one:
    the AURC and the error rate of the most confident 50 / 100 / 150 claims, with and without label
    interactions. Tuning parts only — this is how the confidence model's form was chosen."""
    if not (parts.get("validation") and parts.get("calibration")):
        return []
    weighed = {part: weighings(parts[part], ReliabilityConfig(), base) for part in ("validation", "calibration")}
    thresholds_by_part = {
        part: tune(parts[part], weighed[part], base) for part in weighed
    }  # once per part, not per model
    lines = []
    for label_interactions in (False, True):
        for fitted, scored in (("validation", "calibration"), ("calibration", "validation")):
            fitted_weighed, scored_weighed, thresholds = weighed[fitted], weighed[scored], thresholds_by_part[fitted]
            interactions = "with" if label_interactions else "without"
            try:
                model, _ = fit_confidence(
                    parts[fitted], fitted_weighed, thresholds, label_interactions=label_interactions
                )
            except ValueError as exc:
                lines.append(f"| {interactions} label interactions | {fitted} → {scored} | not fitted: {exc} | — |")
                continue
            scored_outcomes = outcomes(
                parts[scored], scored_weighed, thresholds.model_copy(update={"confidence_model": model})
            )
            ranked = sorted(scored_outcomes, key=lambda o: o.confidence, reverse=True)
            top = " / ".join(f"{sum(not o.correct for o in ranked[:k]) / k:.3f}" for k in (50, 100, 150))
            lines.append(
                f"| {interactions} label interactions | {fitted} → {scored} | "
                f"{area_under_risk_coverage(scored_outcomes):.3f} | {top} |"
            )
    return lines


def outcomes_from_probabilities(
    claims: list[Claim], weighed: list[Weighing], probabilities, classes, config, weights: list[float] | None = None
) -> list[Outcome]:
    out = []
    for claim, w, row, weight in zip(claims, weighed, probabilities, weights or [1.0] * len(claims)):
        label = classes[max(range(len(row)), key=row.__getitem__)]
        conflict = w.support >= config.conflict_level and w.refute >= config.conflict_level
        out.append(Outcome(max(row) if w.has_evidence else 0.0, label == claim.gold, conflict, claim.group, weight))
    return out


def outcomes(
    claims: list[Claim], weighed: list[Weighing], config: JudgeConfig, weights: list[float] | None = None
) -> list[Outcome]:
    return [
        Outcome(confidence, label == c.gold, conflict, c.group, weight)
        for c, (label, confidence, conflict), weight in zip(
            claims, predictions(weighed, config), weights or [1.0] * len(claims)
        )
    ]


def report(claims: list[Claim], weighed: list[Weighing], config: JudgeConfig) -> dict:
    decided = predictions(weighed, config)
    gold = [c.gold for c in claims]
    abstained = [conflict or confidence < config.abstain_below for _, confidence, conflict in decided]
    metrics = label_metrics(gold, [label for label, _, _ in decided], abstained)
    metrics["risk"] = (1 - metrics["selective_accuracy"]) if metrics["selective_accuracy"] is not None else None
    answered = [(label, label == c.gold) for c, (label, _, _), a in zip(claims, decided, abstained) if not a]
    metrics["answered_by_verdict"] = {  # verdict -> [answered, of them right]
        label: [sum(1 for x, _ in answered if x == label), sum(1 for x, ok in answered if x == label and ok)]
        for label in sorted({x for x, _ in answered})
    }
    scored = outcomes(claims, weighed, config)
    metrics["aurc"] = area_under_risk_coverage(scored)
    rows = [
        {"confidence": confidence, "verdict": label, "gold": c.gold}
        for c, (label, confidence, _) in zip(claims, decided)
    ]
    metrics["ece"] = round(expected_calibration_error(reliability_diagram(rows)), 4) if rows else None
    metrics["risk_coverage"] = [(round(t, 4), round(c, 4), round(r, 4)) for t, c, r in risk_coverage(scored)]
    return metrics


def save_judge_configuration(chosen: dict, path: Path, *, max_risk: float, tuned_on: str) -> None:
    """Write a fitted judge as the runtime reads it: thresholds in ``path`` (``judge_config.json``), the label
    model and the confidence model beside it (``judge_model.json``, ``judge_confidence.json``; a model the
    judge does not use is removed, so a stale one is never loaded)."""
    chosen = dict(chosen)
    for field, file_name in (("model", "judge_model.json"), ("confidence_model", "judge_confidence.json")):
        fitted = chosen.pop(field)
        model_path = path.with_name(file_name)
        if fitted is not None:
            model_path.write_text(json.dumps(fitted, indent=2) + "\n")
        elif model_path.exists():
            model_path.unlink()
    chosen.update(tuned_on=tuned_on, max_risk=max_risk, tuned_at=datetime.date.today().isoformat())
    path.write_text(json.dumps(chosen, indent=2) + "\n")
