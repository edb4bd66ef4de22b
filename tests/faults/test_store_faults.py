"""SQLite files that fail while in use or before: a full disk during a write, damaged review checkpoints.
Each is one error naming the file and what to do."""

from __future__ import annotations

import asyncio

import pytest

from mermaid_verifier.errors import MemoryStoreError
from mermaid_verifier.memory.store import open_local_store

from ..conftest import CLI
from ..conftest import VERIFY as VERIFY_CMD
from .fault_kit import one_error_line, random_bytes, run


def test_a_full_disk_during_a_write_names_the_store(tmp_path):
    store = open_local_store(tmp_path)
    try:
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: SQLite's "disk is full"
        with pytest.raises(MemoryStoreError, match="free disk space") as raised:
            asyncio.run(store.aput(("items",), "big", {"text": "x" * 200_000}))
        assert str(tmp_path / "memory.sqlite") in str(raised.value)
    finally:
        store.close()


def test_damaged_review_checkpoints_are_named(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    checkpoints = cache / "checkpoints.sqlite"
    checkpoints.write_bytes(random_bytes(50_000))
    done = run(CLI, tmp_path, "review")
    assert done.returncode == 1
    one_error_line(done, str(checkpoints), "move it aside")


def test_a_memory_store_locked_by_another_process_is_named_after_the_lock_wait(tmp_path):
    import subprocess
    import sys

    store = tmp_path / "cache" / "evidence-memory" / "memory.sqlite"
    store.parent.mkdir(parents=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            f"c = sqlite3.connect({str(store)!r}, isolation_level=None)\n"
            "c.execute('CREATE TABLE held (x)'); c.execute('BEGIN EXCLUSIVE')\n"
            "print('held', flush=True); time.sleep(300)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        done = run(VERIFY_CMD, tmp_path, "Mount Everest is in the Himalayas.")  # waits LOCK_WAIT_S (30 s), then says so
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 1
    one_error_line(done, str(store), "locked by another process", "--no-memory")
