"""The judge's decision rule on hand-made stance probabilities."""

import pytest

from mermaid_verifier.agents.judge import JudgeConfig, annotate, decide
from mermaid_verifier.models import Evidence, Label, Stance

CONFIG = JudgeConfig(nei_threshold=0.30, refute_weight=0.80, abstain_below=0.50, conflict_level=0.80)


def item(i, supports, refutes):
    return Evidence(id=f"e{i}", source="test", title=f"T{i}", text="…",
                    stance_probabilities={"supports": supports, "refutes": refutes, "neutral": 1 - supports - refutes})


def test_strong_support_wins():
    verdict = decide([item(1, 0.95, 0.01), item(2, 0.05, 0.20)], CONFIG)
    assert verdict.label == Label.SUPPORTS
    assert verdict.confidence == pytest.approx(0.95)
    assert not verdict.abstained


def test_refutation_is_weighted_before_comparison():
    # 0.8 * 0.70 = 0.56 < 0.60 support, so SUPPORTS although raw refutation is higher
    assert decide([item(1, 0.60, 0.0), item(2, 0.0, 0.70)], CONFIG).label == Label.SUPPORTS
    # 0.8 * 0.90 = 0.72 > 0.60
    verdict = decide([item(1, 0.60, 0.0), item(2, 0.0, 0.90)], CONFIG)
    assert verdict.label == Label.REFUTES and verdict.confidence == pytest.approx(0.90)


def test_weak_evidence_is_not_enough_info():
    verdict = decide([item(1, 0.20, 0.10)], CONFIG)
    assert verdict.label == Label.NOT_ENOUGH_INFO
    assert verdict.confidence == pytest.approx(0.80)
    assert not verdict.abstained


def test_no_evidence_is_not_enough_info():
    verdict = decide([], CONFIG)
    assert verdict.label == Label.NOT_ENOUGH_INFO and verdict.reason == "no evidence was found"


def test_low_confidence_abstains_but_keeps_best_label():
    verdict = decide([item(1, 0.40, 0.0)], CONFIG)
    assert verdict.label == Label.SUPPORTS
    assert verdict.abstained
    assert "below 0.50" in verdict.reason


def test_strong_conflict_abstains():
    verdict = decide([item(1, 0.92, 0.0), item(2, 0.0, 0.85)], CONFIG)
    assert verdict.abstained and "conflicts" in verdict.reason


def test_annotate_sets_stance_and_orders_by_score():
    ranked = annotate([item(1, 0.1, 0.2), item(2, 0.05, 0.9), item(3, 0.7, 0.1)])
    assert [e.id for e in ranked] == ["e2", "e3", "e1"]
    assert [e.stance for e in ranked] == [Stance.REFUTES, Stance.SUPPORTS, Stance.NEUTRAL]
    assert ranked[0].score == pytest.approx(0.9)
