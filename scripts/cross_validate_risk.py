"""Does the whole fitting procedure keep its risk budget on page groups it never saw? Grouped cross-validation.

    python -m scripts.cross_validate_risk runs/eval-validation/results.jsonl runs/eval-calibration/results.jsonl \\
        runs/eval-test/results.jsonl --repeats 10 --delta 0.1 --delta 0.05

The claims' page groups are dealt into ``--folds`` folds. For each fold, everything is fitted on the
other folds exactly as ``evaluate_scoring.py`` fits the shipped judge — the label thresholds (macro-F1
grid), the confidence model and, from its out-of-fold probabilities, the abstention threshold for
``--max-risk`` at each ``--delta`` — and then applied, unchanged, to the held-out fold. Every claim is
answered or not by a judge that never saw its page group, so each repeat gives one pooled held-out
coverage and risk; repeats deal the groups anew. Reported per δ: the pooled figures (mean and range
over repeats), how many repeats kept the pooled risk within the budget, how often a single fold went
over it, and the pooled risk of each split part.

This checks the *procedure* on more page groups than one test part holds. It is not a held-out figure
for the shipped judge: with the test part among the inputs, its claims are fitted on in the other
folds. Train-part claims are refused (the stance model was trained on their evidence).
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from mermaid_verifier.agents.judge import JudgeConfig, Weighing
from mermaid_verifier.evaluation.datasets import load_split_ids
from mermaid_verifier.evaluation.judge_fitting import (
    Claim,
    fit_confidence,
    load,
    outcomes,
    pooled_claims,
    refuse_train_part,
    tune,
    weighings,
)
from mermaid_verifier.weighing.calibration import MOST_LIKELY_RIGHT, deal_folds, fit_threshold
from mermaid_verifier.weighing.scoring import ReliabilityConfig
from scripts.evaluate_scoring import run, tuning_arguments


@dataclass(frozen=True)
class HeldOut:
    """One held-out claim under one δ: its split part, whether it was answered, and whether rightly."""

    part: str
    answered: bool
    correct: bool


def fold_outcomes(
    claims: list[Claim],
    weighed: list[Weighing],
    parts: list[str],
    held_groups: set[str],
    base: JudgeConfig,
    max_risk: float,
    deltas: list[float],
) -> dict[float, list[HeldOut]]:
    """Fit on the claims outside ``held_groups``, answer the claims inside, once per δ."""
    fitted = [i for i, c in enumerate(claims) if c.group not in held_groups]
    held = [i for i, c in enumerate(claims) if c.group in held_groups]
    fitted_claims, fitted_weighed = [claims[i] for i in fitted], [weighed[i] for i in fitted]
    thresholds = tune(fitted_claims, fitted_weighed, base)
    model, fitted_outcomes = fit_confidence(fitted_claims, fitted_weighed, thresholds)
    config = thresholds.model_copy(update={"confidence_model": model})
    held_outcomes = outcomes([claims[i] for i in held], [weighed[i] for i in held], config)
    by_delta = {}
    for delta in deltas:
        threshold, *_ = fit_threshold(fitted_outcomes, max_risk, delta, MOST_LIKELY_RIGHT)
        by_delta[delta] = [
            HeldOut(parts[i], not o.forced_abstention and o.confidence >= threshold, o.correct)
            for i, o in zip(held, held_outcomes)
        ]
    return by_delta


def risk(rows: list[HeldOut]) -> tuple[float, float, int]:
    """(share answered, error rate among the answered — 0 when none is, answered count)."""
    answered = [r for r in rows if r.answered]
    return (
        len(answered) / len(rows),
        (sum(not r.correct for r in answered) / len(answered) if answered else 0.0),
        len(answered),
    )


def summary_line(
    delta: float, repeats: list[list[HeldOut]], fold_risks: list[float], max_risk: float, parts: list[str]
) -> str:
    pooled = [risk(rows) for rows in repeats]
    shares, risks = [share for share, _, _ in pooled], [r for _, r, _ in pooled]
    within = sum(r <= max_risk for r in risks)
    by_part = " / ".join(
        f"{part} {statistics.mean(risk([r for r in rows if r.part == part])[1] for rows in repeats):.3f}"
        for part in parts
    )
    return (
        f"| {delta} | {statistics.mean(shares):.3f} ({min(shares):.3f}–{max(shares):.3f}) | "
        f"{statistics.mean(risks):.3f} ({min(risks):.3f}–{max(risks):.3f}) | {within} of {len(repeats)} | "
        f"{sum(r > max_risk for r in fold_risks) / len(fold_risks):.2f} | {by_part} |"
    )


def main() -> None:
    parser = tuning_arguments(
        __doc__.splitlines()[0],
        "results.jsonl files of evaluate_fever.py runs (not the train part)",
        several_deltas=True,
    )
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    deltas = sorted(set(args.delta or [0.1]), reverse=True)
    split_parts = load(args.results, load_split_ids(args.split))
    refuse_train_part(split_parts)
    claims, parts = pooled_claims(split_parts)
    groups = sorted({c.group for c in claims})
    if len(groups) < args.folds:
        raise SystemExit(f"{len(groups)} page groups cannot fill {args.folds} folds")
    base = JudgeConfig.bundled().model_copy(update={"model": None, "confidence_model": None})
    weighed = weighings(claims, ReliabilityConfig(), base)
    print(
        f"{len(claims)} claims ({', '.join(f'{p} {parts.count(p)}' for p in split_parts)}) in {len(groups)} page groups; "
        f"{args.folds} folds × {args.repeats} repeats; budget {args.max_risk}"
    )
    rng = random.Random(args.seed)
    pooled: dict[float, list[list[HeldOut]]] = {delta: [] for delta in deltas}
    fold_risks: dict[float, list[float]] = {delta: [] for delta in deltas}
    for repeat in range(args.repeats):
        rows: dict[float, list[HeldOut]] = {delta: [] for delta in deltas}
        for held_groups in deal_folds(groups, args.folds, rng):
            for delta, held in fold_outcomes(claims, weighed, parts, held_groups, base, args.max_risk, deltas).items():
                rows[delta] += held
                if any(r.answered for r in held):
                    fold_risks[delta].append(risk(held)[1])
        for delta in deltas:
            pooled[delta].append(rows[delta])
        share, pooled_risk, _ = risk(rows[deltas[0]])
        print(
            f"repeat {repeat + 1}/{args.repeats}: δ {deltas[0]} answered {share:.3f}, risk {pooled_risk:.3f}",
            flush=True,
        )
    print(
        "| δ | answered, pooled (range) | risk, pooled (range) | repeats within budget | folds over budget | "
        "pooled risk by part |\n|---|---|---|---|---|---|"
    )
    for delta in deltas:
        print(summary_line(delta, pooled[delta], fold_risks[delta], args.max_risk, list(split_parts)))


if __name__ == "__main__":
    run(main)
