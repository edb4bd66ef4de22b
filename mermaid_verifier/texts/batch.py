"""Grounding in bulk (``mermaid-verifier ground RECORDS.jsonl --out DIR``): logged answers checked against the
contexts retrieved for them, one record a line, with one claim extractor and one stance model for all of them.

A record comes in one of the forms people keep such logs in:

* ours: ``{"id"?, "text", "documents": [str | {"title"?, "text", "name"?}], "label"?, "dataset"?}``;
* LLM-AggreFact: ``{"doc", "claim", "label", "dataset"?}`` (one document; ``label`` 1 = supported);
* RAGAS: ``{"user_input"?, "response", "retrieved_contexts": [str], "label"?}``.

``DIR/results.jsonl`` holds one row per record (its ``id``, or ``line-N`` for line N of the file): every sentence
and claim supported, contradicted, not stated or undecided, with the passage and the sentence(s) that decided. A record is
called **supported** when every sentence of it with something to check is supported (a sentence with no claim
flags nothing), the rule LLM-AggreFact's balanced accuracy is computed with. ``DIR/metrics.json`` holds the
shares of sentences and claims supported and, over records that carry a label, balanced accuracy with precision
and recall of "not supported", for all records and per ``dataset`` field (else per file). The run is resumable
like ``fever``: each row is fsynced as it lands, ``--resume`` skips the records already in the log, and one
process holds the folder at a time. A bad record (broken JSON, no text, no context, a context over the size
limit) is skipped with its line number and reason, counted in the metrics, and the run goes on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, Field

from mermaid_verifier.claims import MAX_TEXT_CHARS
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import UsageError
from mermaid_verifier.evaluation.fever_run import make_run_dir, run_lock, write_json
from mermaid_verifier.evaluation.run_log import ResultsLog
from mermaid_verifier.models import GivenDocument, GroundingResult
from mermaid_verifier.reader.model_check import machine_record
from mermaid_verifier.texts.grounding import as_documents

RecordForm = Literal["ours", "aggrefact", "ragas"]
RESULTS_FILE, METRICS_FILE, REPORT_FILE, SKIPPED_FILE = "results.jsonl", "metrics.json", "report.html", "skipped.jsonl"
SUPPORTED_LABELS = {"1", "true", "yes", "supported", "support", "supports", "faithful", "grounded"}
NOT_SUPPORTED_LABELS = {
    "0", "false", "no", "not supported", "not_supported", "unsupported", "partially supported",
    "partially_supported", "not faithful", "unfaithful", "contradicted", "refutes", "not grounded", "ungrounded",
}  # fmt: skip


class GroundRecord(BaseModel):
    """One record of a batch: a text and the documents it should rest on, with its label where it has one."""

    id: str
    line: int = Field(ge=1, description="Its line in the records file")
    dataset: str = Field(description="Its `dataset` field, else the records file's name: what metrics group by")
    form: RecordForm
    text: str
    documents: list[GivenDocument]
    label: bool | None = Field(default=None, description="True: supported by its documents; None: unlabelled")


@dataclass(frozen=True)
class BadRecord:
    line_number: int
    reason: str


@dataclass(frozen=True)
class GroundOptions:
    records_path: Path
    out_dir: Path
    limit: int | None = None
    concurrency: int = 2
    resume: bool = False


@dataclass
class GroundOutcome:
    rows: list[dict]
    metrics: dict
    bad_records: list[BadRecord]
    resumed: int
    out_dir: Path


def _label(raw: Any) -> bool | None:
    if raw is None:
        return None
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int | float) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str):
        folded = raw.strip().lower().replace("-", " ")
        if folded in SUPPORTED_LABELS:
            return True
        if folded in NOT_SUPPORTED_LABELS or folded.replace(" ", "_") in NOT_SUPPORTED_LABELS:
            return False
    raise UsageError(f"label {raw!r} is neither supported (1, true, 'supported') nor not (0, false, 'unsupported')")


def _form(raw: dict) -> RecordForm:
    if "text" in raw or "documents" in raw:
        return "ours"
    if "doc" in raw or "claim" in raw:
        return "aggrefact"
    if "response" in raw or "retrieved_contexts" in raw:
        return "ragas"
    raise UsageError(
        "not a record: give {text, documents}, LLM-AggreFact's {doc, claim, label} or RAGAS's"
        " {response, retrieved_contexts}"
    )


def _text_and_documents(raw: dict, form: RecordForm) -> tuple[Any, Any]:
    if form == "ours":
        return raw.get("text"), raw.get("documents")
    if form == "aggrefact":
        doc = raw.get("doc")
        return raw.get("claim"), None if doc is None else [doc]
    return raw.get("response"), raw.get("retrieved_contexts")


def parse_record(raw: Any, line: int, source: str) -> GroundRecord:
    """A record of any form above; a :class:`UsageError` that says what is wrong with it."""
    if not isinstance(raw, dict):
        raise UsageError(f"a record is a JSON object, got {type(raw).__name__}")
    form = _form(raw)
    text, documents = _text_and_documents(raw, form)
    text_field = {"ours": "text", "aggrefact": "claim", "ragas": "response"}[form]
    context_field = {"ours": "documents", "aggrefact": "doc", "ragas": "retrieved_contexts"}[form]
    if not isinstance(text, str) or not text.strip():
        raise UsageError(f"no text to check: '{text_field}' is missing or empty")
    if len(text) > MAX_TEXT_CHARS:
        raise UsageError(f"'{text_field}' holds {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,}")
    if not documents or not isinstance(documents, list):
        raise UsageError(f"no context: '{context_field}' is missing, empty or not a list")
    try:
        given = as_documents(documents)
    except UsageError as exc:
        raise UsageError(f"'{context_field}': {exc}") from None
    record_id = raw.get("id")
    return GroundRecord(
        id=f"line-{line}" if record_id is None else str(record_id),
        line=line,
        dataset=str(raw.get("dataset") or source),
        form=form,
        text=text,
        documents=given,
        label=_label(raw.get("label")),
    )


def read_records(path: Path, limit: int | None = None) -> tuple[list[GroundRecord], list[BadRecord]]:
    """The records of ``path`` (the first ``limit`` lines that hold one), and every line skipped with why."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the records file {path}: {exc.strerror or exc}") from None
    records: list[GroundRecord] = []
    bad: list[BadRecord] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(data.splitlines(), 1):
        if limit is not None and len(records) + len(bad) >= limit:
            break
        if not line.strip():
            continue
        try:
            record = parse_record(orjson.loads(line), number, path.name)
        except orjson.JSONDecodeError as exc:
            bad.append(BadRecord(number, f"broken JSON ({exc})"))
            continue
        except UsageError as exc:
            bad.append(BadRecord(number, str(exc)))
            continue
        if record.id in seen:
            bad.append(BadRecord(number, f"id {record.id!r} is already the id of line {seen[record.id]}"))
            continue
        seen[record.id] = number
        records.append(record)
    if not records and not bad:
        raise UsageError(f"{path}: no records (one JSON object a line)")
    return records, bad


