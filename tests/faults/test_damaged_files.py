"""Fault injection on the files a run reads: a damaged memory store, calibration or reliability file,
a memory database that cannot be used. Each run ends in bounded time (a hang fails the test through
its timeout) with one error line naming the file and what to do, and a non-zero exit code."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from ..conftest import CLI, VERIFY
from .fault_kit import (  # noqa: F401
    BOUND_S,  # noqa: F401
    CLAIM,
    one_error_line,
    random_bytes,
    run,
)


def memory_file(tmp_path):
    directory = tmp_path / "cache" / "evidence-memory"
    directory.mkdir(parents=True)
    return directory / "memory.sqlite"


@pytest.mark.parametrize(
    "content",
    [random_bytes(300_000), b"SQLite format 3\x00" + random_bytes(4096 * 4)],
    ids=["random-bytes", "damaged-pages"],
)
def test_a_damaged_memory_store_is_named_and_recover_moves_it_aside(tmp_path, content):
    store = memory_file(tmp_path)
    store.write_bytes(content)

    done = run(VERIFY, tmp_path, CLAIM)
    assert done.returncode == 1 and done.stdout == ""
    one_error_line(done, str(store), "damaged", "memory recover")

    cleared = run(CLI, tmp_path, "memory", "clear", "--yes")  # clear cannot read it either: it says what to do
    assert cleared.returncode == 1
    one_error_line(cleared, str(store), "memory recover")

    recovered = run(CLI, tmp_path, "memory", "recover")
    assert recovered.returncode == 0, recovered.stderr
    moved = sorted(store.parent.glob("memory.sqlite.damaged-*"))
    assert moved and moved[0].read_bytes() == content  # nothing deleted
    assert str(moved[0]) in recovered.stdout

    again = run(VERIFY, tmp_path, "--json", CLAIM)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["verdict"] in {"SUPPORTS", "REFUTES", "NOT ENOUGH INFO"}


def test_a_truncated_memory_store_is_named(tmp_path):
    store = memory_file(tmp_path)
    with sqlite3.connect(store) as connection:  # a real store, then cut in the middle of its pages
        connection.execute("CREATE TABLE store (prefix text, key text, value text)")
        connection.executemany("INSERT INTO store VALUES (?, ?, ?)", [(f"p{i}", "k", "v" * 500) for i in range(400)])
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 3])
    done = run(VERIFY, tmp_path, CLAIM)
    assert done.returncode == 1
    one_error_line(done, str(store))


def test_memory_recover_with_no_store_says_so(tmp_path):
    done = run(CLI, tmp_path, "memory", "recover")
    assert done.returncode == 0
    assert "nothing to move" in done.stderr


@pytest.mark.parametrize(
    "content",
    [b"garbage\n", b"", random_bytes(2000), b'{"abstain_below": "high"}', b"[1, 2]"],
    ids=["garbage", "empty", "random-bytes", "wrong-type", "wrong-json"],
)
def test_a_damaged_calibration_file_is_named(tmp_path, content):
    calibration = tmp_path / "calibration.json"
    calibration.write_bytes(content)
    done = run(VERIFY, tmp_path, CLAIM, MERMAID_CALIBRATION=str(calibration))
    assert done.returncode != 0 and done.stdout == ""
    one_error_line(done, str(calibration), "calibrate")


@pytest.mark.parametrize(
    "content",
    [b"garbage", b"", random_bytes(2000), b'{"w_time": "x"}', b'{"no_such_field": 1}', b"[]"],
    ids=["garbage", "empty", "random-bytes", "wrong-type", "unknown-field", "wrong-json"],
)
def test_a_damaged_reliability_file_is_named(tmp_path, content):
    reliability = tmp_path / "reliability.json"
    reliability.write_bytes(content)
    done = run(VERIFY, tmp_path, CLAIM, MERMAID_RELIABILITY=str(reliability))
    assert done.returncode != 0 and done.stdout == ""
    one_error_line(done, str(reliability))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its permissions")
def test_an_unreadable_calibration_file_is_named(tmp_path):
    calibration = tmp_path / "calibration.json"
    calibration.write_text("{}")
    calibration.chmod(0)
    done = run(VERIFY, tmp_path, CLAIM, MERMAID_CALIBRATION=str(calibration))
    assert done.returncode != 0
    one_error_line(done, str(calibration))


def test_a_memory_database_that_does_not_answer_ends_the_run(tmp_path):
    # without the postgres extra: a line saying to install it; with it: the refused connection, named
    done = run(VERIFY, tmp_path, CLAIM, MERMAID_MEMORY_URL="postgresql://nobody@127.0.0.1:9/nothing")
    assert done.returncode == 1 and done.stdout == ""
    one_error_line(done, "postgres")


@pytest.mark.parametrize("damaged", ["passages.json", "vocab.index.json", "data.csc.index.npy", "sources.json"])
def test_a_damaged_index_cache_is_rebuilt_and_the_verdict_is_unchanged(tmp_path, damaged):
    clean = run(VERIFY, tmp_path, "--json", "--no-memory", CLAIM)
    assert clean.returncode == 0, clean.stderr
    [index_dir] = (tmp_path / "cache" / "corpus-index").glob("bm25-*")
    (index_dir / damaged).write_bytes(random_bytes(100))
    again = run(VERIFY, tmp_path, "--json", "--no-memory", CLAIM)
    assert again.returncode == 0, again.stderr
    first, second = json.loads(clean.stdout), json.loads(again.stdout)
    assert (second["verdict"], second["confidence"]) == (first["verdict"], first["confidence"])
