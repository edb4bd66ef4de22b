"""bench/nei_readings.py: FEVER's NOT ENOUGH INFO claims read REFUTES, split by a reading by hand of the passage."""

from __future__ import annotations

import gzip
import json

import pytest

from bench.compare_runs import RunError
from bench.nei_readings import READINGS, load_readings, main, split_run

NEI, R, S = "NOT ENOUGH INFO", "REFUTES", "SUPPORTS"
READ = {"a": "refutes", "b": "does not settle", "c": "supports", "d": "does not settle"}


def test_a_run_is_split_by_the_hand_reading_of_the_claims_it_still_refutes():
    run = {"a": (NEI, R), "b": (NEI, NEI), "c": (NEI, R), "d": (NEI, R), "e": (NEI, R), "f": (NEI, NEI), "g": (S, R)}
    split = split_run(run, READ)
    assert split["not_enough_info"] == 6 and split["read_refutes"] == 4  # the SUPPORTS claim read REFUTES is not one
    assert split["hand_read_still_refuted"] == {"refutes": 1, "supports": 1, "does not settle": 1}
    assert split["hand_read_verdicts"]["does not settle"] == {NEI: 1, R: 1}
    assert split["read_refutes_not_hand_read"] == 1  # "e"
    assert split["read_refutes_other_than_hand_read_refutations"] == 3


def test_a_run_without_the_hand_read_claims_or_with_other_gold_labels_is_refused():
    with pytest.raises(RunError, match="not in the run"):
        split_run({"a": (NEI, R)}, READ)
    with pytest.raises(RunError, match="gold labels"):
        split_run({key: (S, R) for key in READ}, READ)


def test_the_shipped_readings_file_reads_and_names_every_claim_once(tmp_path):
    readings = load_readings(READINGS)
    assert len(readings) == 117 and set(readings.values()) == {"refutes", "supports", "does not settle"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "1", "reading": "maybe"}) + "\n")
    with pytest.raises(RunError, match="line 1"):
        load_readings(bad)


def test_the_command_reads_a_gzip_ledger_and_writes_its_report(tmp_path, capsys):
    ledger = tmp_path / "run.jsonl.gz"
    rows = [{"id": key, "gold": NEI, "verdict": R if key != "b" else NEI} for key in READ]
    with gzip.open(ledger, "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    readings = tmp_path / "readings.jsonl"
    readings.write_text("".join(json.dumps({"id": k, "reading": v}) + "\n" for k, v in READ.items()))
    out = tmp_path / "report.json"
    assert main(["--run", f"one={ledger}", "--readings", str(readings), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["runs"]["one"]["read_refutes"] == 3
    assert report["hand_read"] == {"refutes": 1, "does not settle": 2, "supports": 1}
    with pytest.raises(SystemExit) as stop:
        main(["--run", f"one={tmp_path / 'missing.jsonl'}", "--readings", str(readings)])
    assert stop.value.code == 1
    assert "missing.jsonl: no such file" in capsys.readouterr().err