def predicted_supported(result: GroundingResult) -> bool:
    """Every sentence with something to check is supported (a sentence with no claim flags nothing)."""
    summary = result.summary
    return summary.supported == summary.sentences - summary.nothing_to_check


def predicted_undecided(result: GroundingResult) -> bool:
    """No sentence is decided against (contradicted, not stated, partially supported) and one or more is undecided:
    whether the record is supported turns on what the reader cannot tell."""
    summary = result.summary
    return (
        summary.undecided > 0 and summary.supported + summary.undecided == summary.sentences - summary.nothing_to_check
    )


def result_row(record: GroundRecord, result: GroundingResult, seconds: float) -> dict:
    """One line of ``results.jsonl``."""
    data = result.model_dump(mode="json", exclude={"text"})
    return {
        "id": record.id,
        "line": record.line,
        "dataset": record.dataset,
        "form": record.form,
        "label": record.label,
        "supported": predicted_supported(result),
        "undecided": predicted_undecided(result),
        "seconds": round(seconds, 3),
        **data,
    }


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def label_metrics(rows: list[dict]) -> dict:
    """Over rows with a label: balanced accuracy of supported vs not (an undecided record counts as not supported),
    precision / recall of "not supported"; and the same balanced accuracy over the decided records alone, with
    their share."""
    labelled = [r for r in rows if r.get("label") is not None]
    decided = [r for r in labelled if not r.get("undecided")]
    return _label_figures(labelled) | {
        "decided": {
            "records": len(decided),
            "share": _share(len(decided), len(labelled)),
            "balanced_accuracy": _label_figures(decided)["balanced_accuracy"],
        }
    }


def _label_figures(labelled: list[dict]) -> dict:
    positives = [r for r in labelled if r["label"]]
    negatives = [r for r in labelled if not r["label"]]
    true_positive = sum(r["supported"] for r in positives)
    true_negative = sum(not r["supported"] for r in negatives)
    called_not = sum(not r["supported"] for r in labelled)
    balanced = (
        (true_positive / len(positives) + true_negative / len(negatives)) / 2 if positives and negatives else None
    )  # from the unrounded recalls
    return {
        "labelled": len(labelled),
        "supported": len(positives),
        "not_supported": len(negatives),
        "balanced_accuracy": None if balanced is None else round(balanced, 4),
        "not_supported_precision": _share(true_negative, called_not),
        "not_supported_recall": _share(true_negative, len(negatives)),
        "supported_recall": _share(true_positive, len(positives)),
    }


