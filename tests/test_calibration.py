"""Risk–coverage and the risk-budget threshold, on a hand-made set of outcomes."""

import json
import random

import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.errors import ConfigError
from mermaid_verifier.weighing.calibration import (
    MOST_LIKELY_RIGHT,
    Outcome,
    area_under_risk_coverage,
    check_held_out,
    cluster_upper,
    deal_folds,
    fit,
    fit_threshold,
    label_prior_weights,
    load,
    risk_coverage,
    risk_upper_bound,
    wilson_upper,
)

OUTCOMES = [
    Outcome(0.95, True),
    Outcome(0.90, True),
    Outcome(0.85, True),
    Outcome(0.80, False),
    Outcome(0.70, True),
    Outcome(0.60, False),
    Outcome(0.50, False),
    Outcome(0.99, False, forced_abstention=True),
]  # conflict: never answered


def test_risk_coverage_curve():
    curve = risk_coverage(OUTCOMES)
    # coverage counts the forced abstention in the denominator (8 claims)
    expected = [
        (0.95, 1 / 8, 0),
        (0.90, 2 / 8, 0),
        (0.85, 3 / 8, 0),
        (0.80, 4 / 8, 1 / 4),
        (0.70, 5 / 8, 1 / 5),
        (0.60, 6 / 8, 2 / 6),
        (0.50, 7 / 8, 3 / 7),
    ]
    assert [c for c, _, _ in curve] == [c for c, _, _ in expected]
    assert [cov for _, cov, _ in curve] == pytest.approx([cov for _, cov, _ in expected])
    assert [risk for _, _, risk in curve] == pytest.approx([risk for _, _, risk in expected])
    assert area_under_risk_coverage(OUTCOMES) == pytest.approx((0 + 0 + 0 + 1 / 4 + 1 / 5 + 2 / 6 + 3 / 7) / 7)


def test_fit_without_margin_takes_the_most_coverage_within_budget():
    # delta 0.5 means no margin (z = 0): risk 0.20 at threshold 0.70 is the last within 0.25
    threshold, coverage, risk, bound = fit_threshold(OUTCOMES, max_risk=0.25, delta=0.5)
    assert (threshold, coverage, risk, bound) == pytest.approx((0.70, 5 / 8, 0.20, 0.20))


def test_no_fitted_threshold_answers_a_verdict_more_likely_wrong_than_right():
    # a generous budget takes every claim down to 0.2 without a floor; with it, nothing under 0.5 is answered
    low = [Outcome(0.9, True)] * 8 + [Outcome(0.45, True), Outcome(0.3, True), Outcome(0.2, False)]
    assert fit_threshold(low, max_risk=0.5, delta=0.5)[0] == pytest.approx(0.2)
    threshold, coverage, _, _ = fit_threshold(low, max_risk=0.5, delta=0.5, floor=MOST_LIKELY_RIGHT)
    assert threshold == pytest.approx(0.9) and coverage == pytest.approx(8 / 11)
    saved = fit(low, max_risk=0.5, delta=0.5, fitted_on="test")  # what `calibrate` saves
    assert saved.abstain_below == pytest.approx(0.9) and saved.coverage == pytest.approx(8 / 11, abs=1e-4)
    assert check_held_out(low, max_risk=0.5, delta=0.5, folds=2).answered == 8  # the held-out check fits the same way
    nothing_sure = [Outcome(0.4, True)] * 20
    assert fit_threshold(nothing_sure, max_risk=0.5, delta=0.5, floor=MOST_LIKELY_RIGHT)[1] == 0.0


def test_wilson_margin_is_conservative_on_few_claims():
    # 0 errors in 3 answers: upper bound at 90% is 0.3538 (computed by hand from the Wilson formula)
    assert wilson_upper(0, 3, 0.1) == pytest.approx(0.3538, abs=1e-4)
    threshold, coverage, _, _ = fit_threshold(OUTCOMES, max_risk=0.25, delta=0.1)
    assert threshold > 1.0 and coverage == 0.0  # nothing can be promised: answer nothing


