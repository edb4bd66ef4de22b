"""`mermaid-verifier fever`: claim files, resumable durable results (with a real SIGKILL), orders,
per-claim failures, and the files a run leaves behind."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest

from mermaid_verifier.errors import ModelError, UsageError
from mermaid_verifier.evaluation.datasets import LabelledClaim, read_labelled_claims, stratified_sample
from mermaid_verifier.evaluation.fever_run import RunOptions, order_claims, run
from mermaid_verifier.evaluation.run_log import ResultsLog
from mermaid_verifier.models import Decomposition, Evidence, Label, Stats, Verdict
from mermaid_verifier.reader.model_check import machine_record

from .conftest import CLI, WIKI_MINI
from .fever_kit import (  # noqa: F401
    EVEREST,
    KUBRICK,
    write_claims,  # noqa: F401
)

# ---- reading claim files -----------------------------------------------------------------------


def test_bad_lines_are_reported_with_line_numbers_and_skipped(tmp_path):
    path = tmp_path / "claims.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"id": 1, "claim": KUBRICK, "label": "SUPPORTS"}),
                '{"id": 2, "claim": "cut off',
                json.dumps({"id": 3, "claim": EVEREST, "label": "MAYBE"}),
                json.dumps([1, 2, 3]),
                json.dumps({"id": 5, "label": "REFUTES"}),
                json.dumps({"id": 6, "claim": EVEREST, "label": "NOT ENOUGH INFO"}),
            ]
        )
        + "\n"
    )
    claims, bad = read_labelled_claims(path)
    assert [c.id for c in claims] == ["1", "6"]
    assert [b.line_number for b in bad] == [2, 3, 4, 5]
    assert "JSONDecodeError" in bad[0].reason and "MAYBE" in bad[1].reason


def test_scifact_claims_take_their_label_and_evidence_from_the_rationales(tmp_path):
    path = tmp_path / "scifact.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "id": 2,
                    "claim": "A contradicted claim.",
                    "evidence": {"137": [{"sentences": [4], "label": "CONTRADICT"}]},
                    "cited_doc_ids": [137],
                },
                {
                    "id": 3,
                    "claim": "A supported claim.",
                    "evidence": {"9": [{"sentences": [0, 2], "label": "SUPPORT"}]},
                    "cited_doc_ids": [9],
                },
                {"id": 4, "claim": "No rationale.", "evidence": {}, "cited_doc_ids": [5]},
            ]
        )
        + "\n"
    )
    claims, bad = read_labelled_claims(path)
    assert not bad
    assert [(c.label, c.evidence_sets) for c in claims] == [
        (Label.REFUTES, [[("137", 4)]]),
        (Label.SUPPORTS, [[("9", 0), ("9", 2)]]),
        (Label.NOT_ENOUGH_INFO, []),
    ]


def test_stratified_sample_keeps_label_shares_and_is_seeded():
    claims = [
        LabelledClaim(str(i), f"claim {i}", label)
        for i, label in enumerate([Label.SUPPORTS] * 50 + [Label.REFUTES] * 30 + [Label.NOT_ENOUGH_INFO] * 20)
    ]
    sample = stratified_sample(claims, 10, seed=1)
    assert Counter(c.label for c in sample) == {Label.SUPPORTS: 5, Label.REFUTES: 3, Label.NOT_ENOUGH_INFO: 2}
    assert sample == stratified_sample(claims, 10, seed=1)
    assert sample != stratified_sample(claims, 10, seed=2)
    assert [int(c.id) for c in sample] == sorted(int(c.id) for c in sample)  # file order kept


def test_clustered_order_puts_claims_about_one_subject_together():
    claims = [
        LabelledClaim(str(i), text, Label.SUPPORTS)
        for i, text in enumerate(
            ["Paris is big.", "Rome is old.", "Paris is in France.", "Oslo is cold.", "Rome is in Italy."]
        )
    ]
    subjects = {c.claim: c.claim.split()[0] for c in claims}
    ordered = order_claims(claims, "clustered", seed=4, subject_of=subjects.get)
    keys = [subjects[c.claim] for c in ordered]
    assert sorted(keys) == sorted(subjects.values())
    assert all(
        keys.index(k) + keys.count(k) - 1 == len(keys) - 1 - keys[::-1].index(k) for k in set(keys)
    )  # contiguous
    assert order_claims(claims, "shuffled", seed=4) == order_claims(claims, "shuffled", seed=4)
    assert order_claims(claims, "file", seed=4) == claims


# ---- the durable log ---------------------------------------------------------------------------


def test_results_log_cuts_a_torn_last_line_and_refuses_to_overwrite(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(orjson.dumps({"id": "a"}) + b"\n" + orjson.dumps({"id": "b"}) + b"\n" + b'{"id": "c", "verd')
    with pytest.raises(UsageError, match="--resume"):
        ResultsLog(path).open(resume=False)
    with ResultsLog(path) as log:
        assert [r["id"] for r in log.open(resume=True)] == ["a", "b"]
        log.append({"id": "c"})
    assert [orjson.loads(line)["id"] for line in path.read_bytes().splitlines()] == ["a", "b", "c"]


def test_a_run_killed_with_sigkill_resumes_without_loss_or_duplicates(tmp_path):
    claims = write_claims(tmp_path / "claims.jsonl", 40)
    out = tmp_path / "run"
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"}
    args = CLI + ["fever", str(claims), "--corpus", str(WIKI_MINI), "--out", str(out), "--concurrency", "1"]
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.02)
    assert process.poll() is None, f"the run ended before it could be killed: {process.stderr.read().decode()[-500:]}"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    decided_before = len(ResultsLog(results).read())
    assert 3 <= decided_before < 40

    again = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "--resume" in again.stderr  # never overwrites a run by accident

    resumed = subprocess.run(args + ["--resume"], env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    ids = [row["id"] for row in ResultsLog(results).read()]
    assert sorted(ids) == sorted(f"c{i}" for i in range(40))  # nothing lost, nothing twice
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["claims"] == 40 and metrics["run"]["resumed_rows"] >= decided_before
    # the killed invocation wrote no metrics: its rows' machine is not recorded, the resumed one's is
    assert metrics["machine"]["cpu_flags"] == machine_record()["cpu_flags"]
    assert metrics["machines"] == [
        {"rows": metrics["run"]["resumed_rows"], "machine": None},
        {"rows": 40 - metrics["run"]["resumed_rows"], "machine": machine_record()},
    ]
    assert (out / "report.html").stat().st_size > 0


def test_cli_reports_bad_lines_and_usage_errors(tmp_path):
    claims = write_claims(tmp_path / "claims.jsonl", 2)
    with claims.open("a") as handle:
        handle.write("not json\n")
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"}
    done = subprocess.run(
        CLI + ["fever", str(claims), "--corpus", str(WIKI_MINI), "--out", str(tmp_path / "r")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"skipped {claims}:3:" in done.stderr
    assert "FEVER score" in done.stdout
    missing = subprocess.run(
        CLI + ["fever", str(tmp_path / "nope.jsonl")], env=env, capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "claims file not found" in missing.stderr


# ---- failures of single claims -----------------------------------------------------------------


def output_for(claim: str) -> dict:
    evidence = Evidence(
        id="w:Stanley_Kubrick:1",
        source="local-corpus",
        title="Stanley Kubrick",
        text="He directed 2001.",
        page="Stanley_Kubrick",
        line=1,
    )
    return {
        "verdict": Verdict(label=Label.SUPPORTS, confidence=0.9, abstained=False, reason="scripted"),
        "evidence": [evidence],
        "trace": [],
        "decomposition": Decomposition(),
        "stats": Stats(tool_calls=2, seconds=0.1),
    }


class ScriptedVerifier:
    """Stands in for the compiled graph: fails for the claims it is told to."""

    def __init__(self, failing: set[str]):
        self.failing = failing

    async def ainvoke(self, state):
        if state["claim"] in self.failing:
            raise ModelError(f"LLM service unavailable for {state['claim']!r}")
        return output_for(state["claim"])


def scripted(verifier):
    @contextlib.asynccontextmanager
    async def factory():
        yield verifier

    return factory


def four_claims(tmp_path: Path) -> Path:
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "\n".join(
            json.dumps(
                {
                    "id": f"c{i}",
                    "claim": f"claim {i}",
                    "label": "SUPPORTS",
                    "evidence": [[[None, None, "Stanley_Kubrick", 1]]],
                }
            )
            for i in range(4)
        )
        + "\n"
    )
    return claims


async def test_a_failing_claim_is_set_aside_and_retried_on_resume(tmp_path):
    from mermaid_verifier.config import Settings

    claims = four_claims(tmp_path)
    settings = Settings.from_env({}, cache_dir=tmp_path / "cache")
    options = RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1)
    outcome = await run(options, settings, verifier_factory=scripted(ScriptedVerifier({"claim 2"})))
    assert [f["id"] for f in outcome.failures] == ["c2"]
    assert sorted(r["id"] for r in outcome.rows) == ["c0", "c1", "c3"]
    assert outcome.metrics["fever_score"] == 1.0 and outcome.metrics["run"]["failed"] == 1

    retried = await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, resume=True),
        settings,
        verifier_factory=scripted(ScriptedVerifier(set())),
    )
    assert sorted(r["id"] for r in retried.rows) == ["c0", "c1", "c2", "c3"] and retried.resumed == 3


# ---- the machine that decided the rows ------------------------------------------------------------

AVX2_ONLY = {
    "architecture": "x86_64",
    "cpus": 2,
    "cpu_flags": ["avx2"],
    "integer_kernel": "AVX2 without VNNI (u8 × s8 saturates beyond ±64)",
    "python": "3.11.2",
    "onnxruntime": "1.20.1",
}


async def test_metrics_and_report_record_the_machine_that_wrote_them(tmp_path):
    from mermaid_verifier.config import Settings

    settings = Settings.from_env({}, cache_dir=tmp_path / "cache")
    options = RunOptions(claims_path=four_claims(tmp_path), out_dir=tmp_path / "run", concurrency=1)
    await run(options, settings, verifier_factory=scripted(ScriptedVerifier(set())))

    here = machine_record()
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["machine"]["cpu_flags"] == here["cpu_flags"]
    assert metrics["machine"] == here
    assert metrics["machines"] == [{"rows": 4, "machine": here}]
    report = (tmp_path / "run" / "report.html").read_text()
    assert here["integer_kernel"] in report and "CPU flags" in report
    assert " ".join(here["cpu_flags"]) in report
    assert "more than one machine" not in report


async def test_a_run_resumed_on_another_machine_kind_keeps_both_machines(tmp_path, monkeypatch):
    from mermaid_verifier.config import Settings
    from mermaid_verifier.evaluation import fever_run

    settings = Settings.from_env({}, cache_dir=tmp_path / "cache")
    claims = four_claims(tmp_path)
    monkeypatch.setattr(fever_run, "machine_record", lambda: AVX2_ONLY)
    first = await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1),
        settings,
        verifier_factory=scripted(ScriptedVerifier({"claim 2"})),
    )
    assert first.metrics["machines"] == [{"rows": 3, "machine": AVX2_ONLY}]
    monkeypatch.undo()

    resumed = await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, resume=True),
        settings,
        verifier_factory=scripted(ScriptedVerifier(set())),
    )
    here = machine_record()
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics == json.loads(json.dumps(resumed.metrics))
    assert metrics["machine"]["cpu_flags"] == here["cpu_flags"]
    assert metrics["machines"] == [{"rows": 3, "machine": AVX2_ONLY}, {"rows": 1, "machine": here}]
    report = (tmp_path / "run" / "report.html").read_text()
    assert "more than one machine" in report
    assert AVX2_ONLY["integer_kernel"] in report and here["integer_kernel"] in report

    again = await run(  # resumed on the same machine again: its rows join its entry
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, resume=True),
        settings,
        verifier_factory=scripted(ScriptedVerifier(set())),
    )
    assert again.metrics["machines"] == [{"rows": 3, "machine": AVX2_ONLY}, {"rows": 1, "machine": here}]


async def test_rows_kept_from_an_invocation_that_wrote_no_metrics_have_no_machine(tmp_path):
    """An invocation interrupted before it wrote its metrics (or a run from before machines were recorded)
    leaves rows whose machine nobody knows: the history says so instead of crediting this machine."""
    from mermaid_verifier.config import Settings

    settings = Settings.from_env({}, cache_dir=tmp_path / "cache")
    claims = four_claims(tmp_path)
    await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1),
        settings,
        verifier_factory=scripted(ScriptedVerifier({"claim 2"})),
    )
    (tmp_path / "run" / "metrics.json").unlink()

    resumed = await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, resume=True),
        settings,
        verifier_factory=scripted(ScriptedVerifier(set())),
    )
    here = machine_record()
    assert resumed.metrics["machine"] == here
    assert resumed.metrics["machines"] == [{"rows": 3, "machine": None}, {"rows": 1, "machine": here}]
    assert "machine not recorded" in (tmp_path / "run" / "report.html").read_text()


def test_rows_decided_on_ray_record_the_machines_of_its_workers():
    from mermaid_verifier.evaluation.fever_run import machines_of_run

    here = machine_record()
    assert machines_of_run([], 0, 5, here, [here, AVX2_ONLY]) == [
        {"rows": 5, "machine": here, "ray_workers": [here, AVX2_ONLY]}
    ]
    assert machines_of_run([{"rows": 5, "machine": here}], 5, 2, here, [here]) == [
        {"rows": 5, "machine": here},
        {"rows": 2, "machine": here, "ray_workers": [here]},
    ]


async def test_many_failures_in_a_row_stop_the_run_with_the_error(tmp_path):
    from mermaid_verifier.config import Settings

    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "\n".join(json.dumps({"id": i, "claim": f"claim {i}", "label": "SUPPORTS"}) for i in range(12)) + "\n"
    )
    settings = Settings.from_env({}, cache_dir=tmp_path / "cache")
    every_claim = {f"claim {i}" for i in range(12)}
    with pytest.raises(ModelError, match="5 claims in a row failed"):
        await run(
            RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1),
            settings,
            verifier_factory=scripted(ScriptedVerifier(every_claim)),
        )


def test_memory_comparison_reports_savings_against_the_run_without_memory():
    from mermaid_verifier.evaluation.memory_compare import against_baseline, comparison_rows

    summaries = {
        "no-memory": {
            "claims": 10,
            "accuracy": 0.60,
            "macro_f1": 0.58,
            "tool_calls_per_claim": 5.0,
            "memory_hit_rate": 0.0,
        },
        "memory-clustered": {
            "claims": 10,
            "accuracy": 0.62,
            "macro_f1": 0.59,
            "tool_calls_per_claim": 3.0,
            "memory_hit_rate": 0.5,
        },
    }
    compared = against_baseline(summaries)
    assert compared["no-memory"]["tool_call_reduction"] == 0.0
    assert compared["memory-clustered"]["tool_call_reduction"] == pytest.approx(0.4)
    assert compared["memory-clustered"]["accuracy_change"] == pytest.approx(0.02)
    assert "40.0% saved" in dict(comparison_rows(compared))["memory-clustered"]


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"concurrency": 0}, "--concurrency"),
        ({"limit": 0}, "--limit"),
        ({"order": "random"}, "--order"),
        ({"parts": ("test",)}, "--part needs --split"),
    ],
)
def test_run_options_refuse_what_cannot_run(tmp_path, changes, message):
    with pytest.raises(UsageError, match=message):
        RunOptions(claims_path=tmp_path / "c.jsonl", out_dir=tmp_path / "out", **changes)


def test_claims_are_chosen_by_split_part_and_duplicate_ids_are_skipped(tmp_path):
    from mermaid_verifier.evaluation.fever_run import load_claims

    claims = write_claims(tmp_path / "claims.jsonl", 6)
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"assignment": {f"c{i}": ("test" if i < 4 else "train") for i in range(6)}}))
    chosen, _ = load_claims(
        RunOptions(claims_path=claims, out_dir=tmp_path, split_file=split, parts=("test",), limit=3)
    )
    assert [c.id for c in chosen] == ["c0", "c1", "c2"]
    with claims.open("a") as handle:
        handle.write(json.dumps({"id": "c1", "claim": KUBRICK, "label": "SUPPORTS"}) + "\n")
    chosen, bad = load_claims(RunOptions(claims_path=claims, out_dir=tmp_path))
    assert [c.id for c in chosen] == [f"c{i}" for i in range(6)]  # the first line with an id wins
    assert [(b.line_number, b.reason) for b in bad] == [(7, "duplicate id 'c1' (first on line 2)")]


def test_a_claim_line_that_is_not_utf8_or_too_long_is_a_bad_line(tmp_path):
    from mermaid_verifier.claims import MAX_CLAIM_CHARS

    path = write_claims(tmp_path / "claims.jsonl", 2)
    with path.open("ab") as handle:
        handle.write(b'{"id": "x", "claim": "caf\xe9", "label": "SUPPORTS"}\n')
        handle.write(
            json.dumps({"id": "long", "claim": "a" * (MAX_CLAIM_CHARS + 1), "label": "SUPPORTS"}).encode() + b"\n"
        )
    claims, bad = read_labelled_claims(path)
    assert [c.id for c in claims] == ["c0", "c1"]
    assert bad[0].line_number == 3 and bad[0].reason == "not UTF-8"
    assert bad[1].line_number == 4 and f"the limit is {MAX_CLAIM_CHARS:,}" in bad[1].reason


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "split file not found"),
        ("[1, 2]", "holds no 'assignment' object"),
        ("not json", "holds no 'assignment' object"),
    ],
)
def test_an_unusable_split_file_is_a_usage_error_naming_it(tmp_path, content, message):
    from mermaid_verifier.evaluation.fever_run import load_claims

    claims = write_claims(tmp_path / "claims.jsonl", 2)
    split = tmp_path / "split.json"
    if content is not None:
        split.write_text(content)
    with pytest.raises(UsageError, match=message) as raised:
        load_claims(RunOptions(claims_path=claims, out_dir=tmp_path, split_file=split, parts=("test",)))
    assert str(split) in str(raised.value)
