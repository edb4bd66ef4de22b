"""Reliability of evidence items and veracity upkeep: pure functions, one configuration.

Reliability of an item (used by recall and by the judge)::

    C = (w_s·S + w_t·T + w_c·Ccon) / (w_s + w_t + w_c), clamped to [0, 1]

* S    — source credibility, from a prior per source kind;
* T    — temporal decay 0.5 ** (age / half-life), half-life per source kind;
* Ccon — consensus: 0.5 plus half the stance-weighted balance of neighbours that agree with the
         item minus neighbours that contradict it (agreement is read from *stance*, never from
         text similarity: similar sentences can contradict each other).

A term switched off (ablation) leaves numerator and denominator alike.

Veracity upkeep (VeriMem): an item's veracity starts as a weighted ensemble of source reputation,
stance confidence and consistency with the store; re-checks move it by ``v ← α·v + (1−α)·v̂``;
recall keeps items with ``v ≥ τ``, ``τ = μ_v − γ·σ_v`` over the store.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from mermaid_verifier.errors import ConfigError
from mermaid_verifier.models import Evidence, SourceKind, Stance, Trust

SECONDS_PER_DAY = 86_400.0


DEFAULT_SOURCE_PRIORS = {
    SourceKind.ENCYCLOPEDIA: 0.80,
    SourceKind.PEER_REVIEWED: 0.90,
    SourceKind.PREPRINT: 0.65,
    SourceKind.LOCAL_CORPUS: 0.70,
    SourceKind.USER_SUPPLIED: 0.50,
    SourceKind.MODEL_INFERENCE: 0.30,
}


@dataclass(frozen=True)
class ReliabilityConfig:
    """Weights, priors and half-lives (defaults as in MMA's published code), with ablation switches."""

    w_source: float = 0.45
    w_time: float = 0.40
    w_consensus: float = 0.15
    source_priors: dict[SourceKind, float] = field(default_factory=lambda: dict(DEFAULT_SOURCE_PRIORS))
    half_life_days: dict[SourceKind, float] = field(default_factory=lambda: {kind: 30.0 for kind in SourceKind})
    use_source: bool = True
    use_time: bool = True
    use_consensus: bool = True

    @classmethod
    def from_file(cls, path: Path) -> ReliabilityConfig:
        """Read a JSON file with any of the fields, e.g. ``{"w_time": 0.2, "half_life_days":
        {"encyclopedia": 365}, "source_priors": {"preprint": 0.5}, "use_consensus": false}``."""
        try:
            values = json.loads(Path(path).read_text())
            defaults = cls()
            for name in ("source_priors", "half_life_days"):
                if name in values:
                    values[name] = {
                        **getattr(defaults, name),
                        **{SourceKind(k): float(v) for k, v in values[name].items()},
                    }
            if not isinstance(values, dict):
                raise ValueError(f"expected a JSON object, got {type(values).__name__}")
            unknown = set(values) - {f.name for f in fields(cls)}
            if unknown:
                raise ValueError(f"unknown fields {sorted(unknown)}")
            for name, value in values.items():
                expected = (
                    bool
                    if name.startswith("use_")
                    else (dict if name in ("source_priors", "half_life_days") else float)
                )
                if expected is float and (isinstance(value, bool) or not isinstance(value, int | float)):
                    raise ValueError(f"{name} must be a number, got {value!r}")
                if expected is bool and not isinstance(value, bool):
                    raise ValueError(f"{name} must be true or false, got {value!r}")
            return cls(**values)
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise ConfigError(f"reliability configuration {path}: {exc}") from exc

    def without(self, term: str) -> ReliabilityConfig:
        """The same configuration with one term (``source``, ``time``, ``consensus``) ablated."""
        if term not in ("source", "time", "consensus"):
            raise ValueError(f"unknown reliability term {term!r}")
        return replace(self, **{f"use_{term}": False})  # type: ignore[arg-type]  # a bool field, by name


@dataclass(frozen=True)
class ScoredItem:
    """What reliability needs to know about one evidence item."""

    kind: SourceKind
    age_seconds: float
    support: float  # P(item supports the claim)
    refute: float  # P(item refutes the claim)


def source_credibility(kind: SourceKind, config: ReliabilityConfig) -> float:
    return config.source_priors[kind]


def temporal_decay(age_seconds: float, kind: SourceKind, config: ReliabilityConfig) -> float:
    """0.5 ** (age / half-life); an item from the future (clock skew) counts as new."""
    half_life = config.half_life_days[kind] * SECONDS_PER_DAY
    return 0.5 ** (max(age_seconds, 0.0) / half_life)


def stance_direction(item: ScoredItem) -> float:
    """+strength for support, −strength for refutation, 0 for neither."""
    return item.support - item.refute


def consensus(items: list[ScoredItem], index: int) -> float:
    """Ccon for ``items[index]``: 0.5 ± half the stance-weighted agreement of its neighbours.

    Neighbour j agrees with i when their stance directions have the same sign; its weight is
    |direction_j|. With no opinionated neighbour (or a neutral item) the result is 0.5.
    """
    own = stance_direction(items[index])
    if own == 0:
        return 0.5
    weights = [stance_direction(other) for j, other in enumerate(items) if j != index]
    total = sum(abs(w) for w in weights)
    if total == 0:
        return 0.5
    balance = sum(abs(w) if (w > 0) == (own > 0) else -abs(w) for w in weights if w != 0) / total
    return 0.5 + 0.5 * balance


def reliability(items: list[ScoredItem], index: int, config: ReliabilityConfig) -> float:
    """C for ``items[index]`` among the items gathered for one claim."""
    item = items[index]
    terms = []
    if config.use_source:
        terms.append((config.w_source, source_credibility(item.kind, config)))
    if config.use_time:
        terms.append((config.w_time, temporal_decay(item.age_seconds, item.kind, config)))
    if config.use_consensus:
        terms.append((config.w_consensus, consensus(items, index)))
    weight = sum(w for w, _ in terms)
    if weight == 0:
        return 1.0  # everything ablated: every item counts fully
    return min(max(sum(w * value for w, value in terms) / weight, 0.0), 1.0)


def reliabilities(items: list[ScoredItem], config: ReliabilityConfig) -> list[float]:
    return [reliability(items, i, config) for i in range(len(items))]


# ----------------------------------------------------------------------------- veracity


@dataclass(frozen=True)
class VeracityConfig:
    """VeriMem's upkeep parameters."""

    w_reputation: float = 0.4
    w_stance: float = 0.3
    w_consistency: float = 0.3
    alpha: float = 0.7  # weight of the old veracity in an update
    lambda_age: float = 1.0  # priority weight of age (days)
    lambda_access: float = 0.5  # priority weight of access frequency
    gamma: float = 1.0  # τ = μ − γ·σ
    min_store_for_threshold: int = 5  # below this many items, τ is 0 (keep everything)


def initial_veracity(reputation: float, stance_confidence: float, consistency: float, config: VeracityConfig) -> float:
    """Weighted ensemble of source reputation, stance-model confidence and consistency with the store."""
    total = config.w_reputation + config.w_stance + config.w_consistency
    value = (
        config.w_reputation * reputation + config.w_stance * stance_confidence + config.w_consistency * consistency
    ) / total
    return min(max(value, 0.0), 1.0)


def updated_veracity(previous: float, rechecked: float, config: VeracityConfig) -> float:
    """v ← α·v + (1−α)·v̂."""
    return config.alpha * previous + (1 - config.alpha) * rechecked


def revalidation_priority(age_seconds: float, access_count: int, config: VeracityConfig) -> float:
    """p = λ1·age (days) + λ2·access frequency."""
    return config.lambda_age * age_seconds / SECONDS_PER_DAY + config.lambda_access * access_count


def recall_threshold(veracities: list[float], config: VeracityConfig) -> float:
    """τ = μ_v − γ·σ_v over the store (population σ), clamped to [0, 1]."""
    if len(veracities) < config.min_store_for_threshold:
        return 0.0
    mean = statistics.fmean(veracities)
    spread = statistics.pstdev(veracities)
    return min(max(mean - config.gamma * spread, 0.0), 1.0)


def uncertainty(probabilities: list[float]) -> float:
    """Normalised entropy of a stance distribution: 0 = certain, 1 = uniform."""
    present = [p for p in probabilities if p > 0]
    if len(probabilities) < 2:
        return 0.0
    return -sum(p * math.log(p) for p in present) / math.log(len(probabilities))


# ----------------------------------------------------------------------------- evidence items


def side_probability(item: Evidence, stance: Stance) -> float:
    """P(stance) for an evidence item towards the claim it was scored for (0 when unscored)."""
    return (item.stance_probabilities or {}).get(stance.value, 0.0)


def age_seconds(item: Evidence, now: float) -> float:
    """Age from publication time when the source gave one, else from retrieval time."""
    reference = item.published_at or item.retrieved_at
    return max(now - reference, 0.0) if reference else 0.0


def assess_trust(evidence: list[Evidence], config: ReliabilityConfig, now: float) -> list[Evidence]:
    """Each item with its reliability terms filled in (``trust``), among the items gathered for a claim."""
    scored = [
        ScoredItem(
            item.source_kind or SourceKind.LOCAL_CORPUS,
            age_seconds(item, now),
            side_probability(item, Stance.SUPPORTS),
            side_probability(item, Stance.REFUTES),
        )
        for item in evidence
    ]
    out = []
    for index, (item, facts) in enumerate(zip(evidence, scored)):
        trust = Trust(
            source_credibility=source_credibility(facts.kind, config) if config.use_source else None,
            recency=round(temporal_decay(facts.age_seconds, facts.kind, config), 4) if config.use_time else None,
            consensus=round(consensus(scored, index), 4) if config.use_consensus else None,
            reliability=round(reliability(scored, index, config), 4),
        )
        out.append(item.model_copy(update={"trust": trust}))
    return out
