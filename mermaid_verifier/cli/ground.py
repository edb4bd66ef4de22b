"""``mermaid-verifier ground RECORDS.jsonl --out DIR``: logged answers grounded in bulk against their contexts, with a
progress bar, resumable results, metrics over the records' labels and an HTML report (``texts/batch.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from mermaid_verifier.cli.fever import RunProgress
from mermaid_verifier.cli.options import DebugOpt, SettingsOptions, guarded, stderr, stdout
from mermaid_verifier.cli.render import summary_table
from mermaid_verifier.errors import ResumableInterrupt


def _agrees(row: dict) -> bool | None:
    return None if row.get("label") is None else row["label"] == row["supported"]


def _fmt(value, spec: str = ".3f") -> str:
    return "–" if value is None else format(value, spec)


def ground_summary(metrics: dict) -> list[tuple[str, str]]:
    rows = [
        ("records", str(metrics["records"])),
        ("records supported throughout", _fmt(metrics["records_supported"])),
        ("sentences supported", _fmt(metrics["sentences_supported"])),
        ("sentences contradicted", _fmt(metrics["sentences_contradicted"])),
        ("claims supported", _fmt(metrics["claims_supported"])),
        ("records skipped", str(metrics["bad_records"])),
    ]
    labels = metrics["labels"]
    if labels["labelled"]:
        rows += [
            ("labelled records", str(labels["labelled"])),
            ("balanced accuracy", _fmt(labels["balanced_accuracy"])),
            ('"not supported" precision', _fmt(labels["not_supported_precision"])),
            ('"not supported" recall', _fmt(labels["not_supported_recall"])),
        ]
        if len(metrics["datasets"]) > 1:
            rows += [
                (f"  {name}: balanced accuracy", _fmt(part["labels"]["balanced_accuracy"]))
                for name, part in metrics["datasets"].items()
                if part["labels"]["labelled"]
            ]
    speed = metrics["this_run"]["records_per_minute"]
    if speed:
        rows.append(("records a minute (this run)", f"{speed:g}"))
    return rows


def ground_command(
    records: Annotated[
        Path,
        typer.Argument(
            help="Records, one JSON object a line: {text, documents}, LLM-AggreFact's {doc, claim, label} or"
            " RAGAS's {response, retrieved_contexts}.",
            show_default=False,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Run directory: results.jsonl, metrics.json, report.html.")] = Path(
        "runs/ground"
    ),
    limit: Annotated[
        int | None, typer.Option("--limit", help="Ground the first N records of the file.", show_default=False)
    ] = None,
    concurrency: Annotated[int, typer.Option(help="Records grounded at once, with one model loaded for all.")] = 2,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue a run: skip records already in DIR/results.jsonl.")
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Ground many answers against their contexts: each sentence and claim supported, contradicted, not stated or undecided."""

    def body() -> None:
        from mermaid_verifier.texts.batch import GroundOptions, run

        options = GroundOptions(records_path=records, out_dir=out, limit=limit, concurrency=concurrency, resume=resume)
        settings = SettingsOptions(debug=debug).settings(use_memory=False)
        progress = RunProgress(stderr, label=out.name, unit="records", correct=_agrees)

        def skipped(bad) -> None:
            stderr.print(f"skipped {records}:{bad.line_number}: {bad.reason}", highlight=False, soft_wrap=True)

        async def go():
            try:
                return await run(
                    options, settings, on_start=progress.start, on_progress=progress.advance, on_skip=skipped
                )
            finally:
                progress.stop()

        try:
            outcome = asyncio.run(go())
        except KeyboardInterrupt:
            raise ResumableInterrupt(
                f"interrupted: the records grounded so far are kept in {out / 'results.jsonl'};"
                " the same command with --resume continues"
            ) from None
        if not outcome.rows:
            stderr.print("no record could be grounded: nothing written", highlight=False)
            raise typer.Exit(1)
        stdout.print(summary_table(f"{len(outcome.rows)} records", ground_summary(outcome.metrics)))
        stdout.print(
            f"results: {out / 'results.jsonl'}\nmetrics: {out / 'metrics.json'}\nreport:  {out / 'report.html'}",
            highlight=False,
            soft_wrap=True,
        )

    guarded(debug, body)
