"""Tune, calibrate and evaluate the judge under each reliability ablation.

    python scripts/evaluate_fever.py --part validation --out runs/eval-validation
    python scripts/evaluate_fever.py --part test --out runs/eval-test
    python scripts/evaluate_scoring.py runs/eval-validation/results.jsonl runs/eval-test/results.jsonl \
        --write-judge-config data/judge_config.json

The executor's evidence does not depend on reliability (it stops on stance alone), so each
configuration re-decides the *saved*, stance-scored evidence of every claim. For each configuration
(full; without S; without T; without Ccon; no reliability at all) on the **validation** part only:
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

from mermaid_verifier.agents.judge import JudgeConfig, decide
from mermaid_verifier.calibration import Outcome, area_under_risk_coverage, fit_threshold, risk_coverage
from mermaid_verifier.metrics import label_metrics
from mermaid_verifier.models import Evidence
from mermaid_verifier.scoring import ReliabilityConfig, assess_trust

CONFIGS = {
    "full": (ReliabilityConfig(), True),
    "without S (source)": (ReliabilityConfig().without("source"), True),
    "without T (time)": (ReliabilityConfig().without("time"), True),
    "without Ccon (consensus)": (ReliabilityConfig().without("consensus"), True),
    "no reliability": (ReliabilityConfig(), False),
}
NEI_GRID = [x / 100 for x in range(6, 81, 2)]
WEIGHT_GRID = [x / 100 for x in range(40, 141, 5)]


class Claim:
    def __init__(self, row: dict):
        self.gold = row["gold"]
        self.entities = row.get("entities", [])
        self.evidence = [Evidence.model_validate(e) for e in row["evidence"]]
        self.now = max((e.retrieved_at or 0.0 for e in self.evidence), default=0.0)

    def trusted(self, reliability: ReliabilityConfig) -> list[Evidence]:
        return assess_trust(self.evidence, reliability, self.now)


def load(path: Path) -> list[Claim]:
    return [Claim(json.loads(line)) for line in path.open() if line.strip()]


def verdicts(claims: list[tuple[Claim, list[Evidence]]], config: JudgeConfig):
    return [decide(evidence, config, claim.entities) for claim, evidence in claims]


def tune(claims, base: JudgeConfig) -> JudgeConfig:
    best, best_score = base, -1.0
    gold = [c.gold for c, _ in claims]
    for nei, weight in itertools.product(NEI_GRID, WEIGHT_GRID):
        config = base.model_copy(update={"nei_threshold": nei, "refute_weight": weight})
        score = label_metrics(gold, [v.label.value for v in verdicts(claims, config)])["macro_f1"]
        if score > best_score:
            best, best_score = config, score
    return best


def outcomes(claims, config: JudgeConfig) -> list[Outcome]:
    return [Outcome(v.confidence, v.label.value == c.gold, v.conflict) for (c, _), v in zip(claims, verdicts(claims, config))]


def report(claims, config: JudgeConfig) -> dict:
    decided = verdicts(claims, config)
    gold = [c.gold for c, _ in claims]
    metrics = label_metrics(gold, [v.label.value for v in decided], [v.abstained for v in decided])
    answered = [(g, v) for g, v in zip(gold, decided) if not v.abstained]
    metrics["risk"] = (1 - metrics["selective_accuracy"]) if answered else None
    metrics["aurc"] = area_under_risk_coverage(outcomes(claims, config))
    metrics["risk_coverage"] = [(round(t, 4), round(c, 4), round(r, 4)) for t, c, r in risk_coverage(outcomes(claims, config))]
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("validation", type=Path)
    parser.add_argument("test", type=Path)
    parser.add_argument("--max-risk", type=float, default=0.10)
    parser.add_argument("--delta", type=float, default=0.1)
    parser.add_argument("--out", type=Path, default=None, help="write all figures here as JSON")
    parser.add_argument("--write-judge-config", type=Path, default=None, help="save the full configuration's thresholds")
    args = parser.parse_args()
    validation, test = load(args.validation), load(args.test)
    results = {}
    print(f"| configuration | accuracy | macro-F1 | coverage @ risk≤{args.max_risk:.2f} | selective accuracy | test risk | AURC |")
    print("|---|---|---|---|---|---|---|")
    for name, (reliability, use_reliability) in CONFIGS.items():
        base = JudgeConfig.bundled().model_copy(update={"use_reliability": use_reliability})
        val = [(c, c.trusted(reliability)) for c in validation]
        tuned = tune(val, base)
        threshold, val_coverage, val_risk, bound = fit_threshold(outcomes(val, tuned), args.max_risk, args.delta)
        final = tuned.model_copy(update={"abstain_below": min(threshold, 1.0 + 1e-9)})
        figures = report([(c, c.trusted(reliability)) for c in test], final)
        results[name] = {"judge": final.model_dump(), "validation": {"coverage": val_coverage, "risk": val_risk,
                                                                     "risk_upper_bound": bound}, "test": figures}
        print(f"| {name} | {figures['accuracy']:.3f} | {figures['macro_f1']:.3f} | {figures['coverage']:.3f} | "
              f"{figures['selective_accuracy'] or 0:.3f} | {figures['risk'] if figures['risk'] is not None else float('nan'):.3f} | "
              f"{figures['aurc']:.3f} |")
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    if args.write_judge_config:
        chosen = results["full"]["judge"]
        chosen.update(tuned_on=f"{args.validation} ({len(validation)} validation claims)", max_risk=args.max_risk,
                      tuned_at=datetime.date.today().isoformat())
        args.write_judge_config.write_text(json.dumps(chosen, indent=2) + "\n")


if __name__ == "__main__":
    main()
