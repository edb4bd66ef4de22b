"""The evidence memory shared in PostgreSQL (``--memory-url`` / ``MERMAID_MEMORY_URL``), against a real
throwaway PostgreSQL cluster started in a temporary directory (``initdb`` + ``pg_ctl``).

A dedicated target, not part of the default run (``-m postgres``):

    python -m pytest -m postgres tests/test_postgres_memory.py

Skipped with the reason when the PostgreSQL server binaries or the ``postgres`` extra are absent.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mermaid_verifier.errors import MemoryStoreError
from mermaid_verifier.memory.evidence import EvidenceMemory
from mermaid_verifier.memory.store import open_postgres_store, redacted

from . import test_memory_concurrency as concurrency
from .conftest import WIKI_MINI

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed (pip install -e '.[postgres]')")
pytest.importorskip("langgraph.store.postgres", reason="the postgres extra is not installed")


def server_binaries() -> Path | None:
    for candidate in [shutil.which("pg_ctl"), *sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), reverse=True)]:
        if candidate and Path(candidate).exists():
            return Path(candidate).resolve().parent
    return None


@pytest.fixture(scope="module")
def postgres_url():
    """A PostgreSQL cluster of its own on a Unix socket in a temporary directory, removed afterwards."""
    binaries = server_binaries()
    if binaries is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    root = Path(
        tempfile.mkdtemp(prefix="mermaid-pg-")
    )  # not under pytest's root-only temp dir: the server user reads it
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root: run the cluster as the postgres user
        if shutil.which("runuser") is None or subprocess.run(["id", "postgres"], capture_output=True).returncode:
            pytest.skip("running as root without a postgres user to run the cluster as")
        shutil.chown(root, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", 55432 + os.getpid() % 1000
    subprocess.run(
        [
            *as_user,
            str(binaries / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            *as_user,
            str(binaries / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(root / "log"),
            "-w",
            "-o",
            f"-k {root} -p {port} -c listen_addresses='' -c fsync=off",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@/postgres?host={root}&port={port}"
    finally:
        subprocess.run(
            [*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fresh_database(postgres_url):
    """An empty database of its own for one test."""
    name = f"t{os.urandom(4).hex()}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return postgres_url.replace("/postgres?", f"/{name}?")


def test_the_memory_works_the_same_on_postgres(fresh_database):
    opened = open_postgres_store(fresh_database)
    try:
        memory = EvidenceMemory(opened.store)
        evidence = concurrency.item(0, 0)
        assert asyncio.run(memory.remember(["Hugh Laurie"], [evidence])) == 1
        recalled = asyncio.run(memory.recall(["House"], "a medical drama", origins={"corpus:shared"}))
        assert [e.id for e in recalled.items] == [evidence.id] and recalled.items[0].from_memory
        assert asyncio.run(memory.summary())["items"] == 1
    finally:
        opened.close()


def postgres_worker(url: str, worker: int) -> None:
    opened = open_postgres_store(url)
    try:
        asyncio.run(concurrency.write_items(EvidenceMemory(opened.store), worker))
    finally:
        opened.close()


def test_four_processes_writing_one_postgres_memory_lose_nothing(fresh_database):
    concurrency.run_writers(postgres_worker, fresh_database)  # they also set the store up at once
    opened = open_postgres_store(fresh_database)
    try:
        asyncio.run(concurrency.check_nothing_lost(EvidenceMemory(opened.store)))
    finally:
        opened.close()


def verify_in_a_process(claim: str, url: str, cache_dir: Path) -> dict:
    env = os.environ | {"MERMAID_MEMORY_URL": url, "MERMAID_SOURCES": "local", "MERMAID_CACHE_DIR": str(cache_dir)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from mermaid_verifier.cli import verify_main; verify_main()",
            "--json",
            "--corpus",
            str(WIKI_MINI),
            claim,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_reuses_what_the_first_learned(fresh_database, tmp_path):
    claim = "Stanley Kubrick directed 2001: A Space Odyssey."
    first = verify_in_a_process(claim, fresh_database, tmp_path / "one")
    second = verify_in_a_process(
        claim, fresh_database, tmp_path / "two"
    )  # another cache dir: only the database is shared
    assert first["stats"]["memory_hits"] == 0
    assert second["stats"]["memory_hits"] > 0
    assert second["stats"]["tool_calls"] < first["stats"]["tool_calls"]


def test_a_database_that_does_not_answer_is_one_clear_error(postgres_url):
    url = re.sub(r"port=\d+", "port=1", postgres_url)  # nothing listens there
    with pytest.raises(MemoryStoreError, match="cannot use the memory database at"):
        open_postgres_store(url)


def test_a_password_never_shows_in_messages():
    assert redacted("postgresql://ada:s3cret@db.example/memory") == "postgresql://ada:***@db.example/memory"


def test_memory_upkeep_works_the_same_on_postgres(fresh_database, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from mermaid_verifier.cli import app

    from .memory_kit import GONE, STILL_THERE

    opened = open_postgres_store(fresh_database)
    try:
        asyncio.run(
            EvidenceMemory(opened.store, clock=lambda: 1_000_000.0).remember(
                ["Mount Everest", "Atlantis"], [STILL_THERE, GONE]
            )
        )
    finally:
        opened.close()
    monkeypatch.setenv("MERMAID_MEMORY_URL", fresh_database)
    out = CliRunner().invoke(
        app,
        ["memory", "revalidate", "--top-k", "5", "--corpus", str(WIKI_MINI), "--json", "--cache-dir", str(tmp_path)],
    )
    assert out.exit_code == 0, out.output
    rows = {row["id"]: row for row in json.loads(out.stdout)}
    assert rows[STILL_THERE.id]["observed"] == 1.0 and rows[GONE.id]["observed"] == 0.0
    assert rows[GONE.id]["after"] < rows[GONE.id]["before"]
    assert "folded the statistics of 1 quiet writer(s) into one record" in out.stderr  # the seeding writer's
    stats = json.loads(CliRunner().invoke(app, ["memory", "stats", "--cache-dir", str(tmp_path)]).stdout)
    assert stats["items"] == 2


def test_the_memory_url_option_reaches_the_run(fresh_database, tmp_path):
    claim = "Stanley Kubrick directed 2001: A Space Odyssey."
    env = os.environ | {"MERMAID_SOURCES": "local", "MERMAID_CACHE_DIR": str(tmp_path)}
    env.pop("MERMAID_MEMORY_URL", None)
    command = [
        sys.executable,
        "-c",
        "from mermaid_verifier.cli import verify_main; verify_main()",
        "--json",
        "--memory-url",
        fresh_database,
        "--corpus",
        str(WIKI_MINI),
        claim,
    ]
    runs = [subprocess.run(command, env=env, capture_output=True, text=True, timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert json.loads(runs[1].stdout.strip().splitlines()[-1])["stats"]["memory_hits"] > 0