GROUPED = (
    [Outcome(0.9, False, group="A"), Outcome(0.9, False, group="A"), Outcome(0.9, True, group="A")]
    + [Outcome(0.8, True, group="B")] * 3
    + [Outcome(0.7, True, group="C")] * 2
)


def test_cluster_bound_counts_groups_not_claims():
    # 2 errors in 8 claims, both in group A (3 claims); B has 3 claims, C 2, no errors. R = 0.25;
    # Var = 3/2 · ((2 − 0.75)² + (0 − 0.75)² + (0 − 0.5)²) / 8² = 1.5 · 2.375 / 64; bound = 0.25 + 1.2816·√Var
    assert cluster_upper(GROUPED, 0.1) == pytest.approx(0.25 + 1.2816 * (1.5 * 2.375 / 64) ** 0.5, abs=1e-6)
    assert cluster_upper(GROUPED, 0.1) == pytest.approx(0.5524, abs=1e-4)
    assert wilson_upper(2, 8, 0.1) == pytest.approx(0.4763, abs=1e-4)  # what independent claims would give
    assert risk_upper_bound(GROUPED, 0.1) == pytest.approx(0.5524, abs=1e-4)  # the larger of the two
    ungrouped = [Outcome(o.confidence, o.correct) for o in GROUPED]
    assert risk_upper_bound(ungrouped, 0.1) == pytest.approx(0.4763, abs=1e-4)


def test_errors_that_go_together_cost_coverage():
    """Forty claims, three wrong; with the errors in one page group the same budget answers fewer."""
    confidences = [1 - i / 100 for i in range(40)]
    wrong = {5, 6, 7}
    independent = [Outcome(c, i not in wrong) for i, c in enumerate(confidences)]
    clustered = [
        Outcome(c, i not in wrong, group="same page" if i in wrong else f"page {i}") for i, c in enumerate(confidences)
    ]
    # all 40 answered: Wilson's bound for 3/40 is 0.1467, the cluster bound 0.1663 (38 groups)
    assert fit_threshold(independent, max_risk=0.15, delta=0.1)[1] == 1.0
    assert fit_threshold(clustered, max_risk=0.15, delta=0.1)[1] == 0.0
    assert fit_threshold(clustered, max_risk=0.20, delta=0.1)[3] == pytest.approx(0.1663, abs=1e-4)


def test_a_single_group_cannot_be_bounded():
    assert cluster_upper([Outcome(0.9, True, group="A"), Outcome(0.8, True, group="A")], 0.1) == 1.0


def test_equal_confidences_are_not_split():
    tied = [Outcome(0.8, True), Outcome(0.8, False), Outcome(0.7, True)]
    curve = risk_coverage(tied)
    assert [c for c, _, _ in curve] == [0.8, 0.7]


def test_folds_hold_every_group_once_and_depend_only_on_the_seed():
    groups = [f"g{i}" for i in range(23)] + [("claim", 0)]  # ungrouped outcomes are keyed by a tuple
    folds = deal_folds(groups, 5, random.Random(1))
    assert sorted(map(str, (g for fold in folds for g in fold))) == sorted(map(str, groups))
    assert sorted(len(fold) for fold in folds) == [4, 5, 5, 5, 5]  # 24 = 4 × 5 + 4
    assert deal_folds(list(reversed(groups)), 5, random.Random(1)) == folds  # input order does not matter
    assert deal_folds(groups, 5, random.Random(2)) != folds


