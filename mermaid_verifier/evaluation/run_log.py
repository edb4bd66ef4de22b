"""The durable results file of a batch run: one JSON line per decided claim, flushed and fsynced.

A run killed at any moment (SIGKILL included) leaves at most one partial last line; reopening
the log cuts it off, so ``--resume`` neither loses a decided claim nor records one twice.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

import orjson

from mermaid_verifier.errors import UsageError


def _complete_prefix_length(data: bytes) -> int:
    """Length of ``data`` up to and including its last newline (what a crash cannot have torn)."""
    return data.rfind(b"\n") + 1


class ResultsLog:
    """Append-only JSONL log of result rows keyed by ``id``."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._handle: BinaryIO | None = None

    def read(self) -> list[dict]:
        """The complete rows already in the log, in order (a torn last line is ignored)."""
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        rows = []
        for number, line in enumerate(data[: _complete_prefix_length(data)].splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(orjson.loads(line))
            except orjson.JSONDecodeError as exc:
                raise UsageError(
                    f"{self.path}:{number}: not a results line ({exc}); move the file away or use another --out"
                ) from None
        return rows

    def open(self, *, resume: bool) -> list[dict]:
        """Open for appending and return the rows kept. Without ``resume`` an existing log is an error,
        so a finished run is never overwritten by accident."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size and not resume:
            raise UsageError(
                f"{self.path} already holds results: pass --resume to continue that run, or choose another --out"
            )
        kept = self.read() if resume else []
        if self.path.exists():
            with self.path.open("r+b") as handle:  # drop a torn last line left by a kill
                handle.truncate(_complete_prefix_length(handle.read()))
        self._handle = self.path.open("ab")
        return kept

    def append(self, row: dict) -> None:
        """Write one row and make it durable before returning."""
        if self._handle is None:
            raise RuntimeError("ResultsLog.append before open")
        self._handle.write(orjson.dumps(row) + b"\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> ResultsLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
