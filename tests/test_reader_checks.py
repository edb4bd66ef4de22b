"""bench.reader_checks: the steps planned for a reader, a resumable run that stops on a failed step, the tuning
ledger, and the rule's table read from small stand-in outputs."""

from __future__ import annotations

import gzip
import json
import sys

import pytest

from bench import reader_checks
from bench.compare_runs import write_rows
from bench.reader_checks import ChecksError, Step


@pytest.fixture
def pairs(tmp_path):
    folder = tmp_path / "pairs"
    folder.mkdir()
    for name in ("pairs_validation.jsonl", "pairs_validation_list.jsonl", "pairs_train.jsonl"):
        (folder / name).write_text("{}\n")
    return folder


def test_plan_reads_every_validation_file_and_gives_the_model_to_the_long_steps(pairs, tmp_path):
    model = tmp_path / "model"
    steps = reader_checks.plan("cand", model, pairs, tmp_path / "E", data=tmp_path / "data", python="/v/bin/python")
    names = [s.name for s in steps]
    assert names == [
        "pairs_validation",
        "pairs_validation_list",
        "contrast",
        "doctor",
        "fever",
        "scoring",
        "tuning-ledger",
        "grounding",
        "grounding-score",
    ]
    by_name = {s.name: s for s in steps}
    assert "--readings" in by_name["pairs_validation_list"].argv and str(model) in by_name["contrast"].argv
    assert by_name["doctor"].argv[:2] == ["/v/bin/mermaid-verifier", "doctor"] and not by_name["doctor"].must_succeed
    assert by_name["fever"].env == {"MERMAID_STANCE_MODEL": str(model.resolve())}
    assert by_name["grounding"].env["MERMAID_SOURCES"] == "local"
    assert by_name["grounding"].marker == tmp_path / "E" / "cand-grounding.jsonl.gz.done"
    assert "--resume" in by_name["fever"].argv  # a killed run continues where it stopped


def test_plan_for_the_bundled_reader_and_without_the_long_steps(pairs, tmp_path):
    steps = reader_checks.plan("shipped", None, pairs, tmp_path / "E", skip=("fever", "grounding"))
    assert [s.name for s in steps][-2:] == ["contrast", "doctor"]
    assert all("--model-dir" not in s.argv and not s.env for s in steps)


def test_plan_refuses_a_folder_without_validation_files(tmp_path):
    with pytest.raises(ChecksError, match="no pairs_validation"):
        reader_checks.plan("cand", None, tmp_path, tmp_path / "E")


def test_run_skips_what_is_done_and_stops_on_a_failed_step_naming_its_log(tmp_path):
    out = tmp_path / "E"
    made, kept, late = tmp_path / "made.txt", tmp_path / "kept.txt", tmp_path / "late.txt"
    kept.write_text("before")
    write = "import sys; open(sys.argv[1], 'w').write('x')"
    steps = [
        Step("first", [sys.executable, "-c", write, str(made)], [made]),
        Step("kept", [sys.executable, "-c", write, str(kept)], [kept]),
        Step("canaries", [sys.executable, "-c", "raise SystemExit(1)"], [tmp_path / "c.txt"], must_succeed=False),
        Step(
            "broken",
            [sys.executable, "-c", "import sys; print('bad input', file=sys.stderr); sys.exit(3)"],
            [tmp_path / "b"],
        ),
        Step("late", [sys.executable, "-c", write, str(late)], [late]),
    ]
    said: list[str] = []
    with pytest.raises(ChecksError, match=r"broken failed \(exit 3\); its log: .*cand-broken\.log"):
        reader_checks.run(steps, out, "cand", echo=said.append)
    assert made.read_text() == "x" and kept.read_text() == "before" and not late.exists()
    assert "bad input" in (out / "cand-broken.log").read_text()
    assert any("kept: done before, kept" in line for line in said)
    reader_checks.run(steps[:2], out, "cand", again=True, echo=said.append)
    assert kept.read_text() == "x"


