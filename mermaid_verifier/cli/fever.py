"""``mermaid-verifier fever``: batch verification of labelled claims with metrics and a report.

The progress bar lives here (Rich's progress module is imported when a run starts, not when `verify` loads
this module), the summary table in ``render.py``; choosing claims, running them, and writing
``results.jsonl`` / ``metrics.json`` / ``report.html`` live in ``fever_run.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mermaid_verifier.cli.options import CorpusOpt, DebugOpt, MemoryUrlOpt, SettingsOptions, guarded, stderr, stdout
from mermaid_verifier.cli.render import summary_table
from mermaid_verifier.errors import ResumableInterrupt, UsageError

if TYPE_CHECKING:
    from rich.progress import TaskID


class RunProgress:
    """A Rich progress bar: done / total, items per second, ETA and the running accuracy (``correct(row)``: whether a
    row agrees with its label, None where it has none)."""

    def __init__(
        self,
        console,
        label: str = "verifying",
        unit: str = "claims",
        correct: Callable[[dict], bool | None] = lambda row: row["verdict"] == row["gold"],
    ) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.label, self.unit, self.correct_of = label, unit, correct
        # the description holds the run directory's name: shown as given, not read as markup
        self.progress = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}", markup=False),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self.task: TaskID | None = None
        self.correct = self.seen = 0

    def start(self, total: int, already_done: int) -> None:
        self.progress.start()
        self.task = self.progress.add_task(self.label, total=total, completed=already_done, rate="")
        if already_done:
            self.progress.console.print(
                f"resuming: {already_done} of {total} {self.unit} already decided", highlight=False
            )

    def advance(self, row: dict) -> None:
        agrees = self.correct_of(row)
        if agrees is not None:
            self.seen += 1
            self.correct += agrees
        task = self.progress.tasks[0]
        speed = task.finished_speed or task.speed
        assert self.task is not None, "start() comes first"
        self.progress.update(
            self.task,
            advance=1,
            description=f"{self.label} · accuracy {self.correct / self.seen:.3f}" if self.seen else self.label,
            rate=f"{speed:.2f} {self.unit}/s" if speed else "",
        )

    def stop(self) -> None:
        if self.task is not None:
            self.progress.stop()


async def run_with_progress(options, settings):
    from mermaid_verifier.evaluation import fever_run

    progress = RunProgress(stderr, label=options.out_dir.name)
    try:
        return await fever_run.run(options, settings, on_start=progress.start, on_progress=progress.advance)
    finally:
        progress.stop()


def report_outcome(outcome, claims_path: Path) -> None:
    from mermaid_verifier.evaluation.fever_run import summary_rows

    for bad in outcome.bad_lines:
        stderr.print(f"skipped {claims_path}:{bad.line_number}: {bad.reason}", highlight=False, soft_wrap=True)
    if outcome.failures:
        stderr.print(
            f"{len(outcome.failures)} claim(s) failed (see {outcome.out_dir / 'failures.jsonl'}); "
            "rerun with --resume to retry them",
            highlight=False,
            soft_wrap=True,
        )
    if outcome.metrics:
        stdout.print(summary_table(f"{len(outcome.rows)} claims", summary_rows(outcome.metrics)))
        stdout.print(
            f"results: {outcome.out_dir / 'results.jsonl'}\nmetrics: {outcome.out_dir / 'metrics.json'}\n"
            f"report:  {outcome.out_dir / 'report.html'}",
            highlight=False,
            soft_wrap=True,
        )


def fever_command(
    claims: Annotated[
        Path,
        typer.Argument(
            help="Labelled claims: FEVER jsonl, SciFact claims, or {id, claim, label} jsonl.", show_default=False
        ),
    ],
    corpus: CorpusOpt = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", help="Verify N claims (the first N, or a sample with --sample).", show_default=False),
    ] = None,
    sample: Annotated[
        str | None,
        typer.Option("--sample", help="'stratified': a seeded sample keeping each label's share.", show_default=False),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample and the shuffled/clustered orders.")] = 0,
    concurrency: Annotated[
        int, typer.Option(help="Claims verified at once, over one set of tool sessions (per worker with --ray).")
    ] = 2,
    out: Annotated[Path, typer.Option("--out", help="Run directory: results.jsonl, metrics.json, report.html.")] = Path(
        "runs/fever"
    ),
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue a run: skip claims already in DIR/results.jsonl.")
    ] = False,
    no_memory: Annotated[bool, typer.Option("--no-memory", help="Run without the evidence memory.")] = False,
    memory_url: MemoryUrlOpt = None,
    memory_dir: Annotated[
        Path | None,
        typer.Option(
            "--memory-dir",
            help="Evidence memory to use (default: a fresh one in DIR/evidence-memory).",
            show_default=False,
        ),
    ] = None,
    order: Annotated[
        str, typer.Option("--order", help="file | shuffled | clustered (claims about one subject together).")
    ] = "file",
    split: Annotated[
        Path | None,
        typer.Option(
            "--split", help="A split file (assignment: claim id → part) to select parts from.", show_default=False
        ),
    ] = None,
    part: Annotated[
        list[str] | None,
        typer.Option("--part", help="Only claims of this part of --split (repeatable).", show_default=False),
    ] = None,
    compare_memory: Annotated[
        bool,
        typer.Option(
            "--compare-memory",
            help="Run without memory, then with memory in shuffled and clustered order; report the tool-call reduction.",
        ),
    ] = False,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="ADDRESS",
            help="Run on Ray: 'local' (a cluster on this machine for the run), 'auto', or the head's host:port.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", help="Ray workers, each with its own graph (default: one per CPU).", show_default=False
        ),
    ] = None,
    ray_batch: Annotated[
        int | None,
        typer.Option("--ray-batch", help="Claims sent to a Ray worker at a time (default 8).", show_default=False),
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Verify a labelled claim file in batch: resumable results, FEVER metrics and an HTML report."""

    def body() -> None:
        from mermaid_verifier.evaluation.fever_run import ORDERS, RunOptions
        from mermaid_verifier.evaluation.ray_batch import DEFAULT_BATCH_SIZE, RayOptions

        if sample not in (None, "stratified"):
            raise UsageError(f"--sample must be 'stratified', got {sample!r}")
        if sample and not limit:
            raise UsageError("--sample stratified needs --limit N (the sample size)")
        if order not in ORDERS:
            raise UsageError(f"--order must be one of {', '.join(ORDERS)}, got {order!r}")
        if ray is None and (workers is not None or ray_batch is not None):
            raise UsageError("--workers and --ray-batch go with --ray ADDRESS")
        options = RunOptions(
            claims_path=claims,
            out_dir=out,
            limit=limit,
            sample=sample,  # type: ignore[arg-type]  # checked above
            seed=seed,
            concurrency=concurrency,
            resume=resume,
            split_file=split,
            parts=tuple(part or ()),
            order=order,  # type: ignore[arg-type]  # checked above
            ray=None
            if ray is None
            else RayOptions(
                address=ray, workers=workers, batch_size=DEFAULT_BATCH_SIZE if ray_batch is None else ray_batch
            ),
        )
        # a batch run keeps its memory in its own directory, used unless --no-memory whatever MERMAID_MEMORY says
        base = SettingsOptions(corpus=corpus, no_memory=no_memory, memory_url=memory_url, debug=debug).settings(
            use_memory=not no_memory, memory_location=memory_dir or out / "evidence-memory"
        )
        if compare_memory:
            from mermaid_verifier.evaluation.memory_compare import compare, comparison_rows

            comparison = asyncio.run(compare(options, base, run_one=run_with_progress))
            stdout.print(summary_table("memory reuse", comparison_rows(comparison)))
            stdout.print(f"comparison: {out / 'compare-memory.json'}", highlight=False, soft_wrap=True)
            return
        try:
            report_outcome(asyncio.run(run_with_progress(options, base)), claims)
        except KeyboardInterrupt:
            raise ResumableInterrupt(
                f"interrupted: the claims decided so far are kept in {out / 'results.jsonl'};"
                " the same command with --resume continues"
            ) from None

    guarded(debug, body)
