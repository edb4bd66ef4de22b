"""The default memory store: LangGraph's SqliteStore in one file, async without blocking the loop,
shared by processes on one machine without losing writes."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import sqlite3
import threading

import pytest

from mermaid_verifier.memory.store import STORE_FILE, LocalStore, open_local_store


def test_data_persists_across_instances_as_json(tmp_path):
    with open_local_store(tmp_path) as store:
        store.put(("mermaid", "items"), "a", {"text": "Mount Everest", "score": 0.9, "tags": ["x"]})
    with open_local_store(tmp_path) as store:
        assert store.get(("mermaid", "items"), "a").value == {"text": "Mount Everest", "score": 0.9, "tags": ["x"]}
    raw = sqlite3.connect(tmp_path / STORE_FILE).execute("select value from store").fetchone()[0]
    assert '"Mount Everest"' in (raw if isinstance(raw, str) else raw.decode())  # JSON text, not a pickle


def test_a_value_that_is_not_json_is_refused(tmp_path):
    with open_local_store(tmp_path) as store, pytest.raises(TypeError):
        store.put(("mermaid", "items"), "a", {"when": object()})


async def test_async_operations_run_on_a_worker_thread(tmp_path):
    with open_local_store(tmp_path) as store:
        seen: list[str] = []
        original = LocalStore.batch

        def spy(self, ops):
            seen.append(threading.current_thread().name)
            return original(self, ops)

        LocalStore.batch = spy
        try:
            await store.aput(("mermaid", "items"), "a", {"n": 1})
            assert (await store.aget(("mermaid", "items"), "a")).value == {"n": 1}
            assert [item.key for item in await store.asearch(("mermaid",))] == ["a"]
        finally:
            LocalStore.batch = original
    assert seen and threading.main_thread().name not in seen


def test_two_event_loops_can_use_one_store(tmp_path):
    """Unlike AsyncSqliteStore, the store is not tied to the loop that opened it."""
    with open_local_store(tmp_path) as store:
        asyncio.run(store.aput(("mermaid", "items"), "a", {"n": 1}))
        assert asyncio.run(store.aget(("mermaid", "items"), "a")).value == {"n": 1}


def test_an_earlier_on_disk_format_is_reported_not_read(tmp_path, caplog):
    (tmp_path / "cache.db").write_bytes(b"old")
    with caplog.at_level(logging.WARNING), open_local_store(tmp_path) as store:
        assert store.search(("mermaid",)) == []
    assert "earlier format (cache.db)" in caplog.text


def _worker(directory: str, worker: int, count: int) -> None:
    with open_local_store(directory) as store:
        for i in range(count):
            store.put(("w", str(worker)), f"k{i}", {"worker": worker, "i": i})


def test_concurrent_writers_in_four_processes_lose_nothing(tmp_path):
    workers, count = 4, 150
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_worker, args=(str(tmp_path), w, count)) for w in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=240)
    assert [p.exitcode for p in processes] == [0] * workers
    with open_local_store(tmp_path) as store:
        for w in range(workers):
            items = store.search(("w", str(w)), limit=count + 1)
            assert sorted(i.value["i"] for i in items) == list(range(count))
        assert len(store.list_namespaces(prefix=("w",))) == workers


def test_a_memory_url_that_is_not_postgresql_is_a_usage_error():
    from mermaid_verifier.config import Settings
    from mermaid_verifier.errors import ConfigError

    with pytest.raises(ConfigError, match="MERMAID_MEMORY_URL must be a PostgreSQL URL"):
        Settings.from_env({"MERMAID_MEMORY_URL": "mysql://db/memory"})
