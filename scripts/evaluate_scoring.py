"""Tune, calibrate and evaluate the judge under each reliability ablation (the fitting itself is
``mermaid_verifier.evaluation.judge_fitting``).

    python -m scripts.evaluate_fever --part validation --out runs/eval-validation
    python -m scripts.evaluate_fever --part calibration --out runs/eval-calibration
    python -m scripts.evaluate_fever --part test --out runs/eval-test
    python -m scripts.evaluate_scoring runs/eval-*/results.jsonl --write-judge-config data/judge_config.json

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
import json
import sys
from collections.abc import Callable
from pathlib import Path

from mermaid_verifier.agents.judge import JudgeConfig
from mermaid_verifier.errors import MermaidError
from mermaid_verifier.evaluation.datasets import load_split_ids
from mermaid_verifier.evaluation.judge_fitting import (
    CONFIGS,
    DECIDERS,
    cross_part_check,
    fit_confidence,
    fit_model,
    load,
    outcomes,
    outcomes_from_probabilities,
    refuse_train_part,
    report,
    save_judge_configuration,
    tune,
    weighings,
)
from mermaid_verifier.weighing.calibration import LABEL_PRIORS, MOST_LIKELY_RIGHT, fit_threshold, label_prior_weights

DEFAULT_SPLIT = Path(__file__).resolve().parents[1] / "training" / "splits" / "fever_paper_dev.json"


def run(main: Callable[[], None]) -> None:
    """Run a tuning script's ``main``: results it cannot use end it with one line on stderr naming the file,
    and the error's exit code."""
    try:
        main()
    except MermaidError as error:
        print(error, file=sys.stderr)
        raise SystemExit(error.exit_code) from None


