"""Reliability and veracity rules against values computed by hand (the arithmetic is in comments)."""

import pytest

from mermaid_verifier.weighing.scoring import (
    SECONDS_PER_DAY,
    ReliabilityConfig,
    ScoredItem,
    SourceKind,
    VeracityConfig,
    consensus,
    initial_veracity,
    recall_threshold,
    reliabilities,
    reliability,
    revalidation_priority,
    temporal_decay,
    uncertainty,
    updated_veracity,
)

DAY = SECONDS_PER_DAY
A = ScoredItem(SourceKind.LOCAL_CORPUS, 0, support=0.90, refute=0.05)  # direction +0.85
B = ScoredItem(SourceKind.ENCYCLOPEDIA, 30 * DAY, support=0.70, refute=0.10)  # +0.60
C = ScoredItem(SourceKind.PREPRINT, 60 * DAY, support=0.10, refute=0.80)  # -0.70
D = ScoredItem(SourceKind.USER_SUPPLIED, 0, support=0.10, refute=0.10)  # 0 (neutral)
ITEMS = [A, B, C, D]
CONFIG = ReliabilityConfig()


def test_temporal_decay_halves_every_half_life():
    assert temporal_decay(0, SourceKind.ENCYCLOPEDIA, CONFIG) == 1.0
    assert temporal_decay(30 * DAY, SourceKind.ENCYCLOPEDIA, CONFIG) == pytest.approx(0.5)
    assert temporal_decay(60 * DAY, SourceKind.ENCYCLOPEDIA, CONFIG) == pytest.approx(0.25)
    assert temporal_decay(-5 * DAY, SourceKind.ENCYCLOPEDIA, CONFIG) == 1.0  # clock skew


def test_consensus_from_stance_not_similarity():
    # A: neighbours B (+0.60, agrees) and C (-0.70, contradicts); D neutral adds nothing.
    # balance = (0.60 - 0.70) / 1.30 = -0.0769231 -> 0.5 + 0.5 * balance
    assert consensus(ITEMS, 0) == pytest.approx(0.4615385)
    # B: A agrees 0.85, C contradicts 0.70: (0.85 - 0.70) / 1.55 = 0.0967742
    assert consensus(ITEMS, 1) == pytest.approx(0.5483871)
    # C: everyone opinionated contradicts it
    assert consensus(ITEMS, 2) == pytest.approx(0.0)
    assert consensus(ITEMS, 3) == 0.5  # a neutral item has no side to agree with
    assert consensus([A], 0) == 0.5  # no neighbours


def test_reliability_combines_the_three_terms():
    # A: 0.45*0.70 + 0.40*1.0 + 0.15*0.4615385 = 0.7842308
    assert reliability(ITEMS, 0, CONFIG) == pytest.approx(0.7842308)
    # B: 0.45*0.80 + 0.40*0.5 + 0.15*0.5483871 = 0.6422581
    assert reliability(ITEMS, 1, CONFIG) == pytest.approx(0.6422581)
    # C: 0.45*0.65 + 0.40*0.25 + 0.15*0.0 = 0.3925
    assert reliability(ITEMS, 2, CONFIG) == pytest.approx(0.3925)
    assert reliabilities(ITEMS, CONFIG)[2] == pytest.approx(0.3925)


def test_ablations_drop_a_term_from_numerator_and_denominator():
    # without time, A: (0.45*0.70 + 0.15*0.4615385) / 0.60 = 0.6403846
    assert reliability(ITEMS, 0, CONFIG.without("time")) == pytest.approx(0.6403846)
    # without source, C: (0.40*0.25 + 0.15*0.0) / 0.55 = 0.1818182
    assert reliability(ITEMS, 2, CONFIG.without("source")) == pytest.approx(0.1818182)
    # without consensus, B: (0.45*0.80 + 0.40*0.5) / 0.85 = 0.6588235
    assert reliability(ITEMS, 1, CONFIG.without("consensus")) == pytest.approx(0.6588235)
    everything_off = CONFIG.without("time").without("source").without("consensus")
    assert reliability(ITEMS, 2, everything_off) == 1.0


def test_veracity_rules():
    config = VeracityConfig()
    # (0.4*0.8 + 0.3*0.9 + 0.3*0.5) / 1.0 = 0.74
    assert initial_veracity(0.8, 0.9, 0.5, config) == pytest.approx(0.74)
    # 0.7*0.74 + 0.3*0.2 = 0.578
    assert updated_veracity(0.74, 0.2, config) == pytest.approx(0.578)
    # 1.0 * 2 days + 0.5 * 4 accesses = 4.0
    assert revalidation_priority(2 * DAY, 4, config) == pytest.approx(4.0)


def test_recall_threshold_is_mean_minus_gamma_sigma():
    # mean 0.7, population sigma sqrt(0.02) = 0.1414214
    assert recall_threshold([0.9, 0.8, 0.7, 0.6, 0.5], VeracityConfig()) == pytest.approx(0.5585786)
    assert recall_threshold([0.9, 0.8], VeracityConfig()) == 0.0  # too few items to estimate a spread


def test_uncertainty_is_normalised_entropy():
    assert uncertainty([1.0, 0.0, 0.0]) == 0.0
    assert uncertainty([1 / 3] * 3) == pytest.approx(1.0)


def test_reliability_configuration_from_a_file(tmp_path):
    from mermaid_verifier.errors import ConfigError

    path = tmp_path / "reliability.json"
    path.write_text('{"w_time": 0.2, "half_life_days": {"encyclopedia": 365}, "use_consensus": false}')
    config = ReliabilityConfig.from_file(path)
    assert config.w_time == 0.2 and not config.use_consensus
    assert config.half_life_days[SourceKind.ENCYCLOPEDIA] == 365 and config.half_life_days[SourceKind.PREPRINT] == 30
    path.write_text('{"w_tiem": 0.2}')
    with pytest.raises(ConfigError, match="unknown fields"):
        ReliabilityConfig.from_file(path)
