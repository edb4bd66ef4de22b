"""Risk–coverage and the risk-budget threshold, on a hand-made set of outcomes."""

import json

import pytest
from typer.testing import CliRunner

from mermaid_verifier.calibration import (
    Outcome,
    area_under_risk_coverage,
    fit_threshold,
    load,
    risk_coverage,
    wilson_upper,
)
from mermaid_verifier.cli import app

OUTCOMES = [Outcome(0.95, True), Outcome(0.90, True), Outcome(0.85, True), Outcome(0.80, False),
            Outcome(0.70, True), Outcome(0.60, False), Outcome(0.50, False),
            Outcome(0.99, False, forced_abstention=True)]  # conflict: never answered


def test_risk_coverage_curve():
    curve = risk_coverage(OUTCOMES)
    # coverage counts the forced abstention in the denominator (8 claims)
    expected = [(0.95, 1 / 8, 0), (0.90, 2 / 8, 0), (0.85, 3 / 8, 0), (0.80, 4 / 8, 1 / 4),
                (0.70, 5 / 8, 1 / 5), (0.60, 6 / 8, 2 / 6), (0.50, 7 / 8, 3 / 7)]
    assert [c for c, _, _ in curve] == [c for c, _, _ in expected]
    assert [cov for _, cov, _ in curve] == pytest.approx([cov for _, cov, _ in expected])
    assert [risk for _, _, risk in curve] == pytest.approx([risk for _, _, risk in expected])
    assert area_under_risk_coverage(OUTCOMES) == pytest.approx((0 + 0 + 0 + 1 / 4 + 1 / 5 + 2 / 6 + 3 / 7) / 7)


def test_fit_without_margin_takes_the_most_coverage_within_budget():
    # delta 0.5 means no margin (z = 0): risk 0.20 at threshold 0.70 is the last within 0.25
    threshold, coverage, risk, bound = fit_threshold(OUTCOMES, max_risk=0.25, delta=0.5)
    assert (threshold, coverage, risk, bound) == pytest.approx((0.70, 5 / 8, 0.20, 0.20))


def test_wilson_margin_is_conservative_on_few_claims():
    # 0 errors in 3 answers: upper bound at 90% is 0.3538 (computed by hand from the Wilson formula)
    assert wilson_upper(0, 3, 0.1) == pytest.approx(0.3538, abs=1e-4)
    threshold, coverage, _, _ = fit_threshold(OUTCOMES, max_risk=0.25, delta=0.1)
    assert threshold > 1.0 and coverage == 0.0  # nothing can be promised: answer nothing


def test_equal_confidences_are_not_split():
    tied = [Outcome(0.8, True), Outcome(0.8, False), Outcome(0.7, True)]
    curve = risk_coverage(tied)
    assert [c for c, _, _ in curve] == [0.8, 0.7]


def test_calibrate_command_from_results_saves_and_verify_settings_pick_it_up(tmp_path):
    rows = [{"gold": "SUPPORTS", "verdict": "SUPPORTS" if i % 10 else "REFUTES", "confidence": 1 - i / 1000, "conflict": False}
            for i in range(400)]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = CliRunner().invoke(app, ["calibrate", "--from-results", str(results), "--max-risk", "0.15", "--cache-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    saved = load(tmp_path / "calibration.json")
    assert saved.max_risk == 0.15 and saved.risk_upper_bound <= 0.15 and saved.coverage > 0.9
    from mermaid_verifier.config import Settings
    from mermaid_verifier.graph import judge_config_for

    assert judge_config_for(Settings.from_env({}, cache_dir=tmp_path)).abstain_below == saved.abstain_below


def test_calibrate_needs_input(tmp_path):
    out = CliRunner().invoke(app, ["calibrate", "--cache-dir", str(tmp_path)])
    assert out.exit_code == 2 and "give a claims file or --from-results" in out.output
