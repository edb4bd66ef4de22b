"""Evidence-memory recall latency on a large store (the default DiskCacheStore).

    python bench/memory_recall.py [--items 100000] [--queries 2000]

Fills a fresh store with synthetic records (each about one of ``items / 5`` entities, so an entity
has ~5 items), then times ``EvidenceMemory.recall`` for random claims of 1–3 entities, each recall
also writing back the access counts of what it returned. Prints median and p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import tempfile
import time

from mermaid_verifier.memory import EvidenceMemory, MemoryRecord
from mermaid_verifier.store import DiskCacheStore


def synthetic(items: int, rng: random.Random) -> list[MemoryRecord]:
    entities = max(items // 5, 1)
    now = time.time()
    return [MemoryRecord(id=f"synthetic:{i}", title=f"Entity {i % entities}", text=f"Entity {i % entities} fact number {i}.",
                         source="local-corpus", entities=[f"entity {i % entities}"], retrieved_at=now - rng.random() * 90 * 86400,
                         veracity=rng.uniform(0.3, 0.95), uncertainty=0.5) for i in range(items)]


async def run(items: int, queries: int, seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="mermaid-recall-") as directory, DiskCacheStore(directory) as store:
        memory = EvidenceMemory(store)
        started = time.perf_counter()
        await memory.import_records(synthetic(items, rng))
        print(f"filled {items} items in {time.perf_counter() - started:.1f}s")
        entities = max(items // 5, 1)
        latencies = []
        for _ in range(queries):
            names = [f"Entity {rng.randrange(entities)}" for _ in range(rng.randint(1, 3))]
            started = time.perf_counter()
            result = await memory.recall(names, claim=" ".join(names) + " fact")
            latencies.append((time.perf_counter() - started) * 1000)
            assert result.candidates > 0
        latencies.sort()
        p95 = latencies[int(0.95 * len(latencies)) - 1]
        print(f"recall over {items} items, {queries} queries: median {statistics.median(latencies):.2f} ms, "
              f"p95 {p95:.2f} ms, max {latencies[-1]:.2f} ms ({platform.machine()}, {os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(run(args.items, args.queries, args.seed))


if __name__ == "__main__":
    main()