def test_held_out_check_fits_without_each_group_and_answers_it():
    """Three groups, one per fold (so dealing cannot matter), no margin (delta 0.5), budget 0.4:
    without A the threshold is 0.7 (B+C: risk 1/3 there, 2/4 at 0.6) and A answers 2 of 2 rightly;
    without B it is 0.7 (A+C: 1/4) and B answers its 0.9, not its wrong 0.6; without C it is 0.6
    (A+B: 1/4) and C answers both, one wrongly: 1/2 is over the budget. Pooled: 5 of 7 answered
    (A's conflict never is), 1 error."""
    outcomes = [
        Outcome(0.9, True, group="A"),
        Outcome(0.8, True, group="A"),
        Outcome(0.99, False, True, group="A"),
        Outcome(0.9, True, group="B"),
        Outcome(0.6, False, group="B"),
        Outcome(0.95, True, group="C"),
        Outcome(0.7, False, group="C"),
    ]
    check = check_held_out(outcomes, max_risk=0.4, delta=0.5, folds=3)
    assert (check.answered, check.coverage, check.risk) == (5, round(5 / 7, 4), 0.2)
    assert (check.folds_over_budget, check.folds_answering) == (1, 3)


def test_held_out_check_needs_a_group_per_fold():
    with pytest.raises(ConfigError, match="needs at least 5 groups; these claims fall in 2"):
        check_held_out([Outcome(0.9, True, group="A"), Outcome(0.8, False, group="B")], 0.1, 0.1, folds=5)


def test_calibrate_command_from_results_saves_and_verify_settings_pick_it_up(tmp_path):
    rows = [
        {
            "gold": "SUPPORTS",
            "verdict": "SUPPORTS" if i % 10 else "REFUTES",
            "confidence": 1 - i / 1000,
            "conflict": False,
        }
        for i in range(400)
    ]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = CliRunner().invoke(
        app, ["calibrate", "--from-results", str(results), "--max-risk", "0.15", "--cache-dir", str(tmp_path)]
    )
    assert out.exit_code == 0, out.output
    saved = load(tmp_path / "calibration.json")
    assert saved.max_risk == 0.15 and saved.risk_upper_bound <= 0.15 and saved.coverage > 0.9
    # rows without pages are groups of their own: 400 groups in 5 folds; every tenth row is wrong, so
    # each fold's threshold answers nearly all of its 80 rows at about 10 % errors
    assert saved.held_out.folds == 5 and saved.held_out.folds_answering == 5 and saved.held_out.folds_over_budget == 0
    assert saved.held_out.coverage > 0.9 and 0.05 < saved.held_out.risk <= 0.15
    assert f"answered {saved.held_out.coverage:.1%} of its claims with {saved.held_out.risk:.1%} errors" in out.output
    from mermaid_verifier.config import Settings
    from mermaid_verifier.graph import judge_config_for

    assert judge_config_for(Settings.from_env({}, cache_dir=tmp_path)).abstain_below == saved.abstain_below


def test_calibrate_needs_input(tmp_path):
    out = CliRunner().invoke(app, ["calibrate", "--cache-dir", str(tmp_path)])
    assert out.exit_code == 2 and "give a claims file or --from-results" in out.output


