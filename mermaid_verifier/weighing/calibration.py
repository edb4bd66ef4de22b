"""Fit the abstention threshold to a risk budget, and risk–coverage curves.

Answering only claims whose confidence is at least t trades coverage for risk (the error rate among
answered claims). ``fit_threshold`` picks the smallest t — the most coverage — whose risk stays within
``max_risk`` *with margin*: the upper bound of the risk at confidence level ``1 − delta`` must be
≤ ``max_risk``, so that a threshold fitted on a few hundred claims still holds on new ones. The bound
is Wilson's for independent claims; when outcomes carry a ``group`` (claims about the same pages,
whose errors go together) it is the larger of Wilson's and the cluster-robust normal bound, which
counts groups rather than claims.
Claims the judge abstains on for conflicting evidence stay unanswered whatever t is, and t is never below
``MOST_LIKELY_RIGHT``: a verdict whose own confidence (the judge's probability that it is right) calls it more
likely wrong than right is never answered, however much risk the budget allows.

Outcomes may carry a ``weight``: :func:`label_prior_weights` gives each claim the weight that makes every
gold label count the same (a tuning set's own label mix — FEVER ``paper_dev`` here is 44 % NOT ENOUGH INFO
— is not the mix a user's claims come in, and a threshold fitted under one mix does not hold under
another). Risk and coverage are then weighted shares, and the bounds use the effective number of claims.

``check_held_out`` re-runs the fit with each fold of groups held out and answers the held-out claims:
how the procedure does on topics it never saw, which the bound alone cannot show when a user's
claims cluster more than the groups say.
"""

from __future__ import annotations

import datetime
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from mermaid_verifier.errors import CalibrationError, ConfigError

MOST_LIKELY_RIGHT = 0.5  # the lowest threshold a fit returns: never answer a verdict more likely wrong than right
_Z = {0.5: 0.0, 0.2: 0.8416, 0.1: 1.2816, 0.05: 1.6449, 0.01: 2.3263}


@dataclass(frozen=True)
class Outcome:
    confidence: float
    correct: bool
    forced_abstention: bool = False  # e.g. conflicting evidence: never answered
    group: str | None = None  # claims of one group are not independent (None: a group of its own)
    weight: float = 1.0  # how much the claim counts (label_prior_weights); 1 for every claim: plain shares


LABEL_PRIORS = ("balanced", "as-given")


def label_prior_weights(golds: list[str], prior: str = "balanced") -> list[float]:
    """Per claim, the weight under which each gold label counts the same in total ("balanced"), or 1
    ("as-given": the claims' own label mix)."""
    if prior not in LABEL_PRIORS:
        raise ConfigError(f"label prior must be one of {', '.join(LABEL_PRIORS)}, got {prior!r}")
    if prior == "as-given" or not golds:
        return [1.0] * len(golds)
    counts: dict[str, int] = {}
    for gold in golds:
        counts[gold] = counts.get(gold, 0) + 1
    return [len(golds) / (len(counts) * counts[gold]) for gold in golds]


class HeldOutCheck(BaseModel):
    """The threshold fit re-run ``folds`` times, each time without one fold of groups, then applied to it."""

    folds: int
    coverage: float  # (weighted) share of all claims answered by the threshold fitted without their fold
    risk: float | None  # (weighted) error rate among those answered claims (None when none was)
    answered: int
    folds_over_budget: int  # folds whose own held-out risk exceeded max_risk
    folds_answering: int  # folds in which anything was answered
    seed: int


class Calibration(BaseModel):
    abstain_below: float
    max_risk: float
    delta: float
    coverage: float
    risk: float
    risk_upper_bound: float
    claims: int
    fitted_on: str
    fitted_at: str
    label_prior: str = "as-given"  # how claims were weighed by gold label (label_prior_weights)
    held_out: HeldOutCheck | None = None  # None: not checked (older files, or too few groups)


def wilson_upper(errors: float, n: float, delta: float) -> float:
    """One-sided Wilson score upper bound on an error rate (``errors`` out of ``n``; with weighted
    claims, the effective number of claims and the errors scaled to it)."""
    if n == 0:
        return 1.0
    if delta not in _Z:
        raise ConfigError(f"delta must be one of {sorted(_Z)}, got {delta}")
    z = _Z[delta]
    p = errors / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return min((centre + spread) / (1 + z * z / n), 1.0)


