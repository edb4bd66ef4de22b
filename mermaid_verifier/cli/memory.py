"""``mermaid-verifier memory …``: inspect, move and maintain the evidence memory."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from mermaid_verifier.cli.options import (
    CacheDirOpt,
    CorpusOpt,
    DebugOpt,
    SettingsOptions,
    YesOpt,
    confirm,
    guarded,
    stderr,
    stdout,
)
from mermaid_verifier.cli.render import memory_table, revalidation_table
from mermaid_verifier.errors import UsageError

memory_app = typer.Typer(help="Inspect and maintain the evidence memory.", no_args_is_help=True)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a JSON array instead of a table.")]


@contextlib.asynccontextmanager
async def opened_memory(cache_dir: Path | None, **veracity_overrides) -> AsyncIterator:
    from mermaid_verifier.memory.evidence import EvidenceMemory
    from mermaid_verifier.memory.store import open_store
    from mermaid_verifier.weighing.scoring import VeracityConfig

    settings = SettingsOptions(cache_dir=cache_dir).settings()
    opened = await asyncio.to_thread(open_store, settings.memory_dir, settings.memory_url)
    overrides = {k: v for k, v in veracity_overrides.items() if v is not None}
    try:
        yield EvidenceMemory(opened.store, veracity=VeracityConfig(**overrides)), settings
    finally:
        await asyncio.to_thread(opened.close)


@memory_app.command("stats")
def stats_command(cache_dir: CacheDirOpt = None, debug: DebugOpt = False) -> None:
    """How many items, entities and sources the memory holds, and its recall threshold τ."""

    async def body():
        async with opened_memory(cache_dir) as (memory, _):
            print(json.dumps(await memory.summary(), indent=2))

    guarded(debug, lambda: asyncio.run(body()))


@memory_app.command("show")
def show_command(entity: str, as_json: JsonOpt = False, cache_dir: CacheDirOpt = None, debug: DebugOpt = False) -> None:
    """Every item stored under an entity (or one of its aliases), with its veracity and history."""

    async def body():
        async with opened_memory(cache_dir) as (memory, _):
            records = await memory.show(entity)
        if as_json:  # one JSON array, empty when nothing is stored
            print(json.dumps([record.model_dump(mode="json") for record in records]))
            return
        stdout.print(memory_table(entity, records) if records else f"nothing stored for {entity!r}")

    guarded(debug, lambda: asyncio.run(body()))


def write_lines(path: Path, lines: list[str]) -> None:
    """Write ``lines`` next to ``path`` and rename; a :class:`UsageError` naming ``path`` when it cannot be written."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def read_records(path: Path) -> list:
    """The memory records of a JSONL export; a :class:`UsageError` naming the first line that is not one."""
    from mermaid_verifier.evaluation.datasets import require_readable_file
    from mermaid_verifier.memory.evidence import MemoryRecord

    records = []
    for number, line in enumerate(require_readable_file(path, "file to import").read_bytes().splitlines(), 1):
        if line.strip():
            try:
                records.append(MemoryRecord.model_validate_json(line.decode("utf-8")))
            except UnicodeDecodeError:
                raise UsageError(f"{path}:{number}: not UTF-8") from None
            except ValidationError as exc:
                raise UsageError(f"{path}:{number}: not a memory record ({exc.error_count()} problems)") from exc
    return records


@memory_app.command("export")
def export_command(path: Path, cache_dir: CacheDirOpt = None, debug: DebugOpt = False) -> None:
    """Write every item as one JSON line (the format `memory import` reads)."""

    async def body():
        async with opened_memory(cache_dir) as (memory, _):
            records = await memory.all_records()
        write_lines(path, [r.model_dump_json() for r in records])
        print(f"exported {len(records)} items to {path}")

    guarded(debug, lambda: asyncio.run(body()))


