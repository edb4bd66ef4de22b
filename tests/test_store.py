"""DiskCacheStore: the same behaviour as LangGraph's InMemoryStore, plus persistence, JSON on disk,
TTL, lock timeouts, crash recovery and multi-process safety."""

from __future__ import annotations

import json
import multiprocessing
import pickle
import random
import sqlite3
import threading
import time
from datetime import timedelta
from pathlib import Path

import diskcache
import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from mermaid_verifier.memory.store import INDEX_FILENAME, JOURNAL_KEY, DiskCacheStore, StoreDataError, StoreTimeout




@pytest.fixture
def disk_store(tmp_path):
    with DiskCacheStore(tmp_path / "store") as disk_store:
        yield disk_store


def keys(items):
    return [(item.namespace, item.key) for item in items]


# ---------------------------------------------------------------- shared behaviour


def test_put_get_delete(store):
    store.put(("docs", "u1"), "a", {"text": "hello", "n": 1})
    item = store.get(("docs", "u1"), "a")
    assert (item.namespace, item.key, item.value) == (("docs", "u1"), "a", {"text": "hello", "n": 1})
    assert item.created_at.tzinfo is not None and item.updated_at.tzinfo is not None
    store.delete(("docs", "u1"), "a")
    assert store.get(("docs", "u1"), "a") is None
    assert store.get(("nowhere",), "a") is None


def test_same_key_in_different_namespaces(store):
    store.put(("a",), "k", {"v": 1})
    store.put(("a", "b"), "k", {"v": 2})
    store.put(("ab",), "k", {"v": 3})
    assert [store.get(ns, "k").value["v"] for ns in [("a",), ("a", "b"), ("ab",)]] == [1, 2, 3]


def test_put_none_through_batch_deletes(store):
    store.put(("a",), "k", {"v": 1})
    store.batch([PutOp(("a",), "k", None)])
    assert store.get(("a",), "k") is None


def test_update_replaces_value_and_moves_updated_at(store):
    store.put(("a",), "k", {"v": 1})
    first = store.get(("a",), "k")
    time.sleep(0.002)
    store.put(("a",), "k", {"v": 2})
    second = store.get(("a",), "k")
    assert second.value == {"v": 2}
    assert second.updated_at > first.updated_at >= first.created_at


def test_batch_reads_see_the_state_before_its_puts_and_last_put_wins(store):
    results = store.batch([PutOp(("a",), "k", {"v": 1}), GetOp(("a",), "k"),
                           PutOp(("a",), "k", {"v": 2}), SearchOp(("a",))])
    assert results == [None, None, None, []]
    assert store.get(("a",), "k").value == {"v": 2}


def test_search_prefix_matches_whole_labels_in_insertion_order(store):
    store.put(("b",), "k1", {})
    store.put(("a", "x"), "k2", {})
    store.put(("ab",), "k3", {})
    store.put(("b",), "k0", {})
    store.put(("a",), "k4", {})
    assert keys(store.search(())) == [(("b",), "k1"), (("b",), "k0"), (("a", "x"), "k2"),
                                      (("ab",), "k3"), (("a",), "k4")]
    assert keys(store.search(("a",))) == [(("a", "x"), "k2"), (("a",), "k4")]
    assert keys(store.search(("a", "x"))) == [(("a", "x"), "k2")]
    assert store.search(("c",)) == []


def test_update_keeps_search_position_and_reput_after_delete_goes_last(store):
    for k in "abc":
        store.put(("ns",), k, {"k": k})
    store.put(("ns",), "a", {"k": "a2"})
    assert [i.key for i in store.search(("ns",))] == ["a", "b", "c"]
    store.delete(("ns",), "a")
    store.put(("ns",), "a", {"k": "a3"})
    assert [i.key for i in store.search(("ns",))] == ["b", "c", "a"]


@pytest.mark.parametrize(("filter_", "expected"), [
    ({"color": "red"}, ["1", "3"]),
    ({"color": "red", "size": 2.5}, ["3"]),
    ({"size": {"$gt": 1}}, ["2", "3"]),
    ({"size": {"$gte": 2, "$lt": 3}}, ["2", "3"]),
    ({"size": {"$lte": 1}}, ["1", "4"]),
    ({"color": {"$ne": "red"}}, ["2", "4"]),
    ({"color": {"$eq": "blue"}}, ["2"]),
    ({"meta": {"lang": "en"}}, ["1", "2"]),
    ({"tags": ["x", "y"]}, ["1"]),
    ({"missing": None}, ["1", "2", "3", "4"]),
])
def test_search_filters(store, filter_, expected):
    store.put(("f",), "1", {"color": "red", "size": 1, "meta": {"lang": "en"}, "tags": ["x", "y"]})
    store.put(("f",), "2", {"color": "blue", "size": 2, "meta": {"lang": "en", "v": 1}})
    store.put(("f",), "3", {"color": "red", "size": 2.5, "tags": ["x"]})
    store.put(("f",), "4", {"size": 0})
    assert [i.key for i in store.search(("f",), filter=filter_)] == expected


