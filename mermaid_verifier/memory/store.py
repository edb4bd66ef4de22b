"""Where the evidence memory lives: LangGraph's own ``SqliteStore`` by default, any ``BaseStore`` on request.

``open_local_store(directory)`` opens ``directory/memory.sqlite`` with LangGraph's ``SqliteStore`` (values
stored as JSON, one file). SQLite's write-ahead log lets several processes on one machine read while
one writes, and a write that meets another's lock waits up to ``LOCK_WAIT_S`` instead of failing.
LangGraph's ``SqliteStore`` is synchronous (its ``AsyncSqliteStore`` belongs to the event loop that
opened it, which a command opening the memory before its loop starts cannot use), so
:class:`LocalStore` runs each async batch on a worker thread: the event loop never blocks on disk.

With ``MERMAID_MEMORY_URL`` (``--memory-url``) the memory is LangGraph's ``PostgresStore`` in that database,
shared by every worker that points at it. A host app passes any other LangGraph store instead
(``InMemoryStore`` …) through ``Overrides(store=...)`` (``mermaid_verifier.wiring``); the memory keeps only JSON values either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from langgraph.store.base import BaseStore, Op, Result
from langgraph.store.sqlite import SqliteStore

from mermaid_verifier.errors import MemoryStoreError

logger = logging.getLogger(__name__)

STORE_FILE = "memory.sqlite"
SETUP_LOCK_FILE = "memory.setup-lock"
SETUP_LOCK_KEY = 7_452_019_311  # the PostgreSQL advisory lock held while a store is set up
LOCK_WAIT_S = 30.0  # how long a write waits for another process's lock before failing
RETIRED_FILES = ("cache.db", "store_index.sqlite3")  # the earlier on-disk format, no longer read


class LocalStore(SqliteStore):
    """LangGraph's ``SqliteStore``, with async operations on a worker thread and a ``close()``."""

    path: Path | None = None  # the database file, for messages (set by open_local_store)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        try:
            return super().batch(ops)
        except sqlite3.DatabaseError as exc:  # a full disk, a file damaged while in use: name the file
            raise MemoryStoreError(store_problem(self.path or Path("memory.sqlite"), exc)) from exc

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> LocalStore:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def open_local_store(directory: Path | str, damaged_remedy: str | None = None) -> LocalStore:
    """The memory store in ``directory`` (created when missing), ready to use. ``damaged_remedy`` is what
    the error says to do when the file is damaged (default: ``memory recover``)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    retired = [name for name in RETIRED_FILES if (directory / name).exists()]
    if retired:
        logger.warning(
            "%s holds evidence memory in an earlier format (%s), which is no longer read; "
            "the memory starts empty in %s",
            directory,
            ", ".join(retired),
            STORE_FILE,
        )
    path = directory / STORE_FILE
    try:
        connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=LOCK_WAIT_S)
    except sqlite3.Error as exc:
        raise MemoryStoreError(f"cannot open the memory store {path}: {exc}") from exc
    store = LocalStore(connection)
    store.path = path
    try:
        with _setup_lock(directory):  # processes opening a new store at once would each run the migrations
            connection.execute("PRAGMA journal_mode=WAL")
            store.setup()
            connection.execute("SELECT count(*) FROM store").fetchone()  # reads the table's pages, not just the header
    except sqlite3.DatabaseError as exc:
        connection.close()
        raise MemoryStoreError(store_problem(path, exc, damaged_remedy)) from exc
    return store


def store_problem(path: Path, exc: sqlite3.Error, damaged_remedy: str | None = None) -> str:
    """One line naming the store file, what is wrong with it and what to do."""
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in chain:  # a failed write is often followed by a failed rollback
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    for earlier in reversed(chain):  # the first SQLite error is what went wrong
        if isinstance(earlier, sqlite3.Error):
            exc = earlier
            break
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "locked" in text:
        return f"the store {path} is locked by another process ({text}); wait for it to end, or use --no-memory"
    if isinstance(exc, sqlite3.OperationalError) and ("readonly" in text or "read-only" in text):
        return f"the store {path} cannot be written ({text}); make it writable, or use --no-memory"
    if isinstance(exc, sqlite3.OperationalError) and "unable to open" in text:  # the file or its folder
        return (
            f"the store {path} cannot be opened for writing ({text}); check that it and its folder {path.parent} "
            "can be written, or use --no-memory"
        )
    if "disk is full" in text or "disk I/O" in text:
        return f"the store {path} cannot be written ({text}); free disk space, or use --no-memory"
    remedy = damaged_remedy or "`mermaid-verifier memory recover` moves it aside and starts an empty one"
    return f"the store {path} is damaged ({text}); {remedy}"


def check_sqlite_file(path: Path, damaged_remedy: str) -> None:
    """A :class:`MemoryStoreError` naming ``path`` (:func:`store_problem`) when it exists and SQLite cannot
    read it; ``damaged_remedy`` says what to do when it is damaged."""
    if not path.exists():
        return
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=LOCK_WAIT_S)) as connection:
            connection.execute("SELECT name FROM sqlite_master").fetchall()  # opening alone reads nothing
    except sqlite3.Error as exc:
        raise MemoryStoreError(store_problem(path, exc, damaged_remedy)) from exc


def recover_local_store(directory: Path | str, stamp: str) -> list[Path]:
    """Move the store's files (and its write-ahead log) aside as ``memory.sqlite.damaged-<stamp>…``; the
    next run starts an empty store. Returns where each file went (nothing when there is no store)."""
    directory = Path(directory)
    moved = []
    for suffix in ("", "-wal", "-shm"):
        source = directory / f"{STORE_FILE}{suffix}"
        if source.exists():
            target = directory / f"{STORE_FILE}.damaged-{stamp}{suffix}"
            source.rename(target)
            moved.append(target)
    return moved


@contextlib.contextmanager
def _setup_lock(directory: Path) -> Iterator[None]:
    """A lock across processes, held while a store is set up: an exclusive transaction on a side file."""
    lock = sqlite3.connect(directory / SETUP_LOCK_FILE, timeout=LOCK_WAIT_S, isolation_level=None)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        yield
    finally:
        lock.close()  # ends the transaction


@dataclass
class OpenedStore:
    """A store and how to close it (what ``Resources`` owns)."""

    store: BaseStore
    close: Callable[[], None]
    where: str  # for messages: the directory, or the database URL without its password


def open_store(memory_dir: Path, memory_url: str | None = None) -> OpenedStore:
    """The local store in ``memory_dir``, or LangGraph's ``PostgresStore`` at ``memory_url`` when given."""
    if memory_url:
        return open_postgres_store(memory_url)
    store = open_local_store(memory_dir)
    return OpenedStore(store, store.close, str(memory_dir))


def redacted(url: str) -> str:
    """``url`` without its password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


def open_postgres_store(url: str, *, max_connections: int = 4) -> OpenedStore:
    """LangGraph's ``PostgresStore`` (needs the ``postgres`` extra) over a small connection pool, set up
    under an advisory lock so that workers starting at once do not each run the migrations. Its async
    operations run the sync ones on a worker thread, so it is not tied to one event loop either."""
    try:
        import psycopg
        from langgraph.store.postgres import PostgresStore
    except ImportError as exc:
        raise MemoryStoreError(
            f"MERMAID_MEMORY_URL needs the postgres extra: pip install 'mermaid-verifier[postgres]' ({exc})"
        ) from exc
    stack = contextlib.ExitStack()
    try:
        store = stack.enter_context(
            PostgresStore.from_conn_string(
                url, pool_config={"min_size": 1, "max_size": max_connections, "kwargs": {"connect_timeout": 10}}
            )
        )
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as lock:
            lock.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK_KEY,))
            store.setup()
    except psycopg.Error as exc:
        stack.close()
        reason = " ".join(str(exc).split())
        raise MemoryStoreError(f"cannot use the memory database at {redacted(url)}: {reason}") from exc
    return OpenedStore(store, stack.close, redacted(url))
