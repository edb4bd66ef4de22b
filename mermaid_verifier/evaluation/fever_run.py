"""A batch verification run over a labelled claim file: choose and order the claims, verify them
through one graph, stream each result durably to ``DIR/results.jsonl``, then write
``DIR/metrics.json`` and ``DIR/report.html``.

The int8 stance model computes differently on different CPU kinds, so ``metrics.json`` says which
machine decided the rows: ``machine`` is this writing's :func:`~mermaid_verifier.reader.model_check.machine_record`,
and ``machines`` the run's history, one entry per machine in the order they wrote (see :func:`machines_of_run`).

The terminal side (progress bar, summary table) lives in ``cli/fever.py``; this module only calls
``on_progress`` so it can be driven from tests and scripts too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import orjson

from mermaid_verifier.config import Settings
from mermaid_verifier.errors import MermaidError, UsageError
from mermaid_verifier.evaluation.batch import verify_labelled
from mermaid_verifier.evaluation.datasets import (
    BadLine,
    LabelledClaim,
    load_split_ids,
    read_labelled_claims,
    require_readable_file,
    stratified_sample,
)
from mermaid_verifier.evaluation.ray_batch import RayOptions, verify_on_ray
from mermaid_verifier.evaluation.run_log import ResultsLog
from mermaid_verifier.evaluation.run_metrics import run_metrics
from mermaid_verifier.reader.model_check import machine_record

Order = Literal["file", "shuffled", "clustered"]
ORDERS: tuple[str, ...] = ("file", "shuffled", "clustered")
CONSECUTIVE_FAILURES_TO_STOP = 5


@dataclass(frozen=True)
class RunOptions:
    claims_path: Path
    out_dir: Path
    limit: int | None = None
    sample: Literal["stratified"] | None = None
    seed: int = 0
    concurrency: int = 2
    resume: bool = False
    order: Order = "file"
    split_file: Path | None = None
    parts: tuple[str, ...] = ()
    ray: RayOptions | None = None  # None: verify in this process

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise UsageError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.limit is not None and self.limit < 1:
            raise UsageError(f"--limit must be at least 1, got {self.limit}")
        if self.order not in ORDERS:
            raise UsageError(f"--order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        if self.parts and self.split_file is None:
            raise UsageError("--part needs --split (the file that assigns claim ids to parts)")


@dataclass
class RunOutcome:
    rows: list[dict]
    metrics: dict
    bad_lines: list[BadLine]
    failures: list[dict] = field(default_factory=list)
    resumed: int = 0
    out_dir: Path | None = None


# ---- choosing and ordering claims ---------------------------------------------------------------


def load_claims(options: RunOptions) -> tuple[list[LabelledClaim], list[BadLine]]:
    """The claims this run covers, in file order: parts of a split, then a sample or the first N.

    Ids are unique (results are matched to claims by id when a run resumes): a line repeating an
    earlier id is one of the bad lines."""
    require_readable_file(options.claims_path, "claims file")
    claims, bad_lines = read_labelled_claims(options.claims_path, unique_ids=True)
    assignment = split_assignment(options.split_file, options.parts) if options.split_file else {}
    if options.parts:
        claims = [c for c in claims if assignment.get(c.id) in options.parts]
    if options.limit and options.sample == "stratified":
        claims = stratified_sample(claims, options.limit, options.seed)
    elif options.limit:
        claims = claims[: options.limit]
    if not claims:
        raise UsageError(f"no claims to verify in {options.claims_path}")
    return claims, bad_lines


def split_assignment(path: Path, parts: tuple[str, ...]) -> dict[str, str]:
    """The assignment (claim id -> part) of the split file ``path``; a :class:`UsageError` naming the file
    when it cannot be read, holds no assignment, or assigns no claim to one of ``parts``."""
    assignment = load_split_ids(path)
    named = sorted({str(part) for part in assignment.values()})
    missing = [part for part in parts if part not in named]
    if missing and not named:
        raise UsageError(f"split file {path} assigns no claim to any part: give one that assigns claim ids to parts")
    if missing:
        raise UsageError(
            f"split file {path} has no part {', '.join(map(repr, missing))}: "
            f"give --part one of {', '.join(map(repr, named))}"
        )
    return assignment


def check_inputs(options: RunOptions, settings: Settings, *, corpora: bool) -> None:
    """Refuse a run whose inputs cannot be used before it creates or locks its directory, so that a refused
    run leaves nothing behind: the claims file can be read, the split file holds an assignment with the parts
    asked for, and (``corpora``: the run opens its graph in this process) each corpus file given can be
    opened. The claims themselves are chosen under the lock (:func:`load_claims`), where ``--resume`` finds
    the selection the run was started on."""
    require_readable_file(options.claims_path, "claims file")
    if options.split_file is not None:
        split_assignment(options.split_file, options.parts)
    if corpora and "local" in settings.sources and settings.corpora:
        from mermaid_verifier.tools.corpora import check_readable

        for path in settings.corpora:
            check_readable(Path(path).expanduser().resolve(), warn=False)  # the graph says it when it opens them


def cluster_key(subject: str) -> str:
    return subject.casefold().removeprefix("the ").strip()


def order_claims(
    claims: list[LabelledClaim], order: Order, seed: int, subject_of: Callable[[str], str] | None = None
) -> list[LabelledClaim]:
    """``file`` keeps the order; ``shuffled`` is a seeded shuffle; ``clustered`` shuffles, then puts
    claims about the same subject next to each other (groups in order of first appearance), so the
    evidence memory sees an entity again while it is fresh. Subjects come from the claim text
    (``subject_of``, the decomposer), never from gold labels or gold evidence."""
    if order == "file":
        return list(claims)
    shuffled = list(claims)
    random.Random(seed).shuffle(shuffled)
    if order == "shuffled":
        return shuffled
    if subject_of is None:
        raise ValueError("clustered order needs subject_of")
    keys = [cluster_key(subject_of(c.claim)) for c in shuffled]
    first_seen: dict[str, int] = {}
    for position, key in enumerate(keys):
        first_seen.setdefault(key, position)
    ranked = sorted(range(len(shuffled)), key=lambda i: (first_seen[keys[i]], i))
    return [shuffled[i] for i in ranked]


@functools.lru_cache(maxsize=1)
def _offline_decomposer():
    from mermaid_verifier.agents.decomposer import SpacyDecomposer

    return SpacyDecomposer()


def spacy_subject(claim: str) -> str:
    """The claim's subject by the offline decomposer: first triplet subject, else first entity, else the claim."""
    decomposition = _offline_decomposer().decompose(claim)
    if decomposition.triplets:
        return decomposition.triplets[0].subject
    return decomposition.entities[0] if decomposition.entities else claim


