"""A `fever` run in a process of its own, for the tests that stop or break it mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..conftest import CLI, WIKI_MINI

CLAIMS = ["Stanley Kubrick directed 2001: A Space Odyssey.", "Mount Everest is in the Himalayas."]


@dataclass
class FeverRun:
    process: subprocess.Popen
    args: list[str]
    env: dict[str, str]
    results: Path
    claims: int

    def wait_for_results(self, count: int, timeout_s: float = 120) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.decided() < count:
            time.sleep(0.05)
        assert self.decided() >= count, "the run decided too few claims in time"

    def decided(self) -> int:
        return self.results.read_text().count("\n") if self.results.exists() else 0


def start_fever(tmp_path: Path, claims: int) -> FeverRun:
    """A run over ``claims`` claims of the test corpus, one at a time, no memory, in ``tmp_path/out``."""
    path = tmp_path / "claims.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"c{i}", "claim": CLAIMS[i % 2], "label": "SUPPORTS"}) + "\n" for i in range(claims))
    )
    out = tmp_path / "out"
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"}
    args = ["fever", str(path), "--corpus", str(WIKI_MINI), "--no-memory", "--concurrency", "1", "--out", str(out)]
    # Ctrl-C as a terminal delivers it: a test runner started in the background (where the shell ignores
    # SIGINT) would otherwise pass the ignored disposition on, and the run would never see the signal
    process = subprocess.Popen(
        CLI + args,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    return FeverRun(process, args, env, out / "results.jsonl", claims)
