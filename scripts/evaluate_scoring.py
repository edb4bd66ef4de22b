"""Tune, calibrate and evaluate the judge under each reliability ablation.

    python scripts/evaluate_fever.py --part validation --out runs/eval-validation
    python scripts/evaluate_fever.py --part calibration --out runs/eval-calibration
    python scripts/evaluate_fever.py --part test --out runs/eval-test
    python scripts/evaluate_scoring.py runs/eval-*/results.jsonl --write-judge-config data/judge_config.json

The executor's evidence does not depend on reliability (it stops on stance and topicality), so each
configuration re-decides the *saved*, stance-scored evidence of every claim (the topicality ablations
re-decide evidence gathered by the topicality-aware executor: they show the judge's share of it). For
each configuration (full; without S; without T; without Ccon; no reliability; without topicality; neither)
on the tuning parts only
(**validation** + **calibration**, page-disjoint from training):
grid-search ``nei_threshold`` × ``refute_weight`` for macro-F1, then fit the abstention threshold to
``--max-risk``. Then apply both, unchanged, to the **test** part and report label accuracy,
macro-F1, coverage, selective accuracy, risk and the area under the risk–coverage curve.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
from pathlib import Path

from mermaid_verifier.agents.judge import (FEATURES, ConfidenceModel, JudgeConfig, JudgeModel, Weighing,
                                          confidence_inputs, rule, weigh)
from mermaid_verifier.evaluation.datasets import load_split_ids, page_groups, result_anchor_pages
from mermaid_verifier.calibration import Outcome, area_under_risk_coverage, fit_threshold, risk_coverage
from mermaid_verifier.evaluation.metrics import label_metrics
from mermaid_verifier.models import Evidence
from mermaid_verifier.scoring import ReliabilityConfig, assess_trust
from mermaid_verifier.topicality import Topicality

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
DEFAULT_SPLIT = Path(__file__).resolve().parents[1] / "training" / "splits" / "fever_paper_dev.json"


class Claim:
    def __init__(self, row: dict, group: str):
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
        for line in path.open():
            if line.strip():
                row = json.loads(line)
                rows.setdefault(split[str(row["id"])], []).append(row)
    parts: dict[str, list[Claim]] = {}
    for part, part_rows in rows.items():  # groups within a part: tuning folds must not depend on other parts' files
        groups = page_groups({str(row["id"]): result_anchor_pages(row) for row in part_rows})
        parts[part] = [Claim(row, groups[str(row["id"])]) for row in part_rows]
    return parts


def refuse_train_part(parts: dict[str, list[Claim]]) -> None:
    if "train" in parts:
        raise SystemExit("refusing results of train-part claims: the stance model was trained on their evidence")


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
    return [(label.value, confidence, conflict) for label, confidence, conflict in (rule(w, config) for w in weighed)]


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


def fit_model(claims: list[Claim], weighed: list[Weighing], folds: int = 5,
              fitted_on: str = "tuning claims") -> tuple[JudgeModel, list[list[float]]]:
    """A multinomial logistic regression on the judge features (classes balanced, for macro-F1),
    and its out-of-fold class probabilities on these claims (for fitting the abstention threshold
    without judging the model on claims it was fitted to; none with ``folds=0``)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict

    x = [list(w.features) for w in weighed]
    y = [c.gold for c in claims]
    make = lambda: LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)  # noqa: E731
    out_of_fold = (cross_val_predict(make(), x, y, cv=GroupKFold(folds), groups=[c.group for c in claims],
                                     method="predict_proba").tolist() if folds else [])
    fitted = make().fit(x, y)
    model = JudgeModel(features=FEATURES, classes=tuple(fitted.classes_), coef=fitted.coef_.tolist(),
                       intercept=fitted.intercept_.tolist(), fitted_on=f"{len(claims)} {fitted_on}")
    return model, out_of_fold


