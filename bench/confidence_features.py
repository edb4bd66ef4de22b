"""Does the confidence model rank claims better with more of the evidence than the judge's features? Fitted on the
train part's claims of a FEVER run, scored on the tuning parts it never saw (validation + calibration).

    python -m bench.confidence_features runs/paper-dev/results.jsonl --out bench/results/confidence_features.json

The judge is refitted on the train part as ``scripts/evaluate_scoring.py --fit-on-train`` fits it (label model,
then a logistic regression for "its label is right", with label interactions). The confidence model is fitted
twice, on the same claims and labels: over the inputs it reads today (:func:`~mermaid_verifier.agents.judge.
confidence_inputs`) and over those plus the evidence features below, each also once per label:

* how many pages support the claim (an item's trusted support weight ≥ 0.3), how many refute it, how many pages
  were read at all (each ``log1p``);
* the share of the claim's numbers, dates and names the strongest supporting item does not contain
  (:func:`~mermaid_verifier.agents.slots.missing_values`; 1 when nothing supports);
* whether the strongest refuting item states the claim's slot (:mod:`mermaid_verifier.agents.slots`);
* the strongest supporting item's rank among the items by retrieval score (``log1p``).

For each: the area under the risk-coverage curve, the risk at 30 % and 60 % answered, the largest share answered
with at most 10 / 12 / 20 % errors (the empirical curve, no bound) and the expected calibration error (10 bins).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from mermaid_verifier.agents.judge import SLOT_READ_FROM, JudgeConfig, confidence_inputs, side_weights, slot_reading
from mermaid_verifier.agents.slots import ClaimReader, claim_values
from mermaid_verifier.evaluation.judge_fitting import Claim, fit_on_train_part, predictions
from mermaid_verifier.evaluation.run_metrics import expected_calibration_error, reliability_diagram
from mermaid_verifier.reader.model_check import machine_record
from mermaid_verifier.weighing.calibration import Outcome, area_under_risk_coverage, risk_coverage
from mermaid_verifier.weighing.scoring import ReliabilityConfig

REPO = Path(__file__).resolve().parents[1]
LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
SIDE_FROM = 0.3  # an item's trusted weight for a side from which its page counts as speaking for that side
EXTRA_FEATURES = ("pages_supporting", "pages_refuting", "pages_read", "support_missing", "refute_states_slot",
                  "support_rank")  # fmt: skip


def evidence_features(claim: Claim, config: JudgeConfig, reliability: ReliabilityConfig) -> list[float]:
    """:data:`EXTRA_FEATURES` of one claim's evidence, as the judge trusts and weighs it."""
    items = claim.trusted(reliability)
    if not items:
        return [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    supports, refutes = side_weights(items, config, claim.text, claim.entities)
    pages = lambda weights: {e.page or e.title for e, w in zip(items, weights) if w >= SIDE_FROM}  # noqa: E731
    best_support = max(range(len(items)), key=lambda i: supports[i])
    best_refute = max(range(len(items)), key=lambda i: refutes[i])
    reader = ClaimReader.of(claim.text)
    numbers, names = claim_values(reader.doc, reader.slot.subject)  # what missing_values asks a passage for
    values = len(numbers) + len(names)
    support_missing = 1.0  # nothing supports: the claim's values are found nowhere
    if supports[best_support] > SLOT_READ_FROM:
        missing = reader.missing(items[best_support].text, items[best_support].title)
        support_missing = len(missing) / values if values else 0.0
    refute_states = (
        refutes[best_refute] > SLOT_READ_FROM
        and slot_reading(claim.text, items[best_refute].title, items[best_refute].text).states_slot
    )
    by_retrieval = sorted(range(len(items)), key=lambda i: -(items[i].retrieval_score or 0.0))
    return [
        math.log1p(len(pages(supports))),
        math.log1p(len(pages(refutes))),
        math.log1p(len({e.page or e.title for e in items})),
        support_missing,
        float(refute_states),
        math.log1p(by_retrieval.index(best_support)),
    ]


def curve_summary(confidence: list[float], right: list[bool]) -> dict:
    """The risk-coverage summary of confidences and whether each label was right (see the module's doc), read off
    the curve ``fever`` reports (:func:`~mermaid_verifier.weighing.calibration.risk_coverage`), with its AURC and
    expected calibration error."""
    outcomes = [Outcome(confidence=c, correct=r) for c, r in zip(confidence, right)]
    curve = risk_coverage(outcomes)  # (threshold, coverage, risk), from the most confident claim down

    def risk_at(share: float) -> float:
        return next(risk for _, coverage, risk in curve if coverage >= share)

    summary = {
        "claims": len(outcomes),
        "accuracy": round(sum(right) / len(right), 4),
        "aurc": round(area_under_risk_coverage(outcomes), 4),
        "risk_at_30": round(risk_at(0.3), 4),
        "risk_at_60": round(risk_at(0.6), 4),
    }
    for budget in (0.10, 0.12, 0.20):
        within = [coverage for _, coverage, risk in curve if risk <= budget]
        summary[f"answered_within_{round(budget * 100)}"] = round(max(within, default=0.0), 4)
    rows = [{"confidence": c, "verdict": r, "gold": True} for c, r in zip(confidence, right)]  # right: verdict == gold
    summary["ece"] = round(expected_calibration_error(reliability_diagram(rows)), 4)
    return summary


def figures(results: list[Path], split: Path) -> dict:
    from sklearn.linear_model import LogisticRegression

    base = JudgeConfig.bundled().model_copy(update={"model": None, "confidence_model": None})
    fit = fit_on_train_part(results, split, base)
    reliability, judge = fit.reliability, fit.judge

    def inputs(claims, weighed, extra: bool) -> tuple[list[list[float]], list[bool]]:
        x, right = [], []
        for claim, weighing, (label, confidence, _) in zip(claims, weighed, predictions(weighed, judge)):
            row = confidence_inputs(weighing.features, label, confidence, True)
            if extra:
                features = evidence_features(claim, base, reliability)
                row += features + [f * (label == name) for f in features for name in LABELS]
            x.append(row)
            right.append(label == claim.gold)
        return x, right

    rows = {}
    for name, extra in (("judge features", False), ("judge features + evidence features", True)):
        x_train, y_train = inputs(fit.train, fit.train_weighed, extra)
        x_tuning, y_tuning = inputs(fit.tuning, fit.tuning_weighed, extra)
        fitted = LogisticRegression(C=1.0, max_iter=5000).fit(x_train, y_train)
        rows[name] = curve_summary(fitted.predict_proba(x_tuning)[:, 1].tolist(), y_tuning)
    return {
        "train_claims": len(fit.train),
        "tuning_claims": len(fit.tuning),
        "extra_features": EXTRA_FEATURES,
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results.jsonl of a `fever` run over paper_dev's parts")
    parser.add_argument("--split", type=Path, default=REPO / "training" / "splits" / "fever_paper_dev.json")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    found = figures(args.results, args.split)
    for name, row in found["rows"].items():
        print(
            f"{name}: AURC {row['aurc']:.4f}; risk at 30 % / 60 % answered {row['risk_at_30']:.3f} /"
            f" {row['risk_at_60']:.3f}; answered within 10 / 12 / 20 % errors {row['answered_within_10']:.3f} /"
            f" {row['answered_within_12']:.3f} / {row['answered_within_20']:.3f}; ECE {row['ece']:.4f}",
            flush=True,
        )
    if args.out:
        record = {"results": [str(p) for p in args.results], "machine": machine_record(), **found}
        args.out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
