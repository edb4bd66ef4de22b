"""Batch-run metrics against values computed by hand for six claims."""

from __future__ import annotations

import pytest

from mermaid_verifier.evaluation.run_metrics import (
    cost_metrics,
    expected_calibration_error,
    fever_correct,
    fever_score,
    percentile,
    reliability_diagram,
    risk_coverage_metrics,
    run_metrics,
    selective_metrics,
)

S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"


def sentence(page: str, line: int) -> dict:
    return {"page": page, "line": line, "title": page, "text": "…"}


def row(
    gold,
    verdict,
    confidence,
    *,
    abstained=False,
    evidence=(),
    gold_evidence=(),
    seconds=1.0,
    tool_calls=5,
    memory_hits=0,
):
    return {
        "id": f"{gold}-{confidence}",
        "gold": gold,
        "verdict": verdict,
        "confidence": confidence,
        "abstained": abstained,
        "evidence": list(evidence),
        "gold_evidence": [list(map(list, s)) for s in gold_evidence],
        "stats": {
            "tool_calls": tool_calls,
            "tool_calls_by_tool": {"local-corpus.search": tool_calls},
            "memory_hits": memory_hits,
            "seconds": seconds,
        },
    }


@pytest.fixture
def rows():
    return [
        # right label, its one-sentence gold set among the first five: FEVER-correct
        row(
            S,
            S,
            0.9,
            evidence=[sentence("A", 1), sentence("A", 2)],
            gold_evidence=[[("A", 1)]],
            seconds=1,
            tool_calls=5,
        ),
        # right label, but neither gold set is complete: not FEVER-correct
        row(
            S,
            S,
            0.8,
            evidence=[sentence("B", 1), sentence("B", 5)],
            gold_evidence=[[("B", 1), ("B", 2)], [("C", 0)]],
            seconds=2,
            tool_calls=5,
        ),
        # wrong, abstained
        row(R, S, 0.3, abstained=True, seconds=3, tool_calls=2, memory_hits=4),
        # NOT ENOUGH INFO right: FEVER-correct without evidence
        row(N, N, 0.6, seconds=4, tool_calls=0, memory_hits=2),
        # wrong, answered
        row(R, S, 0.75, seconds=5, tool_calls=3),
        # right label, gold sentence only sixth: FEVER looks at the first five
        row(
            R,
            R,
            0.7,
            evidence=[sentence("E", i) for i in range(5)] + [sentence("D", 9)],
            gold_evidence=[[("D", 9)]],
            seconds=6,
            tool_calls=1,
        ),
    ]


def test_fever_score_needs_a_complete_gold_set_in_the_first_five(rows):
    assert [fever_correct(r) for r in rows] == [True, False, False, True, False, False]
    assert fever_score(rows) == pytest.approx(2 / 6)


def test_fever_score_is_none_without_gold_evidence(rows):
    for r in rows:
        r["gold_evidence"] = []
    assert fever_score(rows) is None


def test_selective_metrics(rows):
    m = selective_metrics(rows)
    assert m["coverage"] == pytest.approx(5 / 6)
    assert m["selective_accuracy"] == pytest.approx(4 / 5)
    assert m["abstention_precision"] == 1.0  # the one abstention would have been wrong
    assert m["selective_score"] == pytest.approx({"0.5": 3.5 / 6, "1": 3 / 6, "2": 2 / 6})


def test_risk_coverage_and_its_area(rows):
    m = risk_coverage_metrics(rows)
    # by confidence: .9 right, .8 right, .75 wrong, .7 right, .6 right, .3 wrong
    assert m["risk_coverage"]["coverage"] == pytest.approx([1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0])
    assert m["risk_coverage"]["risk"] == pytest.approx([0, 0, 1 / 3, 1 / 4, 1 / 5, 2 / 6])
    assert m["aurc"] == pytest.approx((1 / 3 + 1 / 4 + 1 / 5 + 1 / 3) / 6)


def test_reliability_diagram_and_ece(rows):
    diagram = reliability_diagram(rows)
    assert [b["count"] for b in diagram] == [0, 0, 0, 1, 0, 0, 1, 2, 1, 1]
    assert diagram[7]["mean_confidence"] == pytest.approx(0.725) and diagram[7]["accuracy"] == 0.5
    # (|1−.9| + |1−.8| + 2·|.5−.725| + |1−.6| + |0−.3|) / 6
    assert expected_calibration_error(diagram) == pytest.approx((0.1 + 0.2 + 0.45 + 0.4 + 0.3) / 6)


def test_costs_and_latency(rows):
    m = cost_metrics(rows)
    assert m["tool_calls"]["mean"] == pytest.approx(16 / 6) and m["tool_calls"]["total"] == 16
    assert m["tool_calls"]["per_tool"] == {"local-corpus.search": pytest.approx(16 / 6)}
    assert m["memory_hit_rate"] == pytest.approx(2 / 6)
    assert m["latency"]["p50"] == pytest.approx(3.5) and m["latency"]["p95"] == pytest.approx(5.75)
    assert "llm" not in m  # an offline run has no LLM figures, not a row of zeros


def test_llm_path_figures_count_claims_failures_and_readable_calls(rows):
    llm_rows = [
        r | {"stats": r["stats"] | {"backend": "llm", "llm_tool_turns": 3, "llm_unreadable_turns": 1}} for r in rows[:2]
    ]
    llm_rows[1]["llm_failure"] = "LLM endpoint error (HTTP 500): boom"
    m = cost_metrics(llm_rows + rows[2:])["llm"]
    assert (m["claims_on_llm_path"], m["claims_with_endpoint_failure"]) == (2, 1)
    assert (m["tool_call_turns"], m["unreadable_call_turns"]) == (6, 2) and m["parsed_call_share"] == pytest.approx(
        0.75
    )


def test_percentile_interpolates():
    assert percentile([10], 95) == 10
    assert percentile([1, 2, 3, 4], 50) == 2.5


def test_run_metrics_puts_it_together(rows):
    m = run_metrics(rows)
    assert m["accuracy"] == pytest.approx(4 / 6)
    assert m["confusion"][R] == {S: 2, R: 1, N: 0}
    assert m["fever_score"] == pytest.approx(2 / 6) and m["ece"] == pytest.approx(1.45 / 6)
    with pytest.raises(ValueError):
        run_metrics([])