# ---- running -----------------------------------------------------------------------------------


def make_run_dir(path: Path) -> None:
    """Create the run directory; a :class:`UsageError` naming it when it cannot be made or written to."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the run directory {path}: {exc.strerror or exc}") from None
    if not os.access(path, os.W_OK):
        raise UsageError(f"the run directory is not writable: {path}")


LOCK_FILE = "run.lock"
SELECTION_FILE = "selection.json"
METRICS_FILE = "metrics.json"
# the options that choose a run's claims: how the command line names each, and its value when not given
SELECTION: dict[str, tuple[str, object]] = {
    "claims_path": ("the claims file", None),
    "split_file": ("--split", None),
    "parts": ("--part", ()),
    "limit": ("--limit", None),
    "sample": ("--sample", None),
    "seed": ("--seed", 0),
    "order": ("--order", "file"),
}


@contextlib.contextmanager
def run_lock(out_dir: Path) -> Iterator[None]:
    """Hold the run directory for this process: a second run on it (which would write every claim
    twice) is a :class:`UsageError`. The lock is the kernel's (``flock``): it goes with the process,
    however it ends."""
    path = out_dir / LOCK_FILE
    try:
        handle = path.open("a+")
    except OSError as exc:
        raise UsageError(f"cannot lock the run directory {out_dir}: {exc.strerror or exc}") from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(
                f"another run is writing to {out_dir}: wait for it to end, or choose another --out"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _selection(options: RunOptions) -> dict:
    values = {name: getattr(options, name) for name in SELECTION}
    for name in ("claims_path", "split_file"):
        if values[name] is not None:
            values[name] = str(Path(values[name]).resolve())
    values["parts"] = sorted(values["parts"])
    return values


def selection_for_run(options: RunOptions) -> RunOptions:
    """The options of a resumed run: the claims it was started on, whatever this command line leaves out.

    An option left at its default takes the recorded value (``--resume --out DIR`` alone continues the
    same sample); one given with another value than the run was started with is a :class:`UsageError`,
    as it would mix two selections in one results file."""
    path = options.out_dir / SELECTION_FILE
    if not options.resume or not path.exists():
        return options
    try:
        recorded = orjson.loads(path.read_bytes())
        if not isinstance(recorded, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} is unreadable ({exc}); start a new run with another --out") from None
    current = _selection(options)
    updates, conflicts = {}, []
    for name, (flag, default) in SELECTION.items():
        if name not in recorded or recorded[name] == current[name]:
            continue
        if name != "claims_path" and getattr(options, name) == default:
            updates[name] = recorded[name]
        else:
            conflicts.append(f"{flag} {current[name]!r} (the run has {recorded[name]!r})")
    if conflicts:
        raise UsageError(
            f"--resume continues the run in {options.out_dir} with the claims it was started on, but "
            + "; ".join(conflicts)
            + ": leave those options out, or choose another --out"
        )
    if "split_file" in updates and updates["split_file"] is not None:
        updates["split_file"] = Path(updates["split_file"])
    if "parts" in updates:
        updates["parts"] = tuple(updates["parts"])
    return dataclasses.replace(options, **updates)


def write_selection(options: RunOptions) -> None:
    write_json(options.out_dir / SELECTION_FILE, _selection(options))


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` next to ``path`` and rename, so a reader never sees half a file."""
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    partial.replace(path)


