"""Processes writing one evidence memory at once lose nothing: every item, every name it is known by,
and its share of the veracity statistics (the default SQLite store; tests/test_postgres_memory.py runs
the same writers against PostgreSQL)."""

from __future__ import annotations

import asyncio
import multiprocessing

from mermaid_verifier.memory.evidence import EvidenceMemory
from mermaid_verifier.memory.store import open_local_store
from mermaid_verifier.models import Evidence

WORKERS, ITEMS_EACH = 4, 12


def item(worker: int, number: int) -> Evidence:
    # every worker writes pages known by the name "House" (their titles without the bracket): found
    # through that alias only, as their text names nothing the writing claim names
    title = f"House (series {worker}-{number})"
    return Evidence(
        id=f"w{worker}:{number}",
        source="local-corpus",
        origin="corpus:shared",
        title=title,
        text=f"A medical drama, season {worker}-{number}.",
        stance_probabilities={"supports": 0.9, "refutes": 0.05, "neutral": 0.05},
    )


async def write_items(memory: EvidenceMemory, worker: int) -> None:
    for number in range(ITEMS_EACH):
        await memory.remember(["Hugh Laurie"], [item(worker, number)])


def local_worker(directory: str, worker: int) -> None:
    with open_local_store(directory) as store:
        asyncio.run(write_items(EvidenceMemory(store), worker))


def run_writers(target, argument: str) -> None:
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=target, args=(argument, w)) for w in range(WORKERS)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=240)
    assert [p.exitcode for p in processes] == [0] * WORKERS


async def check_nothing_lost(memory: EvidenceMemory) -> None:
    expected = {f"w{w}:{n}" for w in range(WORKERS) for n in range(ITEMS_EACH)}
    recalled = await memory.recall(["House"], "House is a medical drama", limit=1000, origins={"corpus:shared"})
    assert {e.id for e in recalled.items} == expected
    count, total, _ = await memory._veracity_sums()
    assert count == len(expected)
    assert abs(total - sum(r.veracity for r in await memory.all_records())) < 1e-6


def test_four_processes_writing_one_local_memory_lose_nothing(tmp_path):
    run_writers(local_worker, str(tmp_path))
    with open_local_store(tmp_path) as store:
        asyncio.run(check_nothing_lost(EvidenceMemory(store)))
