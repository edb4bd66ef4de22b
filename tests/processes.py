"""The live processes of this machine, read from /proc (Linux): what the tests that check no process
outlives a run look at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest


class Process(NamedTuple):
    pid: int
    parent: int
    session: int


def require_proc() -> None:
    """Skip the test where /proc is absent (not Linux)."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to list processes")


def live_processes() -> Iterator[Process]:
    """Every live process (zombies, already exited, left out); skips the test where /proc is absent."""
    require_proc()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # after "(command name)": state, parent pid, process group, session, ...
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        if fields[0] != "Z":
            yield Process(int(entry.name), parent=int(fields[1]), session=int(fields[3]))


def command_line(pid: int) -> str:
    """The process's command line, arguments joined by spaces ("" once it has exited)."""
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