def tuning_arguments(description: str, results_help: str, several_deltas: bool = False) -> argparse.ArgumentParser:
    """The arguments every tuning script takes: result files, the split, the risk budget and its δ
    (with ``several_deltas``, ``--delta`` may be repeated and ``args.delta`` is a list)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("results", type=Path, nargs="+", help=results_help)
    parser.add_argument("--split", type=Path, default=DEFAULT_SPLIT)
    parser.add_argument("--max-risk", type=float, default=0.10)
    parser.add_argument(
        "--label-prior",
        choices=LABEL_PRIORS,
        default="balanced",
        help="weigh tuning claims so each gold label counts the same (balanced; paper_dev's own mix is 44 %% "
        "NOT ENOUGH INFO), or as they come, when fitting the confidence model and the abstention threshold",
    )
    delta_help = "the risk bound's error probability"
    if several_deltas:
        parser.add_argument(
            "--delta", type=float, action="append", help=f"{delta_help}; repeat to compare (default 0.1)"
        )
    else:
        parser.add_argument("--delta", type=float, default=0.1, help=delta_help)
    return parser


def main() -> None:
    parser = tuning_arguments(__doc__.splitlines()[0], "results.jsonl files of evaluate_fever.py runs")
    parser.add_argument("--out", type=Path, default=None, help="write all figures here as JSON")
    parser.add_argument(
        "--write-judge-config", type=Path, default=None, help="save the full configuration's thresholds"
    )
    parser.add_argument(
        "--decider", choices=DECIDERS, default="max-rule + confidence model", help="which judge to save"
    )
    parser.add_argument(
        "--cross-part-check",
        action="store_true",
        help="also fit the confidence model on one tuning part and score the other, with and without label interactions",
    )
    parser.add_argument(
        "--fit-on-train",
        action="store_true",
        help="fit the 'fitted' judge on the train part's results (the evidence the pipeline retrieves for "
        "training claims) and score it on the tuning parts, which it never saw",
    )
    parser.add_argument(
        "--unstated-refutes",
        type=float,
        default=None,
        help="how much of a refutation counts from an item that does not speak to the claim's slot (default: the"
        " bundled judge configuration's)",
    )
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
    prior = label_prior_weights([c.gold for c in validation], args.label_prior)
    if test:
        print(f"tuning on {len(validation)} claims (validation + calibration), reporting on {len(test)} test claims")
    else:  # fix the judge before the test part is ever run with it
        print(
            f"tuning on {len(validation)} claims (validation + calibration); no test results given, so test figures are left out"
        )
    if args.cross_part_check:
        print("| confidence model | fitted → scored | AURC | error rate of the top 50 / 100 / 150 |\n|---|---|---|---|")
        print(
            "\n".join(
                cross_part_check(
                    parts, JudgeConfig.bundled().model_copy(update={"model": None, "confidence_model": None})
                )
            )
        )
    results = {}
    if test:
        print(
            f"| configuration | accuracy | macro-F1 | F1 S / R / NEI | coverage @ risk≤{args.max_risk:.2f} | "
            f"selective accuracy | test risk | AURC | ECE |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
    for name, (reliability, judge_settings) in CONFIGS.items():
        base = JudgeConfig.bundled().model_copy(update={**judge_settings, "model": None, "confidence_model": None})
        if args.unstated_refutes is not None:
            base = base.model_copy(update={"unstated_refutes": args.unstated_refutes})
        tuning_weighed = weighings(validation, reliability, base)
        test_weighed = weighings(test, reliability, base)
        for decider in DECIDERS:
            if decider == "max-rule":
                chosen = tune(validation, tuning_weighed, base)
                tuning_outcomes = outcomes(validation, tuning_weighed, chosen, prior)
            elif decider == "max-rule + confidence model":
                thresholds = tune(validation, tuning_weighed, base)
                try:
                    confidence_model, tuning_outcomes = fit_confidence(
                        validation, tuning_weighed, thresholds, weights=prior
                    )
                except ValueError as exc:
                    raise SystemExit(f"{name}: cannot fit the confidence model: {exc}") from exc
                chosen = thresholds.model_copy(update={"confidence_model": confidence_model})
            elif train_part:  # train as you infer: fitted on training claims, scored on tuning claims it never saw
                model, _ = fit_model(
                    train_part,
                    weighings(train_part, reliability, base),
                    folds=0,
                    fitted_on="train-part claims (the pipeline's own evidence)",
                )
                chosen = base.model_copy(update={"model": model})
                tuning_outcomes = outcomes(validation, tuning_weighed, chosen, prior)
                if (
                    decider == "fitted + confidence model"
                ):  # how likely its label is right, out of fold on tuning claims
                    confidence_model, tuning_outcomes = fit_confidence(
                        validation, tuning_weighed, chosen, weights=prior
                    )
                    chosen = chosen.model_copy(update={"confidence_model": confidence_model})
            elif decider == "fitted + confidence model":
                continue  # needs --fit-on-train: a judge fitted on the tuning claims leaves none to fit its confidence on
            else:
                model, out_of_fold = fit_model(validation, tuning_weighed)
                chosen = base.model_copy(update={"model": model})
                tuning_outcomes = outcomes_from_probabilities(
                    validation, tuning_weighed, out_of_fold, model.classes, chosen, prior
                )
            threshold, val_coverage, val_risk, bound = fit_threshold(
                tuning_outcomes, args.max_risk, args.delta, MOST_LIKELY_RIGHT if "confidence model" in decider else 0.0
            )
            final = chosen.model_copy(update={"abstain_below": threshold})
            key = f"{name}, {decider}"
            tuning = {
                "macro_f1": report(validation, tuning_weighed, final)["macro_f1"],
                "coverage": val_coverage,
                "risk": val_risk,
                "risk_upper_bound": bound,
            }
            results[key] = {"judge": final.model_dump(), "tuning": tuning}
            if not test:
                sample = (
                    "held-out"
                    if decider == "fitted" and train_part
                    else "out-of-fold confidence"
                    if train_part and decider.startswith("fitted")
                    else "in-sample"
                )
                print(
                    f"| {key} | tuning ({sample}) macro-F1 {tuning['macro_f1']:.3f} | threshold {threshold:.3f}: "
                    f"coverage {val_coverage:.3f}, risk {val_risk:.3f} (bound {bound:.3f}) |"
                )
                continue
            figures = report(test, test_weighed, final)
            results[key]["test"] = figures
            per_class = figures["per_class"]
            print(
                f"| {key} | {figures['accuracy']:.3f} | {figures['macro_f1']:.3f} | "
                f"{per_class['SUPPORTS']['f1']:.3f} / {per_class['REFUTES']['f1']:.3f} / {per_class['NOT ENOUGH INFO']['f1']:.3f} | "
                f"{figures['coverage']:.3f} | {figures['selective_accuracy'] or 0:.3f} | "
                f"{figures['risk'] if figures['risk'] is not None else float('nan'):.3f} | {figures['aurc']:.3f} | "
                f"{figures['ece'] if figures['ece'] is not None else float('nan'):.3f} |"
            )
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    if args.write_judge_config:
        decided_on = (
            f"decision fitted on {len(train_part)} train-part claims; abstention on "
            if train_part and args.decider.startswith("fitted")
            else ""
        )
        save_judge_configuration(
            results[f"full, {args.decider}"]["judge"],
            args.write_judge_config,
            max_risk=args.max_risk,
            tuned_on=f"{decided_on}FEVER paper_dev validation + calibration parts ({len(validation)} claims, "
            f"label prior {args.label_prior})",
        )


if __name__ == "__main__":
    run(main)
