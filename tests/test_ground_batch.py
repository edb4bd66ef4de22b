"""Grounding in bulk (``mermaid-verifier ground``): the record forms people keep RAG logs in, bad records skipped by
line, labels scored, a run stopped by Ctrl-C or killed resumed with nothing lost and nothing twice, and each row the
very result the per-text path gives."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import orjson
import pytest

from mermaid_verifier import Grounder
from mermaid_verifier.errors import UsageError
from mermaid_verifier.evaluation.run_log import ResultsLog
from mermaid_verifier.models import GroundingResult
from mermaid_verifier.texts import batch
from mermaid_verifier.texts.batch import GroundOptions, label_metrics, parse_record, read_records

from .conftest import CLI

HARBOUR = "The harbour of Holm Island was rebuilt in 1923 after a storm. Its lighthouse is painted blue."
GOOD = [
    {"id": "a", "text": "The harbour of Holm Island was rebuilt in 1923.", "documents": [HARBOUR], "label": 1},
    {"doc": HARBOUR, "claim": "The harbour of Holm Island was rebuilt in 1950.", "label": 0, "dataset": "wice"},
    {"user_input": "What colour?", "response": "The lighthouse of Holm Island is painted blue.",
     "retrieved_contexts": [HARBOUR, "Holm Island lies in the Baltic Sea."]},
    {"id": "d", "text": "The harbour of Holm Island was rebuilt in 1923. It has a ferry to Riga.",
     "documents": [{"title": "Holm Island", "text": HARBOUR}], "label": "not supported"},
]  # fmt: skip


def write_lines(path: Path, lines: list) -> Path:
    path.write_bytes(b"".join((line if isinstance(line, bytes) else orjson.dumps(line)) + b"\n" for line in lines))
    return path


def test_each_form_of_record_is_read_with_its_text_documents_and_label():
    ours, aggrefact, ragas, titled = (parse_record(raw, n, "log.jsonl") for n, raw in enumerate(GOOD, 1))
    assert (ours.id, ours.form, ours.label, ours.dataset) == ("a", "ours", True, "log.jsonl")
    assert (aggrefact.id, aggrefact.form, aggrefact.label, aggrefact.dataset) == ("line-2", "aggrefact", False, "wice")
    assert aggrefact.text.endswith("in 1950.") and [d.text for d in aggrefact.documents] == [HARBOUR]
    assert (ragas.form, ragas.label, len(ragas.documents)) == ("ragas", None, 2)
    assert ragas.text == "The lighthouse of Holm Island is painted blue."
    assert (titled.documents[0].title, titled.label) == ("Holm Island", False)


def test_bad_records_are_skipped_with_their_line_and_why_and_the_rest_are_read(tmp_path):
    path = write_lines(
        tmp_path / "log.jsonl",
        [
            GOOD[0],
            b'{"text": "broken',
            {"text": "  ", "documents": [HARBOUR]},
            {"response": "The lighthouse is blue.", "retrieved_contexts": []},
            {"text": "x", "documents": ["y" * 2_000_001]},
            {"id": "a", "text": "Again.", "documents": [HARBOUR]},
            {"claim": "c", "doc": HARBOUR, "label": "maybe"},
            {"text": "t", "documents": [{"title": "no text"}]},
            {"question": "not a record at all"},
            b"",
            GOOD[2],
        ],
    )
    records, bad = read_records(path)
    assert [r.line for r in records] == [1, 11]
    reasons = {b.line_number: b.reason for b in bad}
    assert set(reasons) == {2, 3, 4, 5, 6, 7, 8, 9}
    assert "broken JSON" in reasons[2] and "'text' is missing or empty" in reasons[3]
    assert "'retrieved_contexts' is missing, empty" in reasons[4] and "2,000,001 characters" in reasons[5]
    assert "already the id of line 1" in reasons[6] and "'maybe'" in reasons[7]
    assert "'documents': document 1: text: field required" in reasons[8] and "not a record" in reasons[9]
    assert [r.line for r in read_records(path, limit=3)[0]] == [1]  # --limit counts lines that hold a record
    with pytest.raises(UsageError, match="no records"):
        read_records(write_lines(tmp_path / "empty.jsonl", [b""]))


def test_label_metrics_are_balanced_accuracy_and_the_not_supported_side():
    rows = [{"label": label, "supported": called} for label, called in
            [(True, True)] * 6 + [(True, False)] * 2 + [(False, False)] * 3 + [(False, True)] * 1 + [(None, True)] * 5]  # fmt: skip
    metrics = label_metrics(rows)
    assert metrics["labelled"] == 12 and (metrics["supported"], metrics["not_supported"]) == (8, 4)
    assert metrics["balanced_accuracy"] == pytest.approx((6 / 8 + 3 / 4) / 2, abs=1e-4)
    assert metrics["not_supported_precision"] == pytest.approx(3 / 5, abs=1e-4)
    assert metrics["not_supported_recall"] == 0.75
    assert label_metrics([{"label": None, "supported": True}])["balanced_accuracy"] is None


def text_of(raw: dict) -> str:
    return raw.get("text") or raw.get("claim") or raw["response"]


@pytest.fixture(scope="module")
def readings() -> dict[str, GroundingResult]:
    """The real grounding of each good record's text, read once."""
    with Grounder() as grounder:
        return {text_of(raw): grounder.ground(text_of(raw), [HARBOUR]) for raw in GOOD}


