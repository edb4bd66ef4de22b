"""``DiskCacheStore``: LangGraph's ``BaseStore`` on diskcache, stored as JSON (never pickled).

The evidence memory can sit behind LangGraph's store interface with this class (the default), or a
host app can pass LangGraph's ``InMemoryStore`` / ``PostgresStore`` instead. Semantics follow
``InMemoryStore`` except semantic search: a ``query`` is ignored (there is no vector index) and
every ``SearchItem.score`` is ``None``, which is what ``InMemoryStore`` without an index does.

Layout (two SQLite files in one directory)
    ``cache.db``             diskcache ``Cache``: one record per item, key ``[[*namespace], key]``
                             as JSON text, value the JSON record ``{"schema": 1, "namespace",
                             "key", "value", "created_at", "updated_at", "ttl"}`` (ISO datetimes,
                             ``ttl`` in minutes or null). ``get`` is one primary-key lookup.
    ``store_index.sqlite3``  secondary index, stdlib ``sqlite3``: ``namespaces(id, path)`` with
                             ``path`` = labels each followed by ``"."`` (labels cannot contain
                             ``"."``) under a UNIQUE index, and ``items(seq, ns_id, key,
                             expires_at)`` indexed on ``(ns_id, seq)``. A namespace-prefix search
                             is a range scan ``path >= "a.b." AND path < "a.b/"`` then one indexed
                             walk per matching namespace: O(matches), not O(store).
    Chosen over diskcache tags (one tag per key, no prefix query in the public API) and over
    ``iterkeys()`` (O(n) per search).

No pickle, either way
    A custom ``Disk`` accepts only ``str`` keys and ``str`` values (JSON text the store wrote)
    and refuses to unpickle anything it reads back: a pickled row planted in a shared directory
    raises ``StoreDataError`` instead of running code (diskcache's default ``Disk`` -- and even
    ``JSONDisk``, which falls back to ``pickle.load`` for rows in pickle mode -- would load it;
    CVE-2025-69872). Values must be JSON-serialisable (``InMemoryStore`` keeps any object; this
    store raises ``TypeError`` and writes nothing of that batch). Eviction is off
    (``eviction_policy="none"``): a store must not drop data because it grew.

Writes and consistency
    Every write (put, delete, ``update``, TTL refresh) runs in ``_write()``: ``BEGIN IMMEDIATE`` on
    the index (the cross-process writer lock, always taken first, so there is no lock-order
    deadlock), then ``Cache.transact()`` for the records; a batch is all-or-nothing. The cache
    commits first, the index last. So that a crash between the two commits cannot leave the index
    stale, each write also stores, inside the cache transaction, a journal ``{"txn", "keys"}``
    and, inside the index transaction, the same ``txn`` id. The next writer that finds them
    different re-indexes the journal's keys. An index file that is missing is rebuilt from the
    records on open (``rebuild_index()``; also the tool to call after a power loss, since both
    files use ``synchronous=NORMAL``). Lock waits longer than ``timeout`` raise
    ``StoreTimeout`` (a ``diskcache.Timeout``); nothing retries silently.

Semantics matching ``InMemoryStore``
    ``batch`` answers every read against the state before the batch, then applies its puts
    (one per namespace+key, the last one wins); ``PutOp(value=None)`` deletes. Search order is
    namespace creation order (its first put or delete), then item insertion order (an update
    keeps its place; delete and re-put moves to the end). Filters: exact values, nested dicts,
    lists, ``$eq $ne $gt $gte $lt $lte``. Negative ``limit``/``offset`` slice like Python lists.
    A filter is checked in Python on candidates in that order until ``offset + limit`` match,
    as ``InMemoryStore`` does; ``list_namespaces`` is O(matching namespaces).
    Deliberate differences: an update keeps ``created_at`` (as ``PostgresStore`` does;
    ``InMemoryStore`` resets it) and ``list_namespaces`` lists only namespaces holding live items
    (``InMemoryStore`` also lists namespaces emptied by deletes or touched by a missed ``get``).

TTL (``supports_ttl = True``)
    ``ttl`` is in minutes, as in ``BaseStore``. The record gets diskcache's ``expire=`` and the
    index row an ``expires_at``, so an expired item is missing from get, search and
    list_namespaces at once. Reads refresh the TTL unless ``refresh_ttl=False`` (a refresh is a
    write). diskcache culls expired records as it writes; each write also prunes up to 100
    expired index rows; ``sweep_ttl()`` removes all of them.

``abatch`` runs ``batch`` in a worker thread, so the event loop never blocks on SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import diskcache
from mermaid_verifier.json_disk import JSONTextDisk
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

from mermaid_verifier.errors import MermaidError

SCHEMA_VERSION = 1
INDEX_FILENAME = "store_index.sqlite3"
JOURNAL_KEY = "journal"  # item keys are JSON arrays ("[..."), so this name cannot clash
PRUNE_BATCH = 100
_SEP = "."

_INDEX_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS namespaces (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS items (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    ns_id INTEGER NOT NULL REFERENCES namespaces(id),
    key TEXT NOT NULL,
    expires_at REAL,
    UNIQUE (ns_id, key)
);
CREATE INDEX IF NOT EXISTS items_by_namespace ON items (ns_id, seq);
CREATE INDEX IF NOT EXISTS items_by_expiry ON items (expires_at) WHERE expires_at IS NOT NULL;
"""


