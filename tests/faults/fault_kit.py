"""Running the CLI on damaged files and reading its one error line."""

from __future__ import annotations

import os
import random
import subprocess

from ..conftest import WIKI_MINI

CLAIM = "Mount Everest is in the Himalayas."


def run(command: list[str], tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
        "MERMAID_SOURCES": "local",
        "MERMAID_CORPUS": str(WIKI_MINI),
        **env,
    }
    environment.pop("MERMAID_DEBUG", None)
    done = subprocess.run(command + list(args), capture_output=True, env=environment, timeout=BOUND_S)
    done.stdout, done.stderr = done.stdout.decode(), done.stderr.decode()
    return done


def one_error_line(done: subprocess.CompletedProcess, *expected: str) -> str:
    lines = [line for line in done.stderr.strip().splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def random_bytes(n: int, seed: int = 7) -> bytes:
    return random.Random(seed).randbytes(n)


BOUND_S = 120  # far above a healthy run's few seconds; a hang ends here as a failure