class Stopping:
    """A text job that gives the real readings and fails with ``error`` at its ``stop_at``-th record: a run stopped
    part way, or a record the job refuses."""

    def __init__(self, readings, stop_at: int | None = None, error: BaseException | None = None) -> None:
        self.readings, self.calls, self.stop_at, self.error = readings, 0, stop_at, error

    @contextlib.asynccontextmanager
    async def __call__(self, settings):
        yield self

    async def check(self, text, documents):
        self.calls += 1
        if self.stop_at is not None and self.calls == self.stop_at:
            raise self.error  # type: ignore[misc]
        await asyncio.sleep(0)
        return self.readings[text]


def test_a_stopped_run_keeps_what_it_grounded_refuses_to_overwrite_and_resumes_each_record_once(tmp_path, readings):
    path = write_lines(tmp_path / "log.jsonl", [*GOOD, b"{broken"])
    options = GroundOptions(records_path=path, out_dir=tmp_path / "run", concurrency=1)
    settings = object()
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(batch.run(options, settings, open_job=Stopping(readings, stop_at=3, error=KeyboardInterrupt())))
    assert [row["id"] for row in ResultsLog(tmp_path / "run" / "results.jsonl").read()] == ["a", "line-2"]
    with pytest.raises(UsageError, match="--resume"):
        asyncio.run(batch.run(options, settings, open_job=Stopping(readings)))
    skipped = []
    job = Stopping(readings)
    resume = dataclasses.replace(options, resume=True)
    outcome = asyncio.run(batch.run(resume, settings, open_job=job, on_skip=skipped.append))
    assert job.calls == 2 and outcome.resumed == 2  # only the two not yet grounded
    assert [row["id"] for row in ResultsLog(tmp_path / "run" / "results.jsonl").read()] == [
        "a",
        "line-2",
        "line-3",
        "d",
    ]
    assert [b.line_number for b in skipped] == [5]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["records"] == 4 and metrics["bad_records"] == 1 and metrics["bad_lines"][0]["line"] == 5
    assert metrics["this_run"]["records"] == 2 and metrics["machine"]["cpu_flags"] is not None
    assert metrics["labels"]["labelled"] == 3 and set(metrics["datasets"]) == {"log.jsonl", "wice"}
    page = (tmp_path / "run" / "report.html").read_text()
    assert "line 5: broken JSON" in page and "balanced accuracy" in page


def test_a_record_the_job_refuses_is_skipped_and_the_run_goes_on(tmp_path, readings):
    path = write_lines(tmp_path / "log.jsonl", GOOD[:3])
    skipped = []
    job = Stopping(readings, stop_at=2, error=UsageError("the text has no sentence to check"))
    options = GroundOptions(records_path=path, out_dir=tmp_path / "run", concurrency=1)
    outcome = asyncio.run(batch.run(options, object(), open_job=job, on_skip=skipped.append))
    assert [row["id"] for row in outcome.rows] == ["a", "line-3"]
    assert [(b.line_number, b.reason) for b in skipped] == [(2, "the text has no sentence to check")]
    assert outcome.metrics["bad_records"] == 1


def test_the_command_grounds_each_form_as_the_per_text_path_does_and_reports_labels(tmp_path):
    path = write_lines(tmp_path / "log.jsonl", [*GOOD, {"text": "", "documents": [HARBOUR]}])
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [*CLI, "ground", str(path), "--out", str(tmp_path / "run")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"skipped {path}:5: no text to check: 'text' is missing or empty" in done.stderr
    assert "balanced accuracy" in done.stdout and str(tmp_path / "run" / "report.html") in done.stdout
    rows = sorted(ResultsLog(tmp_path / "run" / "results.jsonl").read(), key=lambda row: row["line"])  # as they land
    assert [row["id"] for row in rows] == ["a", "line-2", "line-3", "d"]
    with Grounder() as grounder:  # the per-text path gives the very same reading
        for raw, row in zip(GOOD, rows):
            record = parse_record(raw, 1, "x")
            alone = grounder.ground(record.text, record.documents)
            assert [s["label"] for s in row["sentences"]] == [s.label for s in alone.sentences]
            assert [c["support"] for c in row["claims"]] == [c.support for c in alone.claims]
    assert [row["supported"] for row in rows] == [True, False, True, False]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["labels"]["balanced_accuracy"] == 1.0 and metrics["bad_records"] == 1


def test_ctrl_c_stops_the_command_with_what_it_grounded_kept_and_resume_finishes(tmp_path):
    records = [{"id": f"r{i}", "text": f"The harbour of Holm Island was rebuilt in {1900 + i}.", "documents": [HARBOUR]}
               for i in range(60)]  # fmt: skip
    path = write_lines(tmp_path / "log.jsonl", records)
    out = tmp_path / "run"
    args = [*CLI, "ground", str(path), "--out", str(out), "--concurrency", "1"]
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    results = out / "results.jsonl"
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if results.exists() and results.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.02)
        assert process.poll() is None, f"the run ended before Ctrl-C: {process.communicate()[1][-500:]}"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "--resume continues" in err
    kept = len(ResultsLog(results).read())
    assert 2 <= kept < 60
    resumed = subprocess.run([*args, "--resume"], env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {kept} of 60 records already decided" in resumed.stderr
    ids = [row["id"] for row in ResultsLog(results).read()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(60))  # nothing lost, nothing twice