def test_unknown_filter_operator_raises(store):
    store.put(("f",), "1", {"size": 1})
    with pytest.raises(ValueError, match="Unsupported operator"):
        store.search(("f",), filter={"size": {"$regex": "1"}})


def test_search_limit_and_offset(store):
    for i in range(12):
        store.put(("p", str(i % 3)), f"k{i:02}", {"even": i % 2 == 0, "i": i})
    everything = keys(store.search(("p",), limit=100))
    assert len(everything) == 12
    assert keys(store.search(("p",))) == everything[:10]  # default limit
    assert keys(store.search(("p",), limit=4, offset=3)) == everything[3:7]
    assert keys(store.search(("p",), limit=5, offset=10)) == everything[10:]
    assert store.search(("p",), limit=0) == []
    assert keys(store.search(("p",), limit=-1, offset=0)) == everything[:-1]  # Python slicing, as InMemoryStore
    evens = [i.value["i"] for i in store.search(("p",), filter={"even": True}, limit=2, offset=1)]
    assert evens == [i.value["i"] for i in store.search(("p",), filter={"even": True}, limit=100)][1:3]


def test_query_without_an_index_is_ignored_and_scores_are_none(store):
    store.put(("q",), "1", {"text": "python"})
    store.put(("q",), "2", {"text": "rust"})
    results = store.search(("q",), query="rust programming")
    assert [i.key for i in results] == ["1", "2"]
    assert [i.score for i in results] == [None, None]


def test_list_namespaces(store):
    for ns in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
               ("a", "c", "f"), ("x", "v1"), ("ab", "v1")]:
        store.put(ns, "k", {})
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"),
                                                                     ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a",)) == [("a", "b", "c"), ("a", "b", "d", "e"),
                                                    ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(suffix=("v1",)) == [("ab", "v1"), ("x", "v1")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("*", "e")) == [("a", "b", "d", "e")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("ab",), ("x",)]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d", "e"), ("a", "b", "d", "i")]


def test_invalid_namespace_labels_are_refused(store):
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b",), "k", {})
    with pytest.raises(InvalidNamespaceError):
        store.search(("a.b",))
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph",), "k", {})


async def test_async_variants(store):
    await store.aput(("as", "1"), "k", {"v": 1})
    await store.aput(("as", "2"), "k", {"v": 2})
    assert (await store.aget(("as", "1"), "k")).value == {"v": 1}
    assert [i.value["v"] for i in await store.asearch(("as",), filter={"v": {"$gt": 1}})] == [2]
    assert await store.alist_namespaces(prefix=("as",)) == [("as", "1"), ("as", "2")]
    await store.adelete(("as", "1"), "k")
    assert await store.aget(("as", "1"), "k") is None


def test_random_operations_give_the_same_results_as_inmemorystore(tmp_path):
    rng = random.Random(7)
    memory = InMemoryStore()
    namespaces = [("r",), ("r", "a"), ("r", "b"), ("r", "a", "x"), ("s",)]
    with DiskCacheStore(tmp_path / "store") as disk:
        for _ in range(300):
            ns, key = rng.choice(namespaces), f"k{rng.randrange(8)}"
            value = None if rng.random() < 0.2 else {"n": rng.randrange(5), "tag": rng.choice("xyz")}
            for store in (memory, disk):
                store.batch([PutOp(ns, key, value)])
        queries = [dict(limit=100), dict(limit=3, offset=2), dict(filter={"n": {"$gte": 2}}, limit=100),
                   dict(filter={"tag": "x"}, limit=4, offset=1)]
        for prefix in [(), ("r",), ("r", "a"), ("s",)]:
            for query in queries:
                expected = [(i.namespace, i.key, i.value) for i in memory.search(prefix, **query)]
                assert [(i.namespace, i.key, i.value) for i in disk.search(prefix, **query)] == expected


# ---------------------------------------------------------------- DiskCacheStore only


def test_update_keeps_created_at(disk_store):
    # PostgresStore behaviour; InMemoryStore (langgraph 1.2) resets created_at on every put.
    disk_store.put(("a",), "k", {"v": 1})
    first = disk_store.get(("a",), "k")
    time.sleep(0.002)
    disk_store.put(("a",), "k", {"v": 2})
    second = disk_store.get(("a",), "k")
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at
    assert second.created_at.utcoffset() == timedelta(0)