def test_run_marks_a_growing_output_whole_only_when_its_step_ends_well(tmp_path):
    out, ledger, marker = tmp_path / "E", tmp_path / "ledger.jsonl", tmp_path / "ledger.jsonl.done"
    grow = "import sys; open(sys.argv[1], 'a').write('row\\n'); sys.exit(int(sys.argv[2]))"
    killed = Step("grounding", [sys.executable, "-c", grow, str(ledger), "1"], [ledger], marker=marker)
    with pytest.raises(ChecksError, match="grounding failed"):
        reader_checks.run([killed], out, "cand", echo=lambda line: None)
    assert ledger.exists() and not marker.exists()
    whole = Step("grounding", [sys.executable, "-c", grow, str(ledger), "0"], [ledger], marker=marker)
    reader_checks.run([whole], out, "cand", echo=lambda line: None)  # the ledger alone is no finished step
    assert ledger.read_text() == "row\nrow\n" and marker.read_text() == "done\n"
    said: list[str] = []
    reader_checks.run([whole], out, "cand", echo=said.append)
    assert said == ["[1/1] grounding: done before, kept"] and ledger.read_text() == "row\nrow\n"


def test_run_names_a_command_that_cannot_start(tmp_path):
    step = Step("doctor", [str(tmp_path / "no-such-console")], [tmp_path / "d.txt"], stdout=tmp_path / "d.txt")
    with pytest.raises(ChecksError, match=r"doctor could not start .*no-such-console: No such file"):
        reader_checks.run([step], tmp_path / "E", "cand", echo=lambda line: None)