def fit_confidence(claims: list[Claim], weighed: list[Weighing], config: JudgeConfig, folds: int = 5,
                   label_interactions: bool = True) -> tuple[ConfidenceModel, list[Outcome]]:
    """A logistic regression for "the rule's label is right", and out-of-fold outcomes on these claims
    (so the abstention threshold is not fitted on probabilities the model was fitted to). Label
    interactions were chosen on the tuning parts (:func:`cross_part_check`; figures in the README)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict

    decided = predictions(weighed, config)
    x = [confidence_inputs(w.features, label, confidence, label_interactions)
         for w, (label, confidence, _) in zip(weighed, decided)]
    y = [int(label == c.gold) for c, (label, _, _) in zip(claims, decided)]
    if len(set(y)) < 2:
        raise ValueError(f"every rule label on these {len(y)} claims is {'right' if y[0] else 'wrong'}")
    make = lambda: LogisticRegression(C=1.0, max_iter=3000)  # noqa: E731
    out_of_fold = cross_val_predict(make(), x, y, cv=GroupKFold(folds), groups=[c.group for c in claims],
                                    method="predict_proba")[:, 1]
    fitted = make().fit(x, y)
    model = ConfidenceModel(features=FEATURES, coef=fitted.coef_[0].tolist(), intercept=float(fitted.intercept_[0]),
                            label_interactions=label_interactions, fitted_on=f"{len(claims)} tuning claims")
    scored = [Outcome(float(p) if w.has_evidence else 0.0, bool(right), conflict, claim.group)
              for p, right, w, (_, _, conflict), claim in zip(out_of_fold, y, weighed, decided, claims)]
    return model, scored


def cross_part_check(parts: dict[str, list[Claim]], base: JudgeConfig) -> list[str]:
    """Fit thresholds and confidence model on one tuning part, score the other (page-disjoint) one:
    the AURC and the error rate of the most confident 50 / 100 / 150 claims, with and without label
    interactions. Tuning parts only — this is how the confidence model's form was chosen."""
    if not (parts.get("validation") and parts.get("calibration")):
        return []
    weighed = {part: weighings(parts[part], ReliabilityConfig(), base) for part in ("validation", "calibration")}
    thresholds_by_part = {part: tune(parts[part], weighed[part], base) for part in weighed}  # once per part, not per model
    lines = []
    for label_interactions in (False, True):
        for fitted, scored in (("validation", "calibration"), ("calibration", "validation")):
            fitted_weighed, scored_weighed, thresholds = weighed[fitted], weighed[scored], thresholds_by_part[fitted]
            interactions = "with" if label_interactions else "without"
            try:
                model, _ = fit_confidence(parts[fitted], fitted_weighed, thresholds, label_interactions=label_interactions)
            except ValueError as exc:
                lines.append(f"| {interactions} label interactions | {fitted} → {scored} | not fitted: {exc} | — |")
                continue
            scored_outcomes = outcomes(parts[scored], scored_weighed, thresholds.model_copy(update={"confidence_model": model}))
            ranked = sorted(scored_outcomes, key=lambda o: o.confidence, reverse=True)
            top = " / ".join(f"{sum(not o.correct for o in ranked[:k]) / k:.3f}" for k in (50, 100, 150))
            lines.append(f"| {interactions} label interactions | {fitted} → {scored} | "
                         f"{area_under_risk_coverage(scored_outcomes):.3f} | {top} |")
    return lines


def outcomes_from_probabilities(claims: list[Claim], weighed: list[Weighing], probabilities, classes, config) -> list[Outcome]:
    out = []
    for claim, w, row in zip(claims, weighed, probabilities):
        label = classes[max(range(len(row)), key=row.__getitem__)]
        conflict = w.support >= config.conflict_level and w.refute >= config.conflict_level
        out.append(Outcome(max(row) if w.has_evidence else 0.0, label == claim.gold, conflict, claim.group))
    return out


def outcomes(claims: list[Claim], weighed: list[Weighing], config: JudgeConfig) -> list[Outcome]:
    return [Outcome(confidence, label == c.gold, conflict, c.group)
            for c, (label, confidence, conflict) in zip(claims, predictions(weighed, config))]


