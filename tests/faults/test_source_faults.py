"""A source that fails while a run goes on: the local-corpus server killed mid-run. The run ends in
bounded time with one line naming the server, exit 1, and keeps every claim it had decided."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from ..conftest import WIKI_MINI
from ..processes import command_line, live_processes
from .test_damaged_files import CLI

CLAIMS = ["Stanley Kubrick directed 2001: A Space Odyssey.", "Mount Everest is in the Himalayas."]


def corpus_servers_of(parent: int) -> list[int]:
    children = [p.pid for p in live_processes() if p.parent == parent]
    return [pid for pid in children if "local_corpus_server" in command_line(pid)]


def test_a_corpus_server_killed_mid_run_ends_the_run_with_its_name_and_keeps_decided_claims(tmp_path):
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "".join(json.dumps({"id": f"c{i}", "claim": CLAIMS[i % 2], "label": "SUPPORTS"}) + "\n" for i in range(80))
    )
    out = tmp_path / "out"
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"}
    args = ["fever", str(claims), "--corpus", str(WIKI_MINI), "--no-memory", "--concurrency", "1", "--out", str(out)]
    process = subprocess.Popen(CLI + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (results.exists() and results.read_text().count("\n") >= 3):
        time.sleep(0.05)
    servers = corpus_servers_of(process.pid)
    assert servers, "the run's corpus server was not found"
    for pid in servers:
        os.kill(pid, signal.SIGKILL)
    _, stderr = process.communicate(timeout=120)  # bounded: a hang fails here
    assert process.returncode == 1, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "local-corpus" in errors[0] and "Traceback" not in stderr
    decided = [json.loads(line) for line in results.read_text().splitlines()]
    assert 3 <= len(decided) < 80 and len({row["id"] for row in decided}) == len(decided)
    assert "--resume" in errors[0]