def share_metrics(rows: list[dict]) -> dict:
    sentences = sum(r["summary"]["sentences"] - r["summary"]["nothing_to_check"] for r in rows)
    claims = sum(r["summary"]["claims"] for r in rows)
    return {
        "records": len(rows),
        "records_supported": _share(sum(r["supported"] for r in rows), len(rows)),
        "sentences_checked": sentences,
        "sentences_supported": _share(sum(r["summary"]["supported"] for r in rows), sentences),
        "sentences_contradicted": _share(sum(r["summary"]["contradicted"] for r in rows), sentences),
        "claims": claims,
        "claims_supported": _share(sum(r["summary"]["claims_supported"] for r in rows), claims),
        "claims_contradicted": _share(sum(r["summary"]["claims_contradicted"] for r in rows), claims),
        "claims_undecided": _share(sum(r["summary"].get("claims_undecided", 0) for r in rows), claims),
        "records_undecided": _share(sum(bool(r.get("undecided")) for r in rows), len(rows)),
    }


def ground_metrics(rows: list[dict], bad: list[BadRecord], new_rows: int, wall_seconds: float) -> dict:
    by_dataset: dict[str, list[dict]] = {}
    for row in rows:
        by_dataset.setdefault(row["dataset"], []).append(row)
    return {
        **share_metrics(rows),
        "bad_records": len(bad),
        "bad_lines": [{"line": b.line_number, "reason": b.reason} for b in bad],
        "labels": label_metrics(rows),
        "datasets": {
            name: share_metrics(part) | {"labels": label_metrics(part)} for name, part in sorted(by_dataset.items())
        },
        "this_run": {
            "records": new_rows,
            "wall_seconds": round(wall_seconds, 2),
            "records_per_minute": round(60 * new_rows / wall_seconds, 1) if new_rows and wall_seconds else None,
        },
        "machine": machine_record(),
    }


JobOpener = Callable[[Settings], Any]  # an async context manager giving a TextJob


def _default_opener(settings: Settings):
    from mermaid_verifier.texts.job import TextJob

    return TextJob.open(settings, documents_only=True)


async def run(
    options: GroundOptions,
    settings: Settings,
    *,
    on_start: Callable[[int, int], None] | None = None,
    on_progress: Callable[[dict], None] | None = None,
    on_skip: Callable[[BadRecord], None] | None = None,
    open_job: JobOpener = _default_opener,
) -> GroundOutcome:
    """Ground every record of ``options`` not yet in the results log; write the metrics and the report."""
    if options.concurrency < 1:
        raise UsageError(f"--concurrency must be at least 1, got {options.concurrency}")
    if options.limit is not None and options.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {options.limit}")
    records, bad = read_records(options.records_path, options.limit)
    make_run_dir(options.out_dir)
    with run_lock(options.out_dir), ResultsLog(options.out_dir / RESULTS_FILE) as log:
        wanted = {r.id for r in records}
        kept = [row for row in log.open(resume=options.resume) if row["id"] in wanted]
        done = {row["id"] for row in kept}
        todo = [r for r in records if r.id not in done]
        for item in bad:
            if on_skip:
                on_skip(item)
        if on_start:
            on_start(len(records), len(kept))
        rows = list(kept)
        started = time.perf_counter()
        if todo:
            async with open_job(settings) as job:
                slots = asyncio.Semaphore(options.concurrency)

                async def one(record: GroundRecord) -> None:
                    async with slots:
                        began = time.perf_counter()
                        try:
                            result = await job.check(record.text, record.documents)
                        except UsageError as exc:  # this record's input, not the run: skip it, go on
                            item = BadRecord(record.line, str(exc))
                            bad.append(item)
                            if on_skip:
                                on_skip(item)
                            return
                    assert isinstance(result, GroundingResult)
                    row = result_row(record, result, time.perf_counter() - began)
                    log.append(row)
                    rows.append(row)
                    if on_progress:
                        on_progress(row)

                async with asyncio.TaskGroup() as group:
                    for record in todo:
                        group.create_task(one(record))
        wall = time.perf_counter() - started
    order = {r.id: i for i, r in enumerate(records)}
    rows.sort(key=lambda row: order[row["id"]])
    bad.sort(key=lambda b: b.line_number)
    metrics = ground_metrics(rows, bad, len(rows) - len(kept), wall) if rows else {}
    if rows:
        write_outputs(options.out_dir, metrics, rows)
    return GroundOutcome(rows, metrics, bad, len(kept), options.out_dir)


def write_outputs(out_dir: Path, metrics: dict, rows: list[dict]) -> None:
    from mermaid_verifier.texts.report import write_batch_report

    write_json(out_dir / METRICS_FILE, metrics)
    write_batch_report(out_dir / REPORT_FILE, metrics, rows)