@memory_app.command("import")
def import_command(path: Path, cache_dir: CacheDirOpt = None, debug: DebugOpt = False) -> None:
    """Add items from a JSONL export (items with the same id are replaced, and the count of those is reported)."""

    async def body():
        records = read_records(path)
        async with opened_memory(cache_dir) as (memory, _):
            imported, replaced = await memory.import_records(records)
            note = f" ({replaced} replaced the item with the same id already held)" if replaced else ""
            print(f"imported {imported} items from {path}{note}")

    guarded(debug, lambda: asyncio.run(body()))


@memory_app.command("clear")
def clear_command(yes: YesOpt = False, cache_dir: CacheDirOpt = None, debug: DebugOpt = False) -> None:
    """Delete everything in the evidence memory."""

    async def body():
        async with opened_memory(cache_dir) as (memory, settings):
            if not confirm(f"delete the evidence memory in {settings.memory_dir}", yes):
                stderr.print("nothing deleted")
                raise typer.Exit(1)
            print(f"removed {await memory.clear()} items")

    guarded(debug, lambda: asyncio.run(body()))


@memory_app.command("recover")
def recover_command(cache_dir: CacheDirOpt = None, debug: DebugOpt = False) -> None:
    """Move a damaged local memory store aside (nothing is deleted); the next run starts an empty one."""

    def body():
        from mermaid_verifier.memory.store import recover_local_store

        settings = SettingsOptions(cache_dir=cache_dir).settings()
        if settings.memory_url:
            raise UsageError("the memory is in a database (MERMAID_MEMORY_URL); recover works on the local store only")
        moved = recover_local_store(settings.memory_dir, time.strftime("%Y%m%d-%H%M%S"))
        if not moved:
            stderr.print(f"no memory store in {settings.memory_dir}: nothing to move", highlight=False)
            return
        for path in moved:
            print(f"moved aside: {path}")
        print("the next run starts an empty evidence memory")

    guarded(debug, body)


@memory_app.command("revalidate")
def revalidate_command(
    top_k: Annotated[
        int, typer.Option("--top-k", min=1, help="How many items to re-check (highest priority first).")
    ] = 20,
    alpha: Annotated[float | None, typer.Option(min=0, max=1, help="Weight of the old veracity (default 0.7).")] = None,
    lambda_age: Annotated[
        float | None, typer.Option("--lambda-age", help="Priority weight of age in days (default 1.0).")
    ] = None,
    lambda_access: Annotated[
        float | None, typer.Option("--lambda-access", help="Priority weight of access count (default 0.5).")
    ] = None,
    corpus: CorpusOpt = None,
    as_json: JsonOpt = False,
    cache_dir: CacheDirOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Re-check the K most urgent items against their sources and update their veracity; remove
    the remembered lookups whose time to live has passed and fold quiet writers' statistics into one."""

    async def body():
        from mermaid_verifier.memory.upkeep import revalidate
        from mermaid_verifier.reader.stance import StanceModel
        from mermaid_verifier.tools.corpora import resolve_corpora
        from mermaid_verifier.tools.toolbox import Toolbox, corpus_server

        settings = SettingsOptions(corpus=corpus, cache_dir=cache_dir).settings()
        toolbox = Toolbox(
            [corpus_server(resolve_corpora(settings.corpora, settings.cache_dir), settings.index_cache_dir)],
            settings.tool_timeout_s,
        )
        async with opened_memory(cache_dir, alpha=alpha, lambda_age=lambda_age, lambda_access=lambda_access) as (
            memory,
            _,
        ):
            async with toolbox:
                report = await revalidate(memory, toolbox, StanceModel(settings.stance_model_dir), top_k)
            pruned = await memory.prune_lookups()
            folded = await memory.compact_stats()
        if as_json:  # stdout holds one JSON array of the re-checks, empty when nothing was due
            print(json.dumps([row.model_dump(mode="json") for row in report]))
            if pruned:
                stderr.print(f"removed {pruned} expired lookup(s)")
            if folded:
                stderr.print(f"folded the statistics of {folded} quiet writer(s) into one record")
            return
        stdout.print(revalidation_table(report, pruned, folded))

    guarded(debug, lambda: asyncio.run(body()))