def test_calibrate_says_when_the_held_out_check_is_skipped(tmp_path):
    rows = [
        {"gold": "SUPPORTS", "verdict": "SUPPORTS", "confidence": 0.9, "gold_evidence": [[[f"Page_{i % 2}", 0]]]}
        for i in range(30)
    ]  # two page groups
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = CliRunner().invoke(app, ["calibrate", "--from-results", str(results), "--cache-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "held-out check skipped: 2 page groups cannot fill 5 folds" in out.output
    assert load(tmp_path / "calibration.json").held_out is None
    out = CliRunner().invoke(
        app, ["calibrate", "--from-results", str(results), "--cache-dir", str(tmp_path), "--check-folds", "0"]
    )
    assert out.exit_code == 0 and "held-out check" not in out.output


def test_calibrate_refuses_a_single_fold(tmp_path):
    out = CliRunner().invoke(
        app,
        [
            "calibrate",
            "--from-results",
            str(tmp_path / "none.jsonl"),
            "--cache-dir",
            str(tmp_path),
            "--check-folds",
            "1",
        ],
    )
    assert out.exit_code == 2 and "--check-folds takes 0 (no check) or 2 and more" in out.output


def test_calibrate_refuses_a_budget_it_cannot_meet_and_saves_nothing(tmp_path):
    rows = [
        {
            "gold": "SUPPORTS",
            "verdict": "SUPPORTS" if i % 3 else "REFUTES",
            "confidence": 1 - i / 1000,
            "conflict": False,
        }
        for i in range(300)
    ]  # one error in three at every confidence: no threshold reaches 5 %
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = CliRunner().invoke(
        app, ["calibrate", "--from-results", str(results), "--max-risk", "0.05", "--cache-dir", str(tmp_path)]
    )
    assert out.exit_code == 1
    assert "no confidence threshold keeps errors at or below 5.0%" in out.output and "nothing was saved" in out.output
    assert not (tmp_path / "calibration.json").exists()


def test_verify_json_reports_the_threshold_in_force_and_where_it_comes_from(tmp_path):
    from mermaid_verifier.agents.judge import JudgeConfig

    from .conftest import WIKI_MINI, save_calibration

    def verify_json() -> dict:
        out = CliRunner().invoke(
            app,
            [
                "verify",
                "--json",
                "--no-memory",
                "--corpus",
                str(WIKI_MINI),
                "--cache-dir",
                str(tmp_path),
                "Mount Everest is in the Himalayas.",
            ],
        )
        assert out.exit_code == 0, out.output
        return json.loads(out.output.strip().splitlines()[-1])

    bundled = verify_json()
    assert bundled["abstain_below"] == JudgeConfig.bundled().abstain_below
    assert bundled["threshold_source"] == "the bundled judge configuration"

    save_calibration(tmp_path, 0.77, fitted_on="fever paper_dev calibration part")
    calibrated = verify_json()
    assert calibrated["abstain_below"] == 0.77
    assert calibrated["threshold_source"].startswith(f"calibrate: {tmp_path / 'calibration.json'} (max risk 0.1 on 900")


def test_calibrate_reset_removes_the_saved_threshold_and_says_what_it_was(tmp_path):
    from mermaid_verifier.agents.judge import JudgeConfig
    from mermaid_verifier.config import Settings
    from mermaid_verifier.graph import judge_config_for

    from .conftest import save_calibration

    save_calibration(tmp_path, 0.77, fitted_on="claims.jsonl")
    settings = Settings.from_env({}, cache_dir=tmp_path)
    assert judge_config_for(settings).abstain_below == 0.77
    out = CliRunner().invoke(app, ["calibrate", "--reset", "--cache-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "removed" in out.output and "abstain below 0.770" in out.output
    assert not (tmp_path / "calibration.json").exists()
    assert judge_config_for(settings).abstain_below == JudgeConfig.bundled().abstain_below
    again = CliRunner().invoke(app, ["calibrate", "--reset", "--cache-dir", str(tmp_path)])
    assert again.exit_code == 0 and "no calibration saved" in again.output
    both = CliRunner().invoke(
        app, ["calibrate", "--reset", "--from-results", str(tmp_path), "--cache-dir", str(tmp_path)]
    )
    assert both.exit_code == 2


def test_balanced_label_prior_makes_each_label_weigh_the_same():
    golds = ["NOT ENOUGH INFO"] * 6 + ["SUPPORTS"] * 3 + ["REFUTES"] * 1
    weights = label_prior_weights(golds)
    totals = {g: sum(w for w, x in zip(weights, golds) if x == g) for g in set(golds)}
    assert totals == pytest.approx({g: 10 / 3 for g in totals})
    assert sum(weights) == pytest.approx(len(golds))  # the total stays the number of claims
    assert label_prior_weights(golds, "as-given") == [1.0] * 10
    with pytest.raises(ConfigError, match="label prior must be one of balanced, as-given"):
        label_prior_weights(golds, "uniform")


def test_weighted_outcomes_give_weighted_risk_and_coverage():
    # a claim of weight 2 counts as two claims of weight 1 in the shares (not in the margin: n_eff is smaller)
    weighted = [Outcome(0.9, True, weight=2.0), Outcome(0.8, False, weight=1.0), Outcome(0.5, True, weight=1.0)]
    repeated = [Outcome(0.9, True), Outcome(0.9, True), Outcome(0.8, False), Outcome(0.5, True)]
    for outcomes in (weighted, repeated):
        assert fit_threshold(outcomes, max_risk=0.2, delta=0.5) == pytest.approx((0.9, 2 / 4, 0.0, 0.0))
        assert fit_threshold(outcomes, max_risk=0.26, delta=0.5) == pytest.approx((0.5, 1.0, 1 / 4, 1 / 4))
    assert risk_upper_bound(weighted[:2], 0.1) > risk_upper_bound(repeated[:3], 0.1)


def test_a_confident_region_of_one_label_costs_coverage_under_the_balanced_prior():
    # 500 NOT ENOUGH INFO claims answered right at high confidence, 100 SUPPORTS claims that the same
    # region gets wrong a third of the time: fine for this mix, not for a mix where each label counts the same
    rows = [("NOT ENOUGH INFO", 0.95, True)] * 500 + [("SUPPORTS", 0.95, i % 3 != 0) for i in range(100)]
    rows += [("SUPPORTS", 0.4, True)] * 100 + [("REFUTES", 0.4, False)] * 100
    golds = [gold for gold, _, _ in rows]
    as_given = [Outcome(c, ok) for _, c, ok in rows]
    balanced = [Outcome(c, ok, weight=w) for (_, c, ok), w in zip(rows, label_prior_weights(golds))]
    assert fit_threshold(as_given, max_risk=0.10, delta=0.1)[:3] == pytest.approx((0.95, 600 / 800, 34 / 600))
    threshold, coverage, _, _ = fit_threshold(balanced, max_risk=0.10, delta=0.1)
    assert coverage == 0.0 and threshold > 1  # each label counted the same, that region errs 11 % of the time


def test_calibrate_label_prior_is_saved_and_changes_the_threshold(tmp_path):
    rows = [{"gold": "NOT ENOUGH INFO", "verdict": "NOT ENOUGH INFO", "confidence": 0.95} for _ in range(300)]
    rows += [
        {"gold": "SUPPORTS", "verdict": "SUPPORTS" if i % 3 else "REFUTES", "confidence": 0.95} for i in range(100)
    ]
    rows += [{"gold": "REFUTES", "verdict": "REFUTES", "confidence": 0.99 - i / 1000} for i in range(100)]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    base = ["calibrate", "--from-results", str(results), "--check-folds", "0", "--max-risk", "0.10"]
    out = CliRunner().invoke(app, [*base, "--cache-dir", str(tmp_path / "given"), "--label-prior", "as-given"])
    assert out.exit_code == 0, out.output
    given = load(tmp_path / "given" / "calibration.json")
    assert given.label_prior == "as-given" and given.abstain_below == pytest.approx(0.891) and given.coverage == 1.0
    out = CliRunner().invoke(app, [*base, "--cache-dir", str(tmp_path / "balanced")])
    assert out.exit_code == 0, out.output
    balanced = load(tmp_path / "balanced" / "calibration.json")
    assert balanced.label_prior == "balanced" and balanced.abstain_below > 0.95  # only the REFUTES rows above 0.95
    out = CliRunner().invoke(app, [*base, "--cache-dir", str(tmp_path), "--label-prior", "uniform"])
    assert out.exit_code == 2 and "--label-prior takes balanced or as-given, not 'uniform'" in out.output
