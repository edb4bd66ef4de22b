"""The LLM benchmark's ledger, which the repository keeps: figures only, never a claim's or its evidence's text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def llm_backends():
    from bench import llm_backends

    return llm_backends


def result_row() -> dict:
    claim = "Quillon Marsh painted the Ashgrove murals in 1911."
    passage = "The Ashgrove murals were painted by Quillon Marsh between 1909 and 1911."
    return {
        "id": "4711",
        "gold": "SUPPORTS",
        "gold_evidence": [[["Ashgrove_murals", 0]]],
        "claim": claim,
        "verdict": "SUPPORTS",
        "abstained": False,
        "confidence": 0.81,
        "reason": f"'{passage}' supports it",
        "triplets": [{"subject": "Quillon Marsh", "relation": "painted", "object": "the Ashgrove murals"}],
        "keywords": ["Quillon Marsh", "Ashgrove murals"],
        "entities": ["Quillon Marsh"],
        "evidence": [{"page": "Ashgrove_murals", "line": 0, "text": passage, "source": "local-corpus"}],
        "trace": [{"thought": f"search {claim}", "action": "search", "observation": passage}],
        "backend": "llm",
        "llm_failure": None,
        "stats": {
            "seconds": 141.2,
            "tool_calls": 2,
            "tool_calls_by_tool": {"search": 2},
            "memory_hits": 0,
            "llm_calls": 4,
            "prompt_tokens": 2950,
            "completion_tokens": 310,
            "llm_tool_turns": 2,
            "llm_unreadable_turns": 0,
            "backend": "llm",
        },
    }


def test_a_ledger_row_keeps_the_figures_and_no_text(llm_backends):
    row = llm_backends.ledger_row(result_row(), "2 cpu x86_64 test")

    assert {key: row[key] for key in ("id", "gold", "verdict", "abstained", "confidence", "backend")} == {
        "id": "4711",
        "gold": "SUPPORTS",
        "verdict": "SUPPORTS",
        "abstained": False,
        "confidence": 0.81,
        "backend": "llm",
    }
    assert row["stats"] == result_row()["stats"]
    assert row["machine"] == "2 cpu x86_64 test"
    written = json.dumps(row)
    for text in ("Quillon", "Ashgrove", "murals", "1911"):
        assert text not in written


def test_the_figures_come_from_ledger_rows_alone(llm_backends):
    from mermaid_verifier.evaluation.run_metrics import run_metrics

    right = llm_backends.ledger_row(result_row(), "m")
    wrong = llm_backends.ledger_row(result_row() | {"id": "4712", "verdict": "REFUTES"}, "m")
    unreadable = result_row()
    unreadable["stats"] = unreadable["stats"] | {"llm_tool_turns": 1, "llm_unreadable_turns": 1}
    third = llm_backends.ledger_row(unreadable | {"id": "4713"}, "m")

    figures = llm_backends.figures(run_metrics([right, wrong, third]))

    assert figures["claims"] == 3
    assert figures["accuracy"] == pytest.approx(2 / 3)
    assert figures["tool_calls_per_claim"] == 2
    assert figures["prompt_tokens_per_claim"] == 2950
    assert figures["parsed_call_share"] == pytest.approx(5 / 6)
    assert figures["claims_on_llm_path"] == 3


def test_a_ledger_rows_machine_is_short_and_names_the_cpu_flags(llm_backends):
    from mermaid_verifier.reader.model_check import machine_record

    here = machine_record()
    name = llm_backends.machine_name()
    assert name.startswith(f"{here['cpus']} cpu {here['architecture']} ")
    assert name.endswith(f"[{' '.join(here['cpu_flags']) or 'no flags reported'}]")
    assert len(name) < 200  # one short string per row, not the whole record
    avx2_only = here | {"cpus": 2, "cpu_flags": ["avx2"]}
    assert llm_backends.machine_name(avx2_only).endswith("[avx2]")
    assert llm_backends.ledger_row(result_row(), name)["machine"] == name


@pytest.mark.parametrize("backend", ["offline", "llm", "cascade"])
def test_the_kept_ledgers_still_load_and_say_which_machines_decided_them(llm_backends, backend):
    from mermaid_verifier.evaluation.run_log import ResultsLog
    from mermaid_verifier.evaluation.run_metrics import run_metrics

    rows = ResultsLog(llm_backends.DEFAULT_LEDGER / f"{backend}.jsonl").read()
    assert rows
    metrics = run_metrics(rows)
    table = llm_backends.figures(metrics)
    assert table["claims"] == len(rows)
    if backend == "offline":  # no LLM call: its LLM figures are zero, not a crash
        assert table["llm_calls_per_claim"] == 0 and table["parsed_call_share"] is None
    machines = llm_backends.ledger_machines(rows)
    assert metrics["claims"] == len(rows) == sum(machines.values())
    assert all(" cpu " in machine for machine in machines)  # rows from before the flags: "2 cpu x86_64 Linux"
    assert llm_backends.ledger_machines([{"id": "1"}]) == {"not recorded": 1}