def test_tuning_ledger_keeps_the_tuning_parts(tmp_path):
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"assignment": {"1": "train", "2": "validation", "3": "calibration", "4": "test"}}))
    results = tmp_path / "results.jsonl"
    rows = [
        {"id": i, "gold": "SUPPORTS", "verdict": "REFUTES", "abstained": False, "confidence": 0.7, "claim": "c"}
        for i in range(1, 5)
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    out = tmp_path / "tuning.jsonl.gz"
    assert reader_checks.tuning_ledger(results, out, split) == 2
    kept = [json.loads(line) for line in gzip.open(out, "rt")]
    assert [r["id"] for r in kept] == [2, 3] and "claim" not in kept[0]


def readings(labels: list[tuple[str, str]]) -> list[dict]:
    return [{"id": str(i), "gold": g, "verdict": v} for i, (g, v) in enumerate(labels)]


@pytest.fixture
def outputs(tmp_path):
    """Two readers' pair files and contrast set: the candidate reads one more list pair right, one contrast claim
    wrong that the baseline reads right."""
    out = tmp_path / "E"
    out.mkdir()
    gold = [("SUPPORTS", "SUPPORTS"), ("REFUTES", "REFUTES"), ("NOT ENOUGH INFO", "NOT ENOUGH INFO")] * 5
    wrong_list = [("SUPPORTS", "REFUTES")] + gold[1:]
    for name, list_rows, contrast_rows in (
        ("shipped", wrong_list, gold[:2] * 4),
        ("cand", gold, [("SUPPORTS", "REFUTES")] + (gold[:2] * 4)[1:]),
    ):
        for stem, rows in (("pairs_validation", gold), ("pairs_validation_list", list_rows)):
            from mermaid_verifier.evaluation.metrics import macro_f1

            f1 = macro_f1([g for g, _ in rows], [v for _, v in rows])
            (out / f"{name}-{stem}.json").write_text(json.dumps({"pairs": len(rows), "macro_f1": f1}))
            write_rows(out / f"{name}-{stem}.readings.jsonl.gz", readings(rows))
        right = sum(g == v for g, v in contrast_rows) / len(contrast_rows)
        (out / f"{name}-contrast.json").write_text(json.dumps({"claims": len(contrast_rows), "accuracy": right}))
        write_rows(out / f"{name}-contrast.readings.jsonl.gz", readings(contrast_rows))
        (out / f"{name}-doctor.txt").write_text("  self-check  passed: largest difference 0.01\n")
    return out


def test_table_marks_the_checks_lost_and_leaves_out_what_was_not_run(outputs):
    figures = reader_checks.table(outputs, "shipped", "cand")
    rows = {r["check"].split(" ")[0]: r for r in figures["checks"]}
    assert not rows["pairs_validation"]["lost"]
    assert rows["pairs_validation_list"]["candidate"] > rows["pairs_validation_list"]["baseline"]
    assert rows["pairs_validation_list"]["right_only"] == [0, 1]
    assert rows["contrast"]["lost"] and rows["contrast"]["right_only"] == [1, 0]
    assert not rows["contrast"]["lost_beyond_doubt"]  # one claim of eight is no measured loss
    assert rows["canaries"]["candidate"] == "passed"
    assert len(figures["left_out"]) == 2  # FEVER and grounding were not run
    assert figures["lost"] == [rows["contrast"]["check"]]
    assert not figures["ships_by_the_rule"]
    text = reader_checks.render(figures)
    assert "cand does not ship by the rule" in text and "left out: FEVER" in text


def test_table_with_nothing_lost_still_does_not_ship_on_checks_left_out(outputs):
    for side in ("shipped", "cand"):
        rows = readings([("SUPPORTS", "SUPPORTS")] * 8)
        write_rows(outputs / f"{side}-contrast.readings.jsonl.gz", rows)
        (outputs / f"{side}-contrast.json").write_text(json.dumps({"claims": 8, "accuracy": 1.0}))
    figures = reader_checks.table(outputs, "shipped", "cand")
    assert figures["lost"] == [] and not figures["ships_by_the_rule"]


def test_table_names_a_missing_output_and_a_failed_canary(outputs):
    (outputs / "cand-doctor.txt").write_text("  self-check  FAILED: largest difference 0.4\n")
    figures = reader_checks.table(outputs, "shipped", "cand")
    assert "canaries (doctor self-check)" in figures["lost"]
    (outputs / "shipped-contrast.json").unlink()
    with pytest.raises(ChecksError, match="shipped-contrast.json: missing"):
        reader_checks.table(outputs, "shipped", "cand")
    with pytest.raises(ChecksError, match="no pair-file readings of other"):
        reader_checks.table(outputs, "shipped", "other")


def test_command_says_one_line_for_a_model_folder_without_a_model(tmp_path, pairs, capsys):
    code = reader_checks.main(
        ["run", "--name", "x", "--model-dir", str(tmp_path), "--pairs", str(pairs), "--out", str(tmp_path / "E")]
    )
    assert code == 1
    assert (
        capsys.readouterr().err.strip()
        == f"reader_checks: {tmp_path}: no model.onnx (training.reader_job import writes one)"
    )


def test_table_reads_fever_and_grounding_and_ships_only_with_nothing_lost(outputs, monkeypatch):
    for side, fitted, halves in (("shipped", 0.771, 0.811), ("cand", 0.775, 0.812)):
        scoring = {d: {"tuning": {"macro_f1": fitted}} for d in ("full, fitted", "full, max-rule")}
        (outputs / f"{side}-scoring.json").write_text(json.dumps(scoring))
        write_rows(outputs / f"{side}-paper-dev-tuning.jsonl.gz", readings([("SUPPORTS", "SUPPORTS")] * 6))
        score = {s: {"after": {"held_out_mean": halves}} for s in ("wice", "lfqa")}
        (outputs / f"{side}-grounding-score.json").write_text(json.dumps(score))
        write_rows(outputs / f"{side}-contrast.readings.jsonl.gz", readings([("SUPPORTS", "SUPPORTS")] * 8))
        (outputs / f"{side}-contrast.json").write_text(json.dumps({"claims": 8, "accuracy": 1.0}))
    ranked = {"auroc_new": 0.80, "auroc_old": 0.79, "interval_5_95": [0.002, 0.015]}
    monkeypatch.setattr("bench.grounding_compare.unit_scores", lambda ledger, setting: {})
    monkeypatch.setattr("bench.grounding_compare.compare", lambda new, old: {"wice": ranked, "lfqa": ranked})
    figures = reader_checks.table(outputs, "shipped", "cand")
    checks = [r["check"] for r in figures["checks"]]
    assert "FEVER tuning parts macro-F1, judge refitted on the train part (6 claims)" in checks
    assert "FEVER tuning parts macro-F1, verdicts as run, bundled judge (6 claims)" in checks
    assert "grounding lfqa across halves" in checks and "grounding wice AUROC (5-95 %)" in checks
    auroc = next(r for r in figures["checks"] if r["check"] == "grounding wice AUROC (5-95 %)")
    assert auroc["gained_beyond_doubt"] and auroc["interval"] == [0.002, 0.015]
    assert figures["left_out"] == [] and figures["lost"] == [] and figures["ships_by_the_rule"]
    assert "cand ships by the rule" in reader_checks.render(figures)
