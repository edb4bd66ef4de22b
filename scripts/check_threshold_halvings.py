"""Does a threshold fitted to a risk budget hold on claims it was not fitted on? Tuning parts only.

    python -m scripts.check_threshold_halvings runs/eval-validation/results.jsonl runs/eval-calibration/results.jsonl

Splits the tuning claims' page groups at random into two halves, many times. On one half it fits
the confidence model and the abstention threshold exactly as ``evaluate_scoring.py`` does
(out-of-fold probabilities, ``calibration.fit_threshold``; the label thresholds stay the bundled
ones); on the other half it measures the share answered and the error rate among them. Reported:
the mean share answered, the mean held-out risk, and how often the held-out risk exceeded the
budget (an empty answer set counts as within it) — with and without the confidence model's label
interactions.
"""

from __future__ import annotations

import random
import statistics

from mermaid_verifier.agents.judge import JudgeConfig, Weighing
from mermaid_verifier.evaluation.datasets import load_split_ids
from mermaid_verifier.evaluation.judge_fitting import (
    Claim,
    fit_confidence,
    load,
    outcomes,
    pooled_claims,
    weighings,
)
from mermaid_verifier.weighing.calibration import fit_threshold
from mermaid_verifier.weighing.scoring import ReliabilityConfig
from scripts.evaluate_scoring import run, tuning_arguments


def held_out(
    claims: list[Claim],
    weighed: list[Weighing],
    fitted_groups: set[str],
    base: JudgeConfig,
    max_risk: float,
    delta: float,
    label_interactions: bool,
) -> tuple[float, float, int]:
    """(share answered, risk, answered) on the claims outside ``fitted_groups``; ``weighed`` holds the
    claims' weighings in order (they do not depend on the confidence model)."""
    fitted = [i for i, c in enumerate(claims) if c.group in fitted_groups]
    scored = [i for i, c in enumerate(claims) if c.group not in fitted_groups]
    model, fitted_outcomes = fit_confidence(
        [claims[i] for i in fitted], [weighed[i] for i in fitted], base, label_interactions=label_interactions
    )
    threshold, *_ = fit_threshold(fitted_outcomes, max_risk, delta)
    config = base.model_copy(update={"confidence_model": model})
    answered = [
        o
        for o in outcomes([claims[i] for i in scored], [weighed[i] for i in scored], config)
        if not o.forced_abstention and o.confidence >= threshold
    ]
    risk = sum(not o.correct for o in answered) / len(answered) if answered else 0.0
    return len(answered) / len(scored), risk, len(answered)


def main() -> None:
    parser = tuning_arguments(__doc__.splitlines()[0], "results.jsonl of the validation and calibration parts")
    parser.add_argument("--halvings", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    parts = load(args.results, load_split_ids(args.split))
    if set(parts) - {"validation", "calibration"}:
        raise SystemExit(f"tuning parts only (validation, calibration); got {sorted(parts)}")
    claims, _ = pooled_claims(parts)
    groups = sorted({c.group for c in claims})
    base = JudgeConfig.bundled().model_copy(update={"model": None, "confidence_model": None})
    weighed = weighings(claims, ReliabilityConfig(), base)
    print(f"{len(claims)} tuning claims in {len(groups)} page groups; {args.halvings} halvings; budget {args.max_risk}")
    print(
        "| confidence model | answered (held-out half) | risk (held-out half) | held-out risk over budget |\n|---|---|---|---|"
    )
    for label_interactions in (False, True):
        rng = random.Random(args.seed)
        runs = []
        for _ in range(args.halvings):
            shuffled = groups[:]
            rng.shuffle(shuffled)
            runs.append(
                held_out(
                    claims,
                    weighed,
                    set(shuffled[: len(shuffled) // 2]),
                    base,
                    args.max_risk,
                    args.delta,
                    label_interactions,
                )
            )
        over = sum(risk > args.max_risk for _, risk, answered in runs if answered)
        print(
            f"| {'with' if label_interactions else 'without'} label interactions | "
            f"{statistics.mean(share for share, _, _ in runs):.3f} | {statistics.mean(risk for _, risk, _ in runs):.3f} | "
            f"{over / len(runs):.2f} ({sum(not answered for *_, answered in runs)} halvings answered nothing) |"
        )


if __name__ == "__main__":
    run(main)
