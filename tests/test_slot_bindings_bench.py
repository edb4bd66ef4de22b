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


def test_a_verbs_year_held_by_another_thing_is_its_own_kind_of_flag(tmp_path):
    nobel = "He received the 1921 Nobel Prize in Physics."
    pairs = write(tmp_path / "pairs.jsonl", [
        {"claim": "Albert Einstein was born in 1921.", "evidence": nobel, "label": "NOT ENOUGH INFO"},
        {"claim": "Albert Einstein won the Nobel Prize in 1921.", "evidence": nobel, "label": "SUPPORTS"},
    ])  # fmt: skip
    assert bindings(pairs)["counts"] == {
        "pairs": 2,
        "claims with a verb's year": 2,
        "holder / NOT ENOUGH INFO": 1,
        "none / SUPPORTS": 1,
    }


def test_a_fever_runs_items_read_as_supporting_are_checked(tmp_path):
    def result(claim, gold, *items):
        evidence = [{"title": "Albert Einstein", "text": text, "stance_probabilities": {"supports": s, "refutes": r}}
                    for text, s, r in items]  # fmt: skip
        return {"claim": claim, "gold": gold, "evidence": evidence}

    nobel = "He received the 1921 Nobel Prize in Physics."
    results = write(tmp_path / "results.jsonl", [
        result("Albert Einstein was born in 1921.", "REFUTES", (nobel, 0.8, 0.1), (nobel, 0.1, 0.8)),
        result("Albert Einstein won the Nobel Prize in 1921.", "SUPPORTS", (nobel, 0.9, 0.05)),
        result("Albert Einstein was a physicist.", "SUPPORTS", (nobel, 0.9, 0.05)),
    ])  # fmt: skip
    assert main(["--fever-results", str(results), "--out", str(tmp_path / "out.json")]) == 0
    counts = json.loads((tmp_path / "out.json").read_text())["files"][0]["counts"]
    assert counts == {
        "claims": 3,
        "claims with a verb's year": 2,
        "items read as supporting": 2,  # the item read as refuting is not checked
        "holder / REFUTES": 1,
        "none / SUPPORTS": 1,
    }
    broken = write(tmp_path / "broken.jsonl", [{"claim": "a"}])
    with pytest.raises(ResultsError, match=r"broken\.jsonl:1: not a fever result"):
        main(["--fever-results", str(broken)])