class AnsweredTally:
    """Errors among the answered claims, counted per group as claims are added one at a time, so a
    threshold scan computes every bound in linear time. Ungrouped outcomes are groups of their own.
    Sizes and errors are weighted (``Outcome.weight``); with unit weights they are counts."""

    def __init__(self) -> None:
        self.groups: dict[object, tuple[float, float]] = {}  # group -> (weight, weighted errors)
        self.claims = 0  # answered claims, counted
        self.weight = self.errors = 0.0  # their weight, and the weight of the wrong ones
        self._weight_sq = 0.0  # Σ w²: the effective number of claims is weight² / Σ w²
        self.grouped = False
        self._errors_sq = self._errors_by_size = self._size_sq = 0.0  # Σ e_g², Σ e_g·n_g, Σ n_g²

    def add(self, outcome: Outcome) -> None:
        key = group_key(outcome, self.claims)
        size, errors = self.groups.get(key, (0.0, 0.0))
        self._errors_sq -= errors * errors
        self._errors_by_size -= errors * size
        self._size_sq -= size * size
        wrong = outcome.weight * (not outcome.correct)
        size, errors = size + outcome.weight, errors + wrong
        self._errors_sq += errors * errors
        self._errors_by_size += errors * size
        self._size_sq += size * size
        self.groups[key] = (size, errors)
        self.claims += 1
        self.weight += outcome.weight
        self._weight_sq += outcome.weight * outcome.weight
        self.errors += wrong
        self.grouped |= outcome.group is not None

    @property
    def risk(self) -> float:
        return self.errors / self.weight if self.weight else 0.0

    def cluster_upper(self, delta: float) -> float:
        """Normal upper bound on the error rate with the cluster-robust (ratio-estimator) variance:
        Var(R) ≈ K/(K−1) · Σ_g (e_g − R·n_g)² / N², over the K groups of the N answered claims."""
        if delta not in _Z:
            raise ConfigError(f"delta must be one of {sorted(_Z)}, got {delta}")
        n, k = self.weight, len(self.groups)
        if k < 2:
            return 1.0
        risk = self.risk
        spread = self._errors_sq - 2 * risk * self._errors_by_size + risk * risk * self._size_sq
        variance = k / (k - 1) * max(spread, 0.0) / n**2
        return min(risk + _Z[delta] * math.sqrt(variance), 1.0)

    def upper(self, delta: float) -> float:
        """Wilson's bound (over the effective number of claims), or — when the outcomes carry groups —
        the larger of it and the cluster bound."""
        effective = self.weight * self.weight / self._weight_sq if self._weight_sq else 0.0
        bound = wilson_upper(self.risk * effective, effective, delta)
        return max(bound, self.cluster_upper(delta)) if self.grouped else bound


def _tally(answered: list[Outcome]) -> AnsweredTally:
    tally = AnsweredTally()
    for outcome in answered:
        tally.add(outcome)
    return tally


def cluster_upper(answered: list[Outcome], delta: float) -> float:
    """:meth:`AnsweredTally.cluster_upper` of these answered claims."""
    return _tally(answered).cluster_upper(delta)


def risk_upper_bound(answered: list[Outcome], delta: float) -> float:
    """Wilson's bound, or — when the outcomes carry groups — the larger of it and :func:`cluster_upper`."""
    return _tally(answered).upper(delta)


def risk_coverage(outcomes: list[Outcome]) -> list[tuple[float, float, float]]:
    """(threshold, coverage, risk) at every distinct confidence, from answering all to answering one."""
    answerable = sorted((o for o in outcomes if not o.forced_abstention), key=lambda o: o.confidence, reverse=True)
    curve, errors = [], 0
    for answered, outcome in enumerate(answerable, 1):
        errors += not outcome.correct
        next_confidence = answerable[answered].confidence if answered < len(answerable) else None
        if next_confidence != outcome.confidence:
            curve.append((outcome.confidence, answered / len(outcomes), errors / answered))
    return curve


def area_under_risk_coverage(outcomes: list[Outcome]) -> float:
    """Mean risk over the coverage levels (lower is better)."""
    curve = risk_coverage(outcomes)
    return sum(risk for _, _, risk in curve) / len(curve) if curve else 0.0


def fit_threshold(
    outcomes: list[Outcome], max_risk: float, delta: float = 0.1, floor: float = 0.0
) -> tuple[float, float, float, float]:
    """(threshold, coverage, risk, risk upper bound) with the most coverage whose bound ≤ ``max_risk``, among
    thresholds of at least ``floor`` (``MOST_LIKELY_RIGHT`` where the confidence is a probability of being right).

    If no threshold qualifies, the threshold is above every confidence: nothing is answered."""
    if not 0 < max_risk < 1:
        raise ConfigError(f"max risk must be between 0 and 1, got {max_risk}")
    answerable = sorted((o for o in outcomes if not o.forced_abstention), key=lambda o: o.confidence, reverse=True)
    best = (1.0 + 1e-9, 0.0, 0.0, 0.0)
    total = sum(o.weight for o in outcomes)
    tally = AnsweredTally()
    for answered, outcome in enumerate(answerable, 1):
        if outcome.confidence < floor:
            break  # sorted by confidence: every later threshold is lower still
        tally.add(outcome)
        if answered < len(answerable) and answerable[answered].confidence == outcome.confidence:
            continue  # a threshold cannot split equal confidences
        bound = tally.upper(delta)
        if bound <= max_risk:
            best = (outcome.confidence, tally.weight / total, tally.risk, bound)
    return best


