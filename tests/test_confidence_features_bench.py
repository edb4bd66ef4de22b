"""bench/confidence_features.py: the risk-coverage summary it reports, and the evidence features it adds, read from a
hand-made result row through the judge's own trust and weights (guards the bench against the judge's interfaces)."""

from __future__ import annotations

import pytest

from bench.confidence_features import EXTRA_FEATURES, curve_summary, evidence_features
from mermaid_verifier.agents.judge import JudgeConfig
from mermaid_verifier.evaluation.judge_fitting import Claim
from mermaid_verifier.weighing.scoring import ReliabilityConfig


def test_risk_coverage_reads_the_curve_from_the_most_confident_claim_down():
    confidence = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05]
    right = [True, True, True, False, True, True, False, False, True, False]
    summary = curve_summary(confidence, right)
    assert summary["claims"] == 10 and summary["accuracy"] == 0.6
    assert summary["risk_at_30"] == 0.0  # the three most confident are right
    assert summary["risk_at_60"] == pytest.approx(1 / 6, abs=1e-4)
    assert summary["answered_within_10"] == 0.3 and summary["answered_within_20"] == 0.6
    risks = [0, 0, 0, 1 / 4, 1 / 5, 1 / 6, 2 / 7, 3 / 8, 3 / 9, 4 / 10]
    assert summary["aurc"] == pytest.approx(sum(risks) / 10, abs=1e-4)
    assert summary["ece"] > 0


def test_a_claim_right_whatever_its_confidence_has_no_risk():
    summary = curve_summary([0.2, 0.1], [True, True])
    assert summary["aurc"] == 0 and summary["answered_within_10"] == 1.0


def item(page: str, text: str, supports: float, refutes: float, retrieval: float) -> dict:
    neutral = 1 - supports - refutes
    return {
        "id": f"c:{page}:0", "source": "local-corpus", "title": page.replace("_", " "), "text": text, "page": page,
        "line": 0, "retrieval_score": retrieval, "source_kind": "local_corpus", "retrieved_at": 1.0,
        "stance": "neutral", "stance_probabilities": {"supports": supports, "refutes": refutes, "neutral": neutral},
    }  # fmt: skip


def test_evidence_features_count_pages_per_side_and_ask_the_supporting_item_for_the_claims_values():
    row = {
        "gold": "SUPPORTS",
        "claim": "Ada Lovelace was born in London in 1815.",
        "entities": ["Ada Lovelace", "London"],
        "evidence": [
            item("Ada_Lovelace", "She was born in London in 1815.", 0.95, 0.01, 3.0),
            item("Charles_Babbage", "Ada Lovelace worked with him in London.", 0.6, 0.05, 9.0),
            item("London", "London is the capital of England.", 0.01, 0.01, 1.0),
        ],
    }
    features = evidence_features(Claim(row, "g"), JudgeConfig.bundled(), ReliabilityConfig())
    assert len(features) == len(EXTRA_FEATURES)
    named = dict(zip(EXTRA_FEATURES, features))
    assert named["pages_read"] == pytest.approx(1.3863, abs=1e-3)  # log1p(3)
    assert named["pages_supporting"] >= 0.69  # the Lovelace page at least
    assert named["support_missing"] == 0.0  # London and 1815 are in the strongest supporting item
    assert named["support_rank"] == pytest.approx(0.6931, abs=1e-3)  # second by retrieval score


def test_a_claim_without_evidence_has_nothing_supporting():
    row = {"gold": "NOT ENOUGH INFO", "claim": "Ada Lovelace was born in 1815.", "entities": [], "evidence": []}
    features = evidence_features(Claim(row, "g"), JudgeConfig.bundled(), ReliabilityConfig())
    assert dict(zip(EXTRA_FEATURES, features))["support_missing"] == 1.0