class FailureTracker:
    """Claims whose verification failed go to ``failures.jsonl`` (``--resume`` retries them); several
    failures in a row mean the service itself is down, so the run stops with the last error."""

    def __init__(self, path: Path, limit: int = CONSECUTIVE_FAILURES_TO_STOP):
        self.path, self.limit = path, limit
        self.failures: list[dict] = []
        self.in_a_row = 0

    def succeeded(self) -> None:
        self.in_a_row = 0

    def failed(self, claim: LabelledClaim, error: MermaidError) -> None:
        record = {"id": claim.id, "claim": claim.claim, "error": f"{type(error).__name__}: {error}"}
        self.failures.append(record)
        with self.path.open("ab") as handle:
            handle.write(orjson.dumps(record) + b"\n")
        self.in_a_row += 1
        if self.in_a_row >= self.limit:
            raise type(error)(
                f"{self.limit} claims in a row failed; stopping (last: {error}). "
                f"Decided claims are kept: fix the cause and rerun with --resume"
            ) from error


def graph_opener(settings: Settings, verifier_factory=None) -> Callable:
    """What opens the graph of an in-process run: ``verifier_factory`` (tests), else ``open_verifier``."""
    from mermaid_verifier.graph import open_verifier

    return verifier_factory or (lambda: open_verifier(settings))