def test_list_namespaces_omits_namespaces_without_items(disk_store):
    disk_store.put(("a",), "k", {})
    disk_store.get(("never",), "k")
    disk_store.delete(("a",), "k")
    assert disk_store.list_namespaces() == []


def test_data_persists_across_instances(tmp_path):
    with DiskCacheStore(tmp_path) as store:
        store.put(("p", "1"), "b", {"v": 1})
        store.put(("p", "2"), "a", {"v": 2})
        store.put(("p", "1"), "a", {"v": 3})
        created = store.get(("p", "1"), "b").created_at
    with DiskCacheStore(tmp_path) as store:
        assert store.get(("p", "1"), "b").created_at == created
        assert keys(store.search(("p",))) == [(("p", "1"), "b"), (("p", "1"), "a"), (("p", "2"), "a")]
        assert store.list_namespaces() == [("p", "1"), ("p", "2")]


def test_records_are_json_on_disk_never_pickle(tmp_path):
    with DiskCacheStore(tmp_path) as store:
        store.put(("j", "1"), "small", {"text": "héllo", "n": [1, 2.5, None, True]})
        store.put(("j", "2"), "large", {"text": "x" * 40_000})  # above diskcache's 32 KiB: a .val file
    databases = [tmp_path / "cache.db", tmp_path / INDEX_FILENAME]
    for database in databases:
        con = sqlite3.connect(database)
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for row in con.execute(f"SELECT * FROM {table}"):
                for cell in row:
                    assert not (isinstance(cell, bytes) and cell.startswith(b"\x80")), (table, row)
                    assert not isinstance(cell, bytes), (database.name, table, row)  # all text or numbers
        con.close()
    con = sqlite3.connect(databases[0])
    rows = dict(con.execute("SELECT key, value FROM Cache WHERE key != ?", (JOURNAL_KEY,)).fetchall())
    con.close()
    record = json.loads(rows['[["j", "1"], "small"]'])
    assert record["schema"] == 1 and record["value"]["text"] == "héllo"
    assert {"created_at", "updated_at"} <= record.keys()
    value_files = list(tmp_path.rglob("*.val"))
    assert len(value_files) == 1
    assert json.loads(value_files[0].read_text("utf-8"))["value"]["text"] == "x" * 40_000


class _Exploit:
    def __reduce__(self):
        return (Path.touch, (Path(_Exploit.marker),))


def test_a_planted_pickled_record_is_refused_not_loaded(tmp_path):
    marker = tmp_path / "pwned"
    _Exploit.marker = str(marker)
    with DiskCacheStore(tmp_path / "store") as store:
        store.put(("a",), "k", {"v": 1})
    con = sqlite3.connect(tmp_path / "store" / "cache.db")
    con.execute("UPDATE Cache SET mode = 4, value = ? WHERE key = ?",
                (pickle.dumps(_Exploit()), '[["a"], "k"]'))
    con.commit()
    con.close()
    with DiskCacheStore(tmp_path / "store") as store:
        with pytest.raises(StoreDataError):
            store.get(("a",), "k")
        with pytest.raises(StoreDataError):
            store.search(("a",))
    assert not marker.exists()


def test_a_batch_with_a_non_json_value_writes_nothing(disk_store):
    with pytest.raises(TypeError):
        disk_store.batch([PutOp(("a",), "ok", {"v": 1}), PutOp(("a",), "bad", {"v": object()})])
    assert disk_store.get(("a",), "ok") is None
    assert disk_store.search(("a",)) == []


