"""bench.given_evidence contrast: the figures and each claim's reading, with a stand-in judge."""

from __future__ import annotations

import gzip
import json
import sys
from types import SimpleNamespace

import pytest

from bench import compare_runs, given_evidence


class Judge:
    """Supports every claim that names 'Ottawa'; refutes the rest with confidence 0.9."""

    def verdict(self, claim: str, passages: list[tuple[str, str]]):
        label = "SUPPORTS" if "Ottawa" in claim else "REFUTES"
        return SimpleNamespace(label=SimpleNamespace(value=label), confidence=0.9)


PAIRS = [
    {
        "id": "p1",
        "edit": "swap",
        "title": "Canada",
        "evidence": "Its capital is Ottawa.",
        "true_claim": "Ottawa is the capital of Canada.",
        "false_claim": "Toronto is the capital of Canada.",
    },
    {
        "id": "p2",
        "edit": "negation",
        "title": "Canada",
        "evidence": "Its capital is Ottawa.",
        "true_claim": "Canada's capital is a city.",
        "false_claim": "Ottawa is not the capital of Canada.",
    },
]


@pytest.fixture
def pairs(tmp_path):
    path = tmp_path / "contrast.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS))
    return path


def test_contrast_counts_each_side_and_keeps_its_reading(pairs):
    readings: list[dict] = []
    figures = given_evidence.contrast(Judge(), pairs, readings)
    # p1: both right; p2: the true claim refuted, the false twin supported above 0.8
    assert figures["accuracy"] == 0.5 and figures["pairs_both_right"] == 0.5
    assert figures["accuracy_by_kind"] == {"negation": [0.0, 2], "swap": [1.0, 2]}
    assert figures["false_twins_confirmed_above_0.8"] == 1
    assert [(r["id"], r["gold"], r["verdict"]) for r in readings] == [
        ("p1:true", "SUPPORTS", "SUPPORTS"),
        ("p1:false", "REFUTES", "REFUTES"),
        ("p2:true", "SUPPORTS", "REFUTES"),
        ("p2:false", "REFUTES", "SUPPORTS"),
    ]


def test_command_writes_readings_that_compare_claim_by_claim(pairs, tmp_path, monkeypatch):
    monkeypatch.setattr(given_evidence, "judge_for", lambda model_dir: Judge())
    monkeypatch.setattr("mermaid_verifier.reader.model_check.machine_record", lambda: {})
    readings = tmp_path / "contrast.readings.jsonl.gz"
    argv = ["given_evidence", "contrast", "--pairs", str(pairs), "--readings", str(readings)]
    monkeypatch.setattr(sys, "argv", argv)
    given_evidence.main()
    assert len(gzip.open(readings, "rt").read().splitlines()) == 4
    figures = compare_runs.compare(compare_runs.verdicts(readings, None), compare_runs.verdicts(readings, None), 20)
    assert figures["claims"] == 4 and figures["macro_f1_difference"] == 0.0


def test_readings_are_refused_outside_the_contrast_mode(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["given_evidence", "gold", "--readings", "x.jsonl"])
    with pytest.raises(SystemExit) as stopped:
        given_evidence.main()
    assert stopped.value.code == 2
    assert "contrast mode only" in capsys.readouterr().err
