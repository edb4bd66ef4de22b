"""bench/slot_bindings.py: the slot-conflict check's flags on labelled pairs, counted by kind and gold label."""

from __future__ import annotations

import json

import pytest

from bench.slot_bindings import bindings, main
from mermaid_verifier.errors import ResultsError

CANADA = "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_flags_are_counted_by_kind_and_gold_label_and_a_wrong_one_is_shown(tmp_path):
    pairs = write(
        tmp_path / "pairs.jsonl",
        [
            {"claim": "Toronto is the capital of Canada.", "evidence": CANADA, "label": "REFUTES"},
            {"claim": "Ottawa is the capital of Canada.", "evidence": CANADA, "label": "SUPPORTS"},
            {"claim": "Toronto is the capital of Canada.", "evidence": CANADA, "label": "SUPPORTS"},  # mislabelled
            {
                "claim": "Toronto is the capital of Canada.",
                "evidence": "Toronto is the capital of Ontario.",
                "label": "NOT ENOUGH INFO",
            },
            {"claim": "Mozart was born in Salzburg.", "evidence": "Mozart was born in Salzburg.", "label": "SUPPORTS"},
        ],  # fmt: skip
    )
    found = bindings(pairs)
    assert found["counts"] == {
        "pairs": 5,
        "single-valued claims": 4,
        "value / REFUTES": 1,
        "none / SUPPORTS": 1,
        "value / SUPPORTS": 1,
        "owner / NOT ENOUGH INFO": 1,
    }
    assert [(w["line"], w["label"], w["bound"]) for w in found["wrong_flags"]] == [(3, "SUPPORTS", "value")]


def test_a_row_that_is_not_a_pair_names_its_line(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"claim": "a", "evidence": "b", "label": "SUPPORTS"}\n{"claim": "a"}\n')
    with pytest.raises(ResultsError, match=r"pairs\.jsonl:2: not a pair"):
        bindings(pairs)


def test_the_command_writes_its_figures_with_the_machine(tmp_path):
    pairs = write(tmp_path / "p.jsonl", [{"claim": "Toronto is the capital of Canada.", "evidence": CANADA,
                                          "label": "REFUTES"}])  # fmt: skip
    assert main([str(pairs), "--out", str(tmp_path / "out.json")]) == 0
    record = json.loads((tmp_path / "out.json").read_text())
    assert record["files"][0]["counts"]["value / REFUTES"] == 1 and "cpu_flags" in record["machine"]
