"""Where the evidence memory lives: LangGraph's own ``SqliteStore`` by default, any ``BaseStore`` on request.

``open_local_store(directory)`` opens ``directory/memory.sqlite`` with LangGraph's ``SqliteStore`` (values
stored as JSON, one file). SQLite's write-ahead log lets several processes on one machine read while
one writes, and a write that meets another's lock waits up to ``LOCK_WAIT_S`` instead of failing.
LangGraph's ``SqliteStore`` is synchronous (its ``AsyncSqliteStore`` belongs to the event loop that
opened it, which a command opening the memory before its loop starts cannot use), so
:class:`LocalStore` runs each async batch on a worker thread: the event loop never blocks on disk.

A host app passes any other LangGraph store instead (``InMemoryStore``, ``PostgresStore`` …) through
``Resources.create(store=...)``; the memory keeps only JSON values in it either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from pathlib import Path
from typing import Iterable, Iterator

from langgraph.store.base import Op, Result
from langgraph.store.sqlite import SqliteStore

logger = logging.getLogger(__name__)

STORE_FILE = "memory.sqlite"
SETUP_LOCK_FILE = "memory.setup-lock"
LOCK_WAIT_S = 30.0  # how long a write waits for another process's lock before failing
RETIRED_FILES = ("cache.db", "store_index.sqlite3")  # the earlier on-disk format, no longer read


class LocalStore(SqliteStore):
    """LangGraph's ``SqliteStore``, with async operations on a worker thread and a ``close()``."""

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> LocalStore:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def open_local_store(directory: Path | str) -> LocalStore:
    """The memory store in ``directory`` (created when missing), ready to use."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    retired = [name for name in RETIRED_FILES if (directory / name).exists()]
    if retired:
        logger.warning("%s holds evidence memory in an earlier format (%s), which is no longer read; "
                       "the memory starts empty in %s", directory, ", ".join(retired), STORE_FILE)
    connection = sqlite3.connect(directory / STORE_FILE, check_same_thread=False, isolation_level=None,
                                 timeout=LOCK_WAIT_S)
    store = LocalStore(connection)
    with _setup_lock(directory):  # processes opening a new store at once would each run the migrations
        connection.execute("PRAGMA journal_mode=WAL")
        store.setup()
    return store


@contextlib.contextmanager
def _setup_lock(directory: Path) -> Iterator[None]:
    """A lock across processes, held while a store is set up: an exclusive transaction on a side file."""
    lock = sqlite3.connect(directory / SETUP_LOCK_FILE, timeout=LOCK_WAIT_S, isolation_level=None)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        yield
    finally:
        lock.close()  # ends the transaction
