"""Evidence-memory recall latency on a large store (the default SQLite store), at one or more sizes.

    python -m bench.memory_recall [--items 10000 100000 1000000] [--queries 2000]

For each size, fills a fresh store with synthetic records (each about one of ``items / 5`` entities,
so an entity has ~5 items) through the bulk path, ``EvidenceMemory.import_records`` (batched
``abatch`` writes, generated and written ``--fill-chunk`` records at a time so memory stays flat),
then times ``EvidenceMemory.recall`` for random claims of 1–3 entities, each recall also writing
back the access counts of what it returned. Prints fill time and median / p95 in milliseconds per
size; before each size after the first, a linear estimate of its fill time from the last one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from mermaid_verifier.memory.evidence import EvidenceMemory, MemoryRecord
from mermaid_verifier.memory.store import open_local_store


def synthetic(items: int, rng: random.Random, chunk: int) -> Iterator[list[MemoryRecord]]:
    """The records in chunks of ``chunk`` (same records, same order, whatever the chunk size)."""
    entities = max(items // 5, 1)
    now = time.time()
    for start in range(0, items, chunk):
        yield [
            MemoryRecord(
                id=f"synthetic:{i}",
                title=f"Entity {i % entities}",
                text=f"Entity {i % entities} fact number {i}.",
                source="local-corpus",
                entities=[f"entity {i % entities}"],
                retrieved_at=now - rng.random() * 90 * 86400,
                veracity=rng.uniform(0.3, 0.95),
                uncertainty=0.5,
            )
            for i in range(start, min(start + chunk, items))
        ]


def directory_mib(path: str) -> float:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file()) / 2**20


async def run(items: int, queries: int, seed: int, fill_chunk: int) -> dict:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="mermaid-recall-") as directory, open_local_store(directory) as store:
        memory = EvidenceMemory(store)
        started = time.perf_counter()
        filled, next_report = 0, items // 10
        for records in synthetic(items, rng, fill_chunk):
            await memory.import_records(records)
            filled += len(records)
            if items >= 200_000 and filled >= next_report and filled < items:
                elapsed = time.perf_counter() - started
                print(f"  … {filled:,} items in {elapsed:.0f}s ({filled / elapsed:,.0f} items/s)", flush=True)
                next_report += items // 10
        fill_s = time.perf_counter() - started
        store_mib = directory_mib(directory)
        print(
            f"filled {items} items in {fill_s:.1f}s ({items / fill_s:,.0f} items/s, store {store_mib:,.0f} MiB)",
            flush=True,
        )
        entities = max(items // 5, 1)
        latencies = []
        for _ in range(queries):
            names = [f"Entity {rng.randrange(entities)}" for _ in range(rng.randint(1, 3))]
            started = time.perf_counter()
            result = await memory.recall(names, claim=" ".join(names) + " fact")
            latencies.append((time.perf_counter() - started) * 1000)
            assert result.candidates > 0
        latencies.sort()
        p95 = latencies[max(int(0.95 * len(latencies)) - 1, 0)]
        median = statistics.median(latencies)
        print(
            f"recall over {items} items, {queries} queries: median {median:.2f} ms, "
            f"p95 {p95:.2f} ms, max {latencies[-1]:.2f} ms",
            flush=True,
        )
        return {
            "items": items,
            "fill_s": fill_s,
            "store_mib": store_mib,
            "median_ms": median,
            "p95_ms": p95,
            "max_ms": latencies[-1],
        }


async def run_all(sizes: list[int], queries: int, seed: int, fill_chunk: int) -> list[dict]:
    rows: list[dict] = []
    for items in sizes:
        if rows:
            last = rows[-1]
            rate = last["items"] / last["fill_s"]
            estimate = items / rate
            print(
                f"\n{items:,} items: estimated fill {estimate / 60:.1f} min ({estimate:.0f}s), store ~"
                f"{last['store_mib'] / last['items'] * items:,.0f} MiB (linear from {last['items']:,} items at "
                f"{rate:,.0f} items/s; SQLite inserts may slow as the store grows)",
                flush=True,
            )
        rows.append(await run(items, queries, seed, fill_chunk))
    return rows


def machine() -> dict:
    """This machine's record with the platform, the load and the date the figures were measured at."""
    from mermaid_verifier.reader.model_check import measurement_record

    return measurement_record()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--fill-chunk", type=int, default=10_000, help="records generated and handed to import_records at a time"
    )
    args = parser.parse_args()
    if args.queries < 1 or min(args.items) < 1:
        parser.error("--items and --queries must be at least 1")
    print(f"machine: {json.dumps(machine())}", flush=True)
    rows = asyncio.run(run_all(args.items, args.queries, args.seed, args.fill_chunk))
    if len(rows) > 1:
        print(
            "\n| items | fill s | items/s | store MiB | recall median ms | p95 ms | max ms |\n|---|---|---|---|---|---|---|"
        )
        for r in rows:
            print(
                f"| {r['items']:,} | {r['fill_s']:.1f} | {r['items'] / r['fill_s']:,.0f} | {r['store_mib']:,.0f} | "
                f"{r['median_ms']:.2f} | {r['p95_ms']:.2f} | {r['max_ms']:.2f} |"
            )


if __name__ == "__main__":
    main()