@pytest.mark.parametrize("locked_file", [INDEX_FILENAME, "cache.db"])
def test_a_held_write_lock_raises_store_timeout(tmp_path, locked_file):
    with DiskCacheStore(tmp_path, timeout=0.2) as store:
        other = sqlite3.connect(tmp_path / locked_file, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            started = time.monotonic()
            with pytest.raises(StoreTimeout) as caught:
                store.put(("a",), "k", {"v": 1})
            assert isinstance(caught.value, diskcache.Timeout)
            assert time.monotonic() - started < 3
            assert store.get(("a",), "k") is None  # reads are not blocked
        finally:
            other.execute("ROLLBACK")
            other.close()
        store.put(("a",), "k", {"v": 1})
        assert store.get(("a",), "k").value == {"v": 1}


@pytest.fixture
def clock(monkeypatch):
    """A fake ``time.time`` (used by the store and by diskcache for expiry)."""
    now = [time.time()]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


def test_ttl_expired_items_are_missing_everywhere(disk_store, clock):
    disk_store.put(("t",), "short", {"v": 1}, ttl=1)  # minutes
    disk_store.put(("t",), "long", {"v": 2}, ttl=10)
    disk_store.put(("u",), "short", {"v": 3}, ttl=1)
    clock[0] += 90
    assert disk_store.sweep_ttl() == 2  # (writes also prune expired index rows as they go)
    assert disk_store.get(("t",), "short") is None
    assert [i.key for i in disk_store.search(("t",))] == ["long"]
    assert disk_store.list_namespaces() == [("t",)]
    disk_store.put(("t",), "short", {"v": 4})  # re-put after expiry: a new item, no TTL
    assert [i.key for i in disk_store.search(("t",))] == ["long", "short"]
    clock[0] += 10_000
    assert [i.key for i in disk_store.search(("t",))] == ["short"]


def test_ttl_is_refreshed_by_reads_unless_asked_not_to(disk_store, clock):
    disk_store.put(("t",), "a", {"v": 1}, ttl=1)
    disk_store.put(("t",), "b", {"v": 2}, ttl=1)
    clock[0] += 40
    assert disk_store.get(("t",), "a") is not None  # refreshes a
    assert disk_store.get(("t",), "b", refresh_ttl=False) is not None
    clock[0] += 40
    assert disk_store.get(("t",), "a", refresh_ttl=False) is not None
    assert disk_store.get(("t",), "b") is None
    assert [i.key for i in disk_store.search(("t",))] == ["a"]  # search refreshes too
    clock[0] += 40
    assert disk_store.get(("t",), "a") is not None


def test_ttl_config_default_ttl(tmp_path, clock):
    with DiskCacheStore(tmp_path, ttl={"default_ttl": 1}) as store:
        store.put(("t",), "a", {"v": 1})
        clock[0] += 61
        assert store.get(("t",), "a") is None


def test_update_runs_read_modify_write(disk_store):
    def bump(value):
        return {"n": (value or {"n": 0})["n"] + 1}

    assert disk_store.update(("c",), "counter", bump).value == {"n": 1}
    assert disk_store.update(("c",), "counter", bump).value == {"n": 2}
    assert disk_store.update(("c",), "counter", lambda value: None) is None
    assert disk_store.get(("c",), "counter") is None


async def test_abatch_runs_in_a_worker_thread(disk_store, monkeypatch):
    threads = []
    batch = disk_store.batch

    def recording_batch(ops):
        threads.append(threading.get_ident())
        return batch(ops)

    monkeypatch.setattr(disk_store, "batch", recording_batch)
    await disk_store.aput(("a",), "k", {"v": 1})
    assert (await disk_store.aupdate(("a",), "k", lambda v: {"v": v["v"] + 1})).value == {"v": 2}
    assert threads and threading.get_ident() not in threads


def test_index_lost_between_commits_is_repaired_from_the_journal(disk_store):
    # A writer that died after the record commit but before the index commit left this behind:
    record = {"schema": 1, "namespace": ["a"], "key": "k", "value": {"v": 1},
              "created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00", "ttl": None}
    disk_store._cache.set('[["a"], "k"]', json.dumps(record))
    disk_store._cache.set(JOURNAL_KEY, json.dumps({"txn": "crashed", "keys": ['[["a"], "k"]']}))
    assert disk_store.search(("a",)) == []
    disk_store.put(("b",), "k", {"v": 2})  # the next writer repairs the index
    assert keys(disk_store.search(())) == [(("a",), "k"), (("b",), "k")]


def test_a_missing_index_is_rebuilt_on_open(tmp_path):
    with DiskCacheStore(tmp_path) as store:
        store.put(("a", "1"), "k", {"v": 1})
        store.put(("a", "2"), "k", {"v": 2})
    for path in tmp_path.glob(INDEX_FILENAME + "*"):
        path.unlink()
    with DiskCacheStore(tmp_path) as store:
        assert sorted(keys(store.search(("a",)))) == [(("a", "1"), "k"), (("a", "2"), "k")]
        assert store.list_namespaces() == [("a", "1"), ("a", "2")]


def _worker(directory: str, worker: int, count: int) -> None:
    with DiskCacheStore(directory, timeout=60) as store:
        for i in range(count):
            store.put(("w", str(worker)), f"k{i}", {"worker": worker, "i": i})
            store.update(("shared",), "counter", lambda value: {"n": (value or {"n": 0})["n"] + 1})


def test_concurrent_writers_in_four_processes_lose_nothing(tmp_path):
    workers, count = 4, 200
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_worker, args=(str(tmp_path), w, count)) for w in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=240)
    assert [p.exitcode for p in processes] == [0] * workers
    with DiskCacheStore(tmp_path) as store:
        assert store.get(("shared",), "counter").value == {"n": workers * count}
        for w in range(workers):
            items = store.search(("w", str(w)), limit=count + 1)
            assert [i.value["i"] for i in items] == list(range(count))
        assert len(store.list_namespaces(prefix=("w",))) == workers