def group_key(outcome: Outcome, index: int) -> object:
    """The outcome's group, or a group of its own when it has none."""
    return outcome.group if outcome.group is not None else ("claim", index)


def deal_folds(groups: list, folds: int, rng: random.Random) -> list[set]:
    """The groups shuffled and dealt round-robin into ``folds`` folds (sizes differ by at most one)."""
    shuffled = sorted(groups, key=str)  # a fixed order first: sets iterate in hash order
    rng.shuffle(shuffled)
    return [set(shuffled[k::folds]) for k in range(folds)]


def group_count(outcomes: list[Outcome]) -> int:
    return len({group_key(o, i) for i, o in enumerate(outcomes)})


def can_fill_folds(groups: int, folds: int) -> bool:
    """Whether a ``folds``-fold held-out check is possible over this many groups."""
    return 2 <= folds <= groups


def check_held_out(
    outcomes: list[Outcome],
    max_risk: float,
    delta: float,
    folds: int = 5,
    seed: int = 0,
    floor: float = MOST_LIKELY_RIGHT,
) -> HeldOutCheck:
    """Fit the threshold without each fold of groups in turn and answer that fold's claims with it."""
    keys = [group_key(o, i) for i, o in enumerate(outcomes)]
    groups = set(keys)
    if not can_fill_folds(len(groups), folds):
        raise ConfigError(
            f"a {folds}-fold held-out check needs at least {max(folds, 2)} groups; these claims fall in {len(groups)}"
        )
    answered = over = answering = 0
    answered_weight = errors = 0.0
    for held in deal_folds(list(groups), folds, random.Random(seed)):
        fitted = [o for o, key in zip(outcomes, keys) if key not in held]
        threshold, *_ = fit_threshold(fitted, max_risk, delta, floor)
        fold_answered = [
            o for o, key in zip(outcomes, keys) if key in held and not o.forced_abstention and o.confidence >= threshold
        ]
        fold_weight = sum(o.weight for o in fold_answered)
        fold_errors = sum(o.weight for o in fold_answered if not o.correct)
        answered, answered_weight, errors = (
            answered + len(fold_answered),
            answered_weight + fold_weight,
            errors + fold_errors,
        )
        if fold_answered:
            answering += 1
            over += fold_errors / fold_weight > max_risk
    return HeldOutCheck(
        folds=folds,
        coverage=round(answered_weight / sum(o.weight for o in outcomes), 4),
        answered=answered,
        risk=round(errors / answered_weight, 4) if answered else None,
        folds_over_budget=over,
        folds_answering=answering,
        seed=seed,
    )


def fit(
    outcomes: list[Outcome],
    max_risk: float,
    delta: float,
    fitted_on: str,
    held_out: HeldOutCheck | None = None,
    label_prior: str = "as-given",
    floor: float = MOST_LIKELY_RIGHT,
) -> Calibration:
    """The threshold with the most coverage whose error bound meets ``max_risk``.

    Raises :class:`CalibrationError` when no threshold answers any claim within the budget: saving it
    would make ``verify`` abstain on everything, silently."""
    threshold, coverage, risk, bound = fit_threshold(outcomes, max_risk, delta, floor)
    if coverage == 0.0:
        raise CalibrationError(
            f"no confidence threshold keeps errors at or below {max_risk:.1%} (bound at delta {delta}) on these "
            f"{len(outcomes)} claims: `verify` would abstain on every claim, so nothing was saved; allow a larger "
            f"--max-risk or calibrate on more claims"
        )
    return Calibration(
        abstain_below=round(threshold, 6),
        max_risk=max_risk,
        delta=delta,
        coverage=round(coverage, 4),
        risk=round(risk, 4),
        risk_upper_bound=round(bound, 4),
        claims=len(outcomes),
        fitted_on=fitted_on,
        fitted_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        held_out=held_out,
        label_prior=label_prior,
    )


def calibration_path(cache_dir: Path) -> Path:
    return cache_dir / "calibration.json"


def save(calibration: Calibration, path: Path) -> None:
    """Write the calibration file whole or not at all (a temporary file renamed over it); a
    :class:`CalibrationError` naming the file when it cannot be written, with nothing left behind."""
    tmp = path.with_suffix(".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(calibration.model_dump_json(indent=2) + "\n")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CalibrationError(
            f"the calibration file {path} cannot be written ({exc.strerror or exc}); make it and its folder "
            "writable, or set MERMAID_CALIBRATION to another path"
        ) from exc


def load(path: Path) -> Calibration | None:
    if not path.is_file():
        return None
    try:
        return Calibration.model_validate(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(
            f"calibration file {path} is unreadable ({exc}); run `mermaid-verifier calibrate` again"
        ) from exc