def report(claims: list[Claim], weighed: list[Weighing], config: JudgeConfig) -> dict:
    decided = predictions(weighed, config)
    gold = [c.gold for c in claims]
    abstained = [conflict or confidence < config.abstain_below for _, confidence, conflict in decided]
    metrics = label_metrics(gold, [label for label, _, _ in decided], abstained)
    metrics["risk"] = (1 - metrics["selective_accuracy"]) if metrics["selective_accuracy"] is not None else None
    scored = outcomes(claims, weighed, config)
    metrics["aurc"] = area_under_risk_coverage(scored)
    metrics["risk_coverage"] = [(round(t, 4), round(c, 4), round(r, 4)) for t, c, r in risk_coverage(scored)]
    return metrics


def tuning_arguments(description: str, results_help: str, several_deltas: bool = False) -> argparse.ArgumentParser:
    """The arguments every tuning script takes: result files, the split, the risk budget and its δ
    (with ``several_deltas``, ``--delta`` may be repeated and ``args.delta`` is a list)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("results", type=Path, nargs="+", help=results_help)
    parser.add_argument("--split", type=Path, default=DEFAULT_SPLIT)
    parser.add_argument("--max-risk", type=float, default=0.10)
    delta_help = "the risk bound's error probability"
    if several_deltas:
        parser.add_argument("--delta", type=float, action="append", help=f"{delta_help}; repeat to compare (default 0.1)")
    else:
        parser.add_argument("--delta", type=float, default=0.1, help=delta_help)
    return parser


def main() -> None:
    parser = tuning_arguments(__doc__.splitlines()[0], "results.jsonl files of evaluate_fever.py runs")
    parser.add_argument("--out", type=Path, default=None, help="write all figures here as JSON")
    parser.add_argument("--write-judge-config", type=Path, default=None, help="save the full configuration's thresholds")
    parser.add_argument("--decider", choices=DECIDERS, default="max-rule + confidence model", help="which judge to save")
    parser.add_argument("--cross-part-check", action="store_true",
                        help="also fit the confidence model on one tuning part and score the other, with and without label interactions")
    parser.add_argument("--fit-on-train", action="store_true",
                        help="fit the 'fitted' judge on the train part's results (the evidence the pipeline retrieves for "
                             "training claims) and score it on the tuning parts, which it never saw")
    args = parser.parse_args()
    parts = load(args.results, load_split_ids(args.split))
    train_part = parts.pop("train", []) if args.fit_on_train else []
    if args.fit_on_train and not train_part:
        raise SystemExit("--fit-on-train needs results of train-part claims")
    refuse_train_part(parts)
    validation = parts.get("validation", []) + parts.get("calibration", [])
    test = parts.get("test", [])
    if not validation:
        raise SystemExit(f"need tuning (validation/calibration) results; got {sorted(parts)}")
    if test:
        print(f"tuning on {len(validation)} claims (validation + calibration), reporting on {len(test)} test claims")
    else:  # fix the judge before the test part is ever run with it
        print(f"tuning on {len(validation)} claims (validation + calibration); no test results given, so test figures are left out")
    if args.cross_part_check:
        print("| confidence model | fitted → scored | AURC | error rate of the top 50 / 100 / 150 |\n|---|---|---|---|")
        print("\n".join(cross_part_check(parts, JudgeConfig.bundled().model_copy(update={"model": None, "confidence_model": None}))))
    results = {}
    if test:
        print(f"| configuration | accuracy | macro-F1 | F1 S / R / NEI | coverage @ risk≤{args.max_risk:.2f} | "
              f"selective accuracy | test risk | AURC |")
        print("|---|---|---|---|---|---|---|---|")
    for name, (reliability, judge_settings) in CONFIGS.items():
        base = JudgeConfig.bundled().model_copy(update={**judge_settings, "model": None, "confidence_model": None})
        tuning_weighed = weighings(validation, reliability, base)
        test_weighed = weighings(test, reliability, base)
        for decider in DECIDERS:
            if decider == "max-rule":
                chosen = tune(validation, tuning_weighed, base)
                tuning_outcomes = outcomes(validation, tuning_weighed, chosen)
            elif decider == "max-rule + confidence model":
                thresholds = tune(validation, tuning_weighed, base)
                try:
                    confidence_model, tuning_outcomes = fit_confidence(validation, tuning_weighed, thresholds)
                except ValueError as exc:
                    raise SystemExit(f"{name}: cannot fit the confidence model: {exc}") from exc
                chosen = thresholds.model_copy(update={"confidence_model": confidence_model})
            elif train_part:  # train as you infer: fitted on training claims, scored on tuning claims it never saw
                model, _ = fit_model(train_part, weighings(train_part, reliability, base), folds=0,
                                     fitted_on="train-part claims (the pipeline's own evidence)")
                chosen = base.model_copy(update={"model": model})
                tuning_outcomes = outcomes(validation, tuning_weighed, chosen)
                if decider == "fitted + confidence model":  # how likely its label is right, out of fold on tuning claims
                    confidence_model, tuning_outcomes = fit_confidence(validation, tuning_weighed, chosen)
                    chosen = chosen.model_copy(update={"confidence_model": confidence_model})
            elif decider == "fitted + confidence model":
                continue  # needs --fit-on-train: a judge fitted on the tuning claims leaves none to fit its confidence on
            else:
                model, out_of_fold = fit_model(validation, tuning_weighed)
                chosen = base.model_copy(update={"model": model})
                tuning_outcomes = outcomes_from_probabilities(validation, tuning_weighed, out_of_fold, model.classes, chosen)
            threshold, val_coverage, val_risk, bound = fit_threshold(tuning_outcomes, args.max_risk, args.delta)
            final = chosen.model_copy(update={"abstain_below": threshold})
            key = f"{name}, {decider}"
            tuning = {"macro_f1": report(validation, tuning_weighed, final)["macro_f1"], "coverage": val_coverage,
                      "risk": val_risk, "risk_upper_bound": bound}
            results[key] = {"judge": final.model_dump(), "tuning": tuning}
            if not test:
                sample = "held-out" if decider == "fitted" and train_part else "out-of-fold confidence" if train_part and decider.startswith("fitted") else "in-sample"
                print(f"| {key} | tuning ({sample}) macro-F1 {tuning['macro_f1']:.3f} | threshold {threshold:.3f}: "
                      f"coverage {val_coverage:.3f}, risk {val_risk:.3f} (bound {bound:.3f}) |")
                continue
            figures = report(test, test_weighed, final)
            results[key]["test"] = figures
            per_class = figures["per_class"]
            print(f"| {key} | {figures['accuracy']:.3f} | {figures['macro_f1']:.3f} | "
                  f"{per_class['SUPPORTS']['f1']:.3f} / {per_class['REFUTES']['f1']:.3f} / {per_class['NOT ENOUGH INFO']['f1']:.3f} | "
                  f"{figures['coverage']:.3f} | {figures['selective_accuracy'] or 0:.3f} | "
                  f"{figures['risk'] if figures['risk'] is not None else float('nan'):.3f} | {figures['aurc']:.3f} |")
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    if args.write_judge_config:
        chosen = results[f"full, {args.decider}"]["judge"]
        for field, file_name in (("model", "judge_model.json"), ("confidence_model", "judge_confidence.json")):
            fitted = chosen.pop(field)
            model_path = args.write_judge_config.with_name(file_name)
            if fitted is not None:
                model_path.write_text(json.dumps(fitted, indent=2) + "\n")
            elif model_path.exists():
                model_path.unlink()
        fitted_on = (f"decision fitted on {len(train_part)} train-part claims; abstention on " if train_part and args.decider.startswith("fitted")
                     else "")
        chosen.update(tuned_on=f"{fitted_on}FEVER paper_dev validation + calibration parts ({len(validation)} claims)", max_risk=args.max_risk,
                      tuned_at=datetime.date.today().isoformat())
        args.write_judge_config.write_text(json.dumps(chosen, indent=2) + "\n")


if __name__ == "__main__":
    main()