class StoreTimeout(MermaidError, diskcache.Timeout):
    """The store's write lock was not free within ``timeout`` seconds."""


class StoreDataError(MermaidError, ValueError):
    """A stored record is not one this store wrote: pickled, not JSON, or an unknown schema."""


class _JSONTextDisk(JSONTextDisk):
    data_error = StoreDataError
    noun = "store record"


class _Connections:
    """One index connection per thread (and per process, so a fork never reuses one)."""

    def __init__(self, path: Path, timeout: float):
        self._path, self._timeout = path, timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[tuple[int, sqlite3.Connection]] = []

    def get(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None or self._local.pid != os.getpid():
            con = sqlite3.connect(self._path, timeout=self._timeout, isolation_level=None,
                                  check_same_thread=False)
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            self._local.con, self._local.pid = con, os.getpid()
            with self._lock:
                self._open.append((os.getpid(), con))
        return con

    def close(self) -> None:
        with self._lock:
            mine = [con for pid, con in self._open if pid == os.getpid()]
            self._open.clear()
        for con in mine:
            con.close()
        self._local = threading.local()


# ---------------------------------------------------------------- encoding


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()


def _cache_key(namespace: tuple[str, ...], key: str) -> str:
    return json.dumps([list(namespace), key])


def _ns_path(namespace: Iterable[str]) -> str:
    return "".join(label + _SEP for label in namespace)


def _ns_tuple(path: str) -> tuple[str, ...]:
    return tuple(path.split(_SEP)[:-1])


def _path_range(labels: Iterable[str]) -> tuple[str, str] | None:
    """``[low, high)`` holding every path that starts with these labels; None means all."""
    low = _ns_path(labels)
    if not low:
        return None
    return low, low[:-1] + chr(ord(_SEP) + 1)


def _literal_head(path: tuple[str, ...]) -> tuple[str, ...]:
    """The labels of a match pattern before its first ``"*"`` wildcard."""
    head = []
    for label in path:
        if label == "*":
            break
        head.append(label)
    return tuple(head)


def _expires_at(ttl: float | None, now: float) -> float | None:
    return None if ttl is None else now + ttl * 60


def _decode(text: Any) -> dict:
    if not isinstance(text, str):
        raise StoreDataError(f"stored record is {type(text).__name__}, not JSON text")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreDataError(f"stored record is not JSON: {exc}") from exc
    if not isinstance(record, dict) or record.get("schema") != SCHEMA_VERSION:
        schema = record.get("schema") if isinstance(record, dict) else None
        raise StoreDataError(f"stored record has schema {schema!r}; this store reads {SCHEMA_VERSION}")
    return record


def _to_item(record: dict, cls: type[Item] = Item) -> Item:
    fields = dict(namespace=tuple(record["namespace"]), key=record["key"], value=record["value"],
                  created_at=datetime.fromisoformat(record["created_at"]),
                  updated_at=datetime.fromisoformat(record["updated_at"]))
    return cls(**fields)


# ---------------------------------------------------------------- filters (as InMemoryStore)


def _matches_filter(value: dict, filter_: Mapping[str, Any]) -> bool:
    return all(_compare(value.get(key), wanted) for key, wanted in filter_.items())


def _compare(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_apply_operator(actual, op, operand) for op, operand in wanted.items())
        return isinstance(actual, dict) and _matches_filter(actual, wanted)
    if isinstance(wanted, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(wanted)
                and all(_compare(a, w) for a, w in zip(actual, wanted)))
    return actual == wanted


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: float(a) > float(b),
    "$gte": lambda a, b: float(a) >= float(b),
    "$lt": lambda a, b: float(a) < float(b),
    "$lte": lambda a, b: float(a) <= float(b),
}


