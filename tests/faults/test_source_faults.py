"""A source that fails while a run goes on: the local-corpus server killed mid-run. The run ends in
bounded time with one line naming the server, exit 1, and keeps every claim it had decided."""

from __future__ import annotations

import json
import os
import signal

from ..processes import command_line, live_processes
from .fever_process import start_fever


def corpus_servers_of(parent: int) -> list[int]:
    children = [p.pid for p in live_processes() if p.parent == parent]
    return [pid for pid in children if "local_corpus_server" in command_line(pid)]


def test_a_corpus_server_killed_mid_run_ends_the_run_with_its_name_and_keeps_decided_claims(tmp_path):
    run = start_fever(tmp_path, 80)
    run.wait_for_results(3)
    servers = corpus_servers_of(run.process.pid)
    assert servers, "the run's corpus server was not found"
    for pid in servers:
        os.kill(pid, signal.SIGKILL)
    _, stderr = run.process.communicate(timeout=120)  # bounded: a hang fails here
    assert run.process.returncode == 1, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "local-corpus" in errors[0] and "Traceback" not in stderr
    assert "--resume" in errors[0]
    decided = [json.loads(line) for line in run.results.read_text().splitlines()]
    assert 3 <= len(decided) < 80 and len({row["id"] for row in decided}) == len(decided)
