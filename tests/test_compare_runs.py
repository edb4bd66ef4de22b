"""bench/compare_runs.py: two runs over the same claims compared claim by claim (paired bootstrap, McNemar)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

pytest.importorskip("scipy", reason="the dev extra (scipy, with scikit-learn) is not installed")

from bench import compare_runs  # noqa: E402

LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]


def run(n: int, wrong: set[int]) -> dict[str, tuple[str, str]]:
    """``n`` claims, gold labels in turn; the claims numbered in ``wrong`` get the next label instead."""
    out = {}
    for i in range(n):
        gold = LABELS[i % 3]
        out[str(i)] = (gold, LABELS[(i + 1) % 3] if i in wrong else gold)
    return out


def write(path: Path, rows: list[dict]) -> Path:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    return path


def test_the_same_verdicts_show_no_difference():
    base = run(300, wrong=set(range(0, 300, 4)))
    figures = compare_runs.compare(base, dict(base), resamples=200)
    assert figures["macro_f1_difference"] == 0
    assert figures["difference_95"] == [0.0, 0.0]
    assert figures["right_only_baseline"] == figures["right_only_candidate"] == 0
    assert figures["mcnemar_p"] == 1.0
    assert figures["finding"].startswith("no difference")


def test_a_candidate_that_fixes_many_claims_is_better_beyond_noise():
    wrong = set(range(0, 300, 3))  # 100 wrong
    base, cand = run(300, wrong), run(300, set(sorted(wrong)[:40]))  # 60 of them fixed, none broken
    figures = compare_runs.compare(base, cand, resamples=300)
    assert figures["right_only_baseline"] == 0 and figures["right_only_candidate"] == 60
    assert figures["candidate"]["accuracy"] - figures["baseline"]["accuracy"] == pytest.approx(0.2)
    assert figures["difference_95"][0] > 0
    assert figures["mcnemar_p"] < 1e-10
    assert figures["finding"] == "candidate better"
    reverse = compare_runs.compare(cand, base, resamples=300)
    assert reverse["finding"] == "candidate worse"
    assert reverse["macro_f1_difference"] == pytest.approx(-figures["macro_f1_difference"])


def test_a_few_changes_either_way_are_not_a_measured_gain():
    base = run(600, wrong=set(range(0, 600, 4)))
    cand = run(600, wrong=(set(range(0, 600, 4)) - {0, 4, 8, 12, 16}) | {1, 2, 3})  # 5 fixed, 3 broken
    figures = compare_runs.compare(base, cand, resamples=300)
    assert figures["macro_f1_difference"] > 0
    assert figures["difference_95"][0] < 0 < figures["difference_95"][1]
    assert figures["mcnemar_p"] > 0.5
    assert figures["finding"].startswith("no difference")


def test_runs_over_other_claims_or_other_gold_are_refused():
    base = run(30, set())
    with pytest.raises(compare_runs.RunError, match="different claims .*1 only in the baseline"):
        compare_runs.compare(base, {k: v for k, v in base.items() if k != "0"})
    other_gold = dict(base) | {"0": ("REFUTES", "REFUTES")}
    with pytest.raises(compare_runs.RunError, match="gold label of 1 claims"):
        compare_runs.compare(base, other_gold)


def test_a_ledger_takes_its_gold_from_the_claims_file(tmp_path, capsys):
    claims = write(tmp_path / "claims.jsonl", [{"id": i, "label": LABELS[i % 3], "claim": "c"} for i in range(60)])
    results = write(
        tmp_path / "results.jsonl",
        [{"id": str(i), "gold": LABELS[i % 3], "verdict": LABELS[i % 3], "abstained": False} for i in range(60)],
    )
    ledger = write(
        tmp_path / "ledger.jsonl.gz",
        [{"id": str(i), "verdict": LABELS[(i + 1) % 3] if i < 6 else LABELS[i % 3]} for i in range(60)],
    )
    out = tmp_path / "figures.json"
    assert (
        compare_runs.main([str(results), str(ledger), "--claims", str(claims), "--out", str(out), "--resamples", "100"])
        == 0
    )
    figures = json.loads(out.read_text())
    assert figures["right_only_baseline"] == 6 and figures["right_only_candidate"] == 0
    assert figures["baseline"]["accuracy"] == 1.0 and figures["candidate"]["accuracy"] == pytest.approx(0.9)
    assert "60 claims: macro-F1 1.0000 →" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("not json\n", "not a JSON-lines run file"),
        ('{"id": "1"}\n', "needs 'id' and 'verdict'"),
        ('{"id": "1", "verdict": "SUPPORTS"}\n', "no gold label; pass the claims file with --claims"),
    ],
)
def test_an_unusable_run_file_exits_2_with_one_line_naming_it(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.jsonl"
    if content is not None:
        bad.write_text(content)
    good = write(tmp_path / "good.jsonl", [{"id": "1", "gold": "SUPPORTS", "verdict": "SUPPORTS"}])
    with pytest.raises(SystemExit) as exit_info:
        compare_runs.main([str(good), str(bad)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"compare_runs: {bad}") and message in err
    assert err.count("\n") == 1