def _apply_operator(actual: Any, operator: str, operand: Any) -> bool:
    if operator not in _OPERATORS:
        raise ValueError(f"Unsupported operator: {operator}")
    return _OPERATORS[operator](actual, operand)


def _does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path))
    else:
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(p == "*" or n == p for n, p in pairs)


def _check_op(op: Op) -> None:
    if not isinstance(op, (GetOp, SearchOp, PutOp, ListNamespacesOp)):
        raise ValueError(f"Unknown operation type: {type(op)}")
    validate_op_namespace(op)


def _check_put_namespace(namespace: tuple[str, ...]) -> None:
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph". Got: {namespace}')
    validate_op_namespace(GetOp(namespace, ""))


# ---------------------------------------------------------------- the store


class DiskCacheStore(BaseStore):
    """A persistent, multi-process-safe ``BaseStore`` in one directory (see the module docstring)."""

    supports_ttl = True

    def __init__(self, directory: Path | str, *, timeout: float = 5.0, ttl: TTLConfig | None = None):
        self.directory = Path(directory)
        self.timeout = timeout
        self.ttl_config = ttl
        self._cache = diskcache.Cache(str(self.directory), disk=_JSONTextDisk, timeout=timeout,
                                      eviction_policy="none")
        self._connections = _Connections(self.directory / INDEX_FILENAME, timeout)
        with self._lock_errors():
            self._connections.get().executescript(_INDEX_SCHEMA)
        if self._meta(self._connections.get(), "txn") is None:
            with self._write():  # a new (or lost) index: recovery rebuilds it from the records
                pass

    def close(self) -> None:
        self._connections.close()
        self._cache.close()

    def __enter__(self) -> DiskCacheStore:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- BaseStore

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            _check_op(op)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        refresh: set[str] = set()
        for op in ops:
            results.append(self._read(op, refresh))
            if isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
        if puts or refresh:
            self._apply(puts, refresh)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- extras

    def update(self, namespace: tuple[str, ...], key: str,
               fn: Callable[[dict | None], Mapping[str, Any] | None]) -> Item | None:
        """Atomically replace the value with ``fn(current value or None)``; None deletes.

        ``fn`` runs while the store's write lock is held (across processes): keep it short and
        free of I/O. The item keeps its TTL. Returns the new item, or None when deleted.
        """
        _check_put_namespace(namespace)
        with self._write() as touched:
            old = self._load(_cache_key(namespace, key))
            value = fn(dict(old["value"]) if old else None)
            ttl = old["ttl"] if old else None
            record = self._put_locked(namespace, key, value, ttl, touched)
        return _to_item(record) if record else None

    async def aupdate(self, namespace: tuple[str, ...], key: str,
                      fn: Callable[[dict | None], Mapping[str, Any] | None]) -> Item | None:
        return await asyncio.to_thread(self.update, namespace, key, fn)

    def sweep_ttl(self) -> int:
        """Remove every expired record and index row now; returns the index rows removed."""
        with self._write():
            removed = self._prune_expired(limit=-1)
            self._cache.expire()
        return removed

    def rebuild_index(self) -> int:
        """Re-derive the index from the records (recovery tool; O(store)). Returns items indexed."""
        with self._write():
            return self._rebuild_locked()

    # -- reads

    def _read(self, op: Op, refresh: set[str]) -> Result:
        if isinstance(op, GetOp):
            return self._get(op, refresh)
        if isinstance(op, SearchOp):
            return self._search(op, refresh)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        return None

    def _load(self, cache_key: str) -> dict | None:
        text = self._cache.get(cache_key)
        return None if text is None else _decode(text)

    def _get(self, op: GetOp, refresh: set[str]) -> Item | None:
        cache_key = _cache_key(op.namespace, op.key)
        record = self._load(cache_key)
        if record is None:
            return None
        if op.refresh_ttl and record["ttl"] is not None:
            refresh.add(cache_key)
        return _to_item(record)

    def _search(self, op: SearchOp, refresh: set[str]) -> list[SearchItem]:
        window = None if min(op.offset, op.limit) < 0 else op.offset + op.limit
        matches: list[dict] = []
        if window != 0:
            with contextlib.closing(self._index_keys(op.namespace_prefix)) as keys:
                for cache_key in keys:
                    record = self._load(cache_key)
                    if record is None or (op.filter and not _matches_filter(record["value"], op.filter)):
                        continue
                    matches.append(record)
                    if len(matches) == window:
                        break
        page = matches[op.offset:op.offset + op.limit]
        if op.refresh_ttl:
            refresh.update(_cache_key(r["namespace"], r["key"]) for r in page if r["ttl"] is not None)
        return [_to_item(record, SearchItem) for record in page]

    def _index_keys(self, prefix: tuple[str, ...]) -> Iterator[str]:
        """Cache keys of live items under ``prefix``: namespace creation order, then insertion."""
        con, now = self._connections.get(), time.time()
        for ns_id, path in self._namespaces(con, _path_range(prefix)):
            namespace = _ns_tuple(path)
            cursor = con.execute("SELECT key FROM items WHERE ns_id = ? AND"
                                 " (expires_at IS NULL OR expires_at > ?) ORDER BY seq", (ns_id, now))
            with contextlib.closing(cursor):
                for (key,) in cursor:
                    yield _cache_key(namespace, key)

    @staticmethod
    def _namespaces(con: sqlite3.Connection, bounds: tuple[str, str] | None,
                    live_only: bool = False) -> list[tuple[int, str]]:
        where, params = ["1"], []
        if bounds:
            where.append("path >= ? AND path < ?")
            params += bounds
        if live_only:
            where.append("EXISTS (SELECT 1 FROM items i WHERE i.ns_id = n.id"
                         " AND (i.expires_at IS NULL OR i.expires_at > ?))")
            params.append(time.time())
        sql = f"SELECT id, path FROM namespaces n WHERE {' AND '.join(where)} ORDER BY id"
        return con.execute(sql, params).fetchall()

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        heads = [_literal_head(c.path) for c in conditions if c.match_type == "prefix"]
        bounds = _path_range(heads[0]) if heads else None
        rows = self._namespaces(self._connections.get(), bounds, live_only=True)
        found = [_ns_tuple(path) for _, path in rows]
        found = [ns for ns in found if all(_does_match(c, ns) for c in conditions)]
        if op.max_depth is not None:
            found = [ns[:op.max_depth] for ns in found]
        return sorted(set(found))[op.offset:op.offset + op.limit]

    # -- writes

    @contextlib.contextmanager
    def _write(self) -> Iterator[list[str]]:
        """Hold both write locks; yields the list of cache keys the caller touched (journal)."""
        con = self._connections.get()
        with self._lock_errors():
            con.execute("BEGIN IMMEDIATE")
        try:
            with self._lock_errors(), self._cache.transact():
                touched = self._recover(con)
                yield touched
                self._prune_expired(limit=PRUNE_BATCH)
                txn = uuid.uuid4().hex
                self._cache.set(JOURNAL_KEY, json.dumps({"txn": txn, "keys": touched}))
                con.execute("INSERT OR REPLACE INTO meta VALUES ('txn', ?)", (txn,))
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")

    @contextlib.contextmanager
    def _lock_errors(self) -> Iterator[None]:
        message = f"store at {self.directory} stayed locked for more than {self.timeout}s"
        try:
            yield
        except StoreTimeout:
            raise
        except diskcache.Timeout as exc:
            raise StoreTimeout(message) from exc
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreTimeout(message) from exc
            raise

    def _apply(self, puts: dict[tuple[tuple[str, ...], str], PutOp], refresh: set[str]) -> None:
        with self._write() as touched:
            for (namespace, key), op in puts.items():
                self._put_locked(namespace, key, op.value, op.ttl, touched)
            for cache_key in refresh - {_cache_key(ns, k) for ns, k in puts}:
                self._refresh_locked(cache_key)

    def _put_locked(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None,
                    ttl: float | None, touched: list[str]) -> dict | None:
        cache_key = _cache_key(namespace, key)
        touched.append(cache_key)
        old = self._load(cache_key)
        if value is None:
            self._cache.delete(cache_key)
            self._unindex(namespace, key)
            return None
        stamp = _now_iso()
        record = {"schema": SCHEMA_VERSION, "namespace": list(namespace), "key": key,
                  "value": dict(value), "created_at": old["created_at"] if old else stamp,
                  "updated_at": stamp, "ttl": ttl}
        self._cache.set(cache_key, json.dumps(record), expire=None if ttl is None else ttl * 60)
        self._index(namespace, key, _expires_at(ttl, time.time()), new=old is None)
        return record

    def _refresh_locked(self, cache_key: str) -> None:
        record = self._load(cache_key)
        if record is None or record["ttl"] is None:
            return
        self._cache.touch(cache_key, expire=record["ttl"] * 60)
        namespace = tuple(record["namespace"])
        self._index(namespace, record["key"], _expires_at(record["ttl"], time.time()), new=False)

    def _namespace_id(self, namespace: tuple[str, ...]) -> int:
        con, path = self._connections.get(), _ns_path(namespace)
        con.execute("INSERT OR IGNORE INTO namespaces (path) VALUES (?)", (path,))
        return con.execute("SELECT id FROM namespaces WHERE path = ?", (path,)).fetchone()[0]

    def _index(self, namespace: tuple[str, ...], key: str, expires_at: float | None, *, new: bool) -> None:
        """Index an item; a ``new`` one (first put, or re-put after delete/expiry) goes last."""
        con, ns_id = self._connections.get(), self._namespace_id(namespace)
        if new:
            con.execute("DELETE FROM items WHERE ns_id = ? AND key = ?", (ns_id, key))
        con.execute("INSERT INTO items (ns_id, key, expires_at) VALUES (?, ?, ?) ON CONFLICT"
                    " (ns_id, key) DO UPDATE SET expires_at = excluded.expires_at",
                    (ns_id, key, expires_at))

    def _unindex(self, namespace: tuple[str, ...], key: str) -> None:
        # Registers the namespace even when it holds nothing, as InMemoryStore does on a delete,
        # so search order (namespace creation order) stays the same as InMemoryStore's.
        ns_id = self._namespace_id(namespace)
        self._connections.get().execute("DELETE FROM items WHERE ns_id = ? AND key = ?", (ns_id, key))

    def _prune_expired(self, limit: int) -> int:
        return self._connections.get().execute(
            "DELETE FROM items WHERE seq IN (SELECT seq FROM items WHERE expires_at <= ? LIMIT ?)",
            (time.time(), limit)).rowcount

    # -- recovery

    @staticmethod
    def _meta(con: sqlite3.Connection, key: str) -> str | None:
        row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _recover(self, con: sqlite3.Connection) -> list[str]:
        """Bring the index in line with the records; returns the keys re-indexed (re-journaled)."""
        journal_text = self._cache.get(JOURNAL_KEY)
        journal = json.loads(journal_text) if journal_text else None
        if self._meta(con, "txn") is None:
            if len(self._cache):
                self._rebuild_locked()
            return []
        if journal and journal["txn"] != self._meta(con, "txn"):
            for cache_key in journal["keys"]:
                self._reindex(cache_key)
            return list(journal["keys"])
        return []

    def _reindex(self, cache_key: str) -> None:
        namespace, key = json.loads(cache_key)
        text, expires_at = self._cache.get(cache_key, expire_time=True)
        if text is None:
            self._unindex(tuple(namespace), key)
        else:
            _decode(text)  # refuse to index a record this store cannot read
            self._index(tuple(namespace), key, expires_at, new=False)

    def _rebuild_locked(self) -> int:
        self._connections.get().execute("DELETE FROM items")
        count = 0
        for cache_key in self._cache.iterkeys():
            if cache_key != JOURNAL_KEY and self._load(cache_key) is not None:
                self._reindex(cache_key)
                count += 1
        return count