async def run(
    options: RunOptions,
    settings: Settings,
    *,
    on_start: Callable[[int, int], None] | None = None,
    on_progress: Callable[[dict], None] | None = None,
    verifier_factory=None,
) -> RunOutcome:
    """Verify the claims of ``options`` not yet in the results log; return all rows and the metrics."""
    # A Ray driver builds no graph (its workers do), so it skips the graph's imports.
    open_graph = None if options.ray is not None else graph_opener(settings, verifier_factory)
    check_inputs(options, settings, corpora=options.ray is None and verifier_factory is None)
    made = _missing_folders(options.out_dir)
    make_run_dir(options.out_dir)
    with run_lock(options.out_dir):
        try:
            options = selection_for_run(options)
            claims, bad_lines = load_claims(options)
        except UsageError:
            _remove_empty_run_dir(options.out_dir, made)  # refused before anything was written: leave nothing
            raise
        claims = order_claims(
            claims, options.order, options.seed, spacy_subject if options.order == "clustered" else None
        )
        return await _run_locked(options, settings, claims, bad_lines, open_graph, on_start, on_progress)


def _missing_folders(path: Path) -> list[Path]:
    """The folders of ``path`` (itself first, then its parents) that do not exist yet."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    return missing


def _remove_empty_run_dir(out_dir: Path, made: list[Path]) -> None:
    """Remove the folders this run made (``made``, innermost first) while they hold nothing but its lock file."""
    if not made or made[0] != out_dir or {p.name for p in out_dir.iterdir()} - {LOCK_FILE}:
        return
    (out_dir / LOCK_FILE).unlink(missing_ok=True)
    for folder in made:
        try:
            folder.rmdir()
        except OSError:  # not empty (another process wrote there meanwhile): keep it and what is above it
            return


async def _run_locked(options, settings, claims, bad_lines, open_graph, on_start, on_progress) -> RunOutcome:
    failures = FailureTracker(options.out_dir / "failures.jsonl")
    with ResultsLog(options.out_dir / "results.jsonl") as log:
        wanted = {c.id for c in claims}
        kept = [row for row in log.open(resume=options.resume) if row["id"] in wanted]
        write_selection(options)  # after the log opened: a refused run leaves the earlier run's record alone
        todo = [c for c in claims if c.id not in {row["id"] for row in kept}]
        if on_start:
            on_start(len(claims), len(kept))
        rows = list(kept)

        def record(row: dict) -> None:
            log.append(row)
            rows.append(row)
            failures.succeeded()
            if on_progress:
                on_progress(row)

        started = time.perf_counter()
        ray_workers = None
        if todo and options.ray is not None:
            ray_workers = await verify_on_ray(settings, todo, options.concurrency, options.ray, record, failures.failed)
        elif todo and open_graph is not None:
            async with open_graph() as verifier:
                await verify_labelled(verifier, todo, options.concurrency, record, failures.failed)
        wall_seconds = time.perf_counter() - started
    metrics = {}
    if rows:
        machine = machine_record()
        metrics = (
            run_metrics(rows)
            | _run_details(
                options, settings, rows, kept, wall_seconds, len(claims), len(failures.failures), len(bad_lines)
            )
            | {
                "machine": machine,
                "machines": machines_of_run(
                    earlier_machines(options), len(kept), len(rows) - len(kept), machine, ray_workers
                ),
            }
        )
        write_outputs(options.out_dir, metrics, rows)
    return RunOutcome(
        rows=rows,
        metrics=metrics,
        bad_lines=bad_lines,
        failures=failures.failures,
        resumed=len(kept),
        out_dir=options.out_dir,
    )


def _run_details(
    options: RunOptions,
    settings: Settings,
    rows: list[dict],
    kept: list[dict],
    wall_seconds: float,
    claims: int,
    failed: int,
    bad_lines: int,
) -> dict:
    """What was run, and the throughput of this invocation only (resumed rows were decided by an earlier one)."""
    details: dict = {
        "run": {
            "claims_file": str(options.claims_path),
            "claims": claims,
            "resumed_rows": len(kept),
            "failed": failed,
            "bad_lines": bad_lines,
            "memory": settings.use_memory,
            "options": {k: str(v) if isinstance(v, Path) else v for k, v in dataclasses.asdict(options).items()},
        }
    }
    new_rows = len(rows) - len(kept)
    if new_rows:
        details |= {"wall_seconds": wall_seconds, "throughput_claims_per_second": new_rows / wall_seconds}
    return details


def earlier_machines(options: RunOptions) -> list[dict]:
    """The ``machines`` history of the ``metrics.json`` a resumed run finds (empty for a new run, or when
    that file is missing, unreadable or written before machines were recorded)."""
    path = options.out_dir / METRICS_FILE
    if not options.resume or not path.exists():
        return []
    try:
        history = orjson.loads(path.read_bytes()).get("machines")
    except (OSError, ValueError, AttributeError):
        return []
    if not isinstance(history, list):
        return []
    return [entry for entry in history if isinstance(entry, dict) and isinstance(entry.get("rows"), int)]


def machines_of_run(
    earlier: list[dict], kept: int, decided: int, machine: dict, ray_workers: list[dict] | None = None
) -> list[dict]:
    """Which machine decided how many of the run's rows, oldest first: ``{"rows": n, "machine": record}``,
    with ``"ray_workers"`` (the machines the Ray workers started on) for rows decided on Ray.

    ``earlier`` is the history of the metrics a resumed run finds; rows kept beyond what it accounts for
    (decided by an invocation interrupted before it wrote metrics, or before machines were recorded)
    get an entry whose ``machine`` is None: not recorded. This writing's machine comes last, even when
    it decided no row. Consecutive writings on the same machine share one entry, so a run resumed on
    another CPU kind shows two (or more) entries."""
    history = [dict(entry) for entry in earlier]
    unaccounted = kept - sum(entry["rows"] for entry in history)
    if unaccounted > 0:
        history.append({"rows": unaccounted, "machine": None})
    entry: dict = {"rows": decided, "machine": machine}
    if ray_workers is not None:
        entry["ray_workers"] = ray_workers
    last = history[-1] if history else None
    if last is not None and {k: v for k, v in last.items() if k != "rows"} == {
        k: v for k, v in entry.items() if k != "rows"
    }:
        last["rows"] += decided
    else:
        history.append(entry)
    return history


def write_outputs(out_dir: Path, metrics: dict, rows: list[dict]) -> None:
    """``metrics.json`` (written whole, then renamed) and ``report.html``."""
    from mermaid_verifier.evaluation.report import write_report

    write_json(out_dir / METRICS_FILE, metrics)
    write_report(out_dir / "report.html", metrics, rows)


def summary_rows(metrics: dict) -> list[tuple[str, str]]:
    """(name, value) pairs for the end-of-run table."""

    def fmt(value, spec=".3f"):
        return "n/a" if value is None else format(value, spec)

    per_class = metrics["per_class"]
    return [
        ("claims", str(metrics["claims"])),
        ("accuracy", fmt(metrics["accuracy"])),
        ("macro-F1", fmt(metrics["macro_f1"])),
        *[(f"F1 {label}", fmt(per_class[label]["f1"])) for label in per_class],
        ("FEVER score", fmt(metrics.get("fever_score"))),
        ("coverage", fmt(metrics["coverage"])),
        ("selective accuracy", fmt(metrics.get("selective_accuracy"))),
        ("AURC", fmt(metrics["aurc"])),
        ("ECE", fmt(metrics["ece"])),
        ("tool calls / claim", fmt(metrics["tool_calls"]["mean"], ".2f")),
        ("memory hit rate", fmt(metrics["memory_hit_rate"])),
        ("latency p50 / p95 (s)", f"{metrics['latency']['p50']:.2f} / {metrics['latency']['p95']:.2f}"),
        ("throughput (claims/s)", fmt(metrics.get("throughput_claims_per_second"), ".2f")),
    ]
