"""Files and folders a run must write that cannot be written: the memory store, its folder, the
calibration file, a run directory, the corpus-index cache. Each ends with one line naming the file and
what to do, or (the index cache, which is only a cache) the run goes on with the same verdict.

Read-only is made with ``chattr +i`` where the tests run as root (root writes whatever the permission
bits say) and with ``chmod`` otherwise; where neither holds, the test skips and says why."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..conftest import CLI, VERIFY, WIKI_MINI
from .fault_kit import CLAIM, one_error_line, run


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (a file or folder) unwritable for the length of the block."""
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"root ignores permission bits and chattr +i is not available here ({done.stderr.strip()})")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)


def first_run(tmp_path) -> Path:
    """A healthy verify that creates the memory store and the index cache; the store's path."""
    done = run(VERIFY, tmp_path, CLAIM)
    assert done.returncode == 0, done.stderr
    store = tmp_path / "cache" / "evidence-memory" / "memory.sqlite"
    assert store.is_file()
    return store


def test_a_read_only_memory_store_is_named_with_what_to_do(tmp_path):
    store = first_run(tmp_path)
    with read_only(store):
        done = run(VERIFY, tmp_path, "Mount Everest is in the Andes.")
    assert done.returncode == 1
    one_error_line(done, str(store), "cannot be written", "--no-memory")
    assert run(VERIFY, tmp_path, "Mount Everest is in the Andes.", MERMAID_MEMORY="0").returncode == 0


def test_a_read_only_memory_folder_is_named_not_called_damaged(tmp_path):
    store = first_run(tmp_path)
    with read_only(store.parent):
        done = run(VERIFY, tmp_path, "Mount Everest is in Nepal.")
    assert done.returncode == 1
    line = one_error_line(done, str(store), str(store.parent), "--no-memory")
    assert "damaged" not in line and "recover" not in line


def test_a_read_only_calibration_file_is_named_and_nothing_is_left_behind(tmp_path):
    results = tmp_path / "results.jsonl"
    rows = [  # right above confidence 0.5, wrong below: a threshold exists
        {"id": str(i), "gold": "SUPPORTS", "verdict": "SUPPORTS" if i >= 100 else "REFUTES", "confidence": i / 400}
        for i in range(400)
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    calibration = tmp_path / "calibration.json"
    calibration.write_text("{}")
    with read_only(calibration):
        done = run(
            CLI,
            tmp_path,
            "calibrate",
            "--from-results",
            str(results),
            "--max-risk",
            "0.3",
            MERMAID_CALIBRATION=str(calibration),
        )
    assert done.returncode == 1
    one_error_line(done, str(calibration), "cannot be written", "MERMAID_CALIBRATION")
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".tmp") == []
    assert calibration.read_text() == "{}"


def test_a_read_only_run_directory_is_named(tmp_path):
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": 1, "claim": CLAIM, "label": "SUPPORTS"}) + "\n")
    out = tmp_path / "run"
    out.mkdir()
    with read_only(out):
        done = run(CLI, tmp_path, "fever", str(claims), "--corpus", str(WIKI_MINI), "--no-memory", "--out", str(out))
    assert done.returncode == 2
    one_error_line(done, str(out), "not writable")


def test_a_read_only_index_cache_leaves_the_verdict_unchanged(tmp_path):
    first = run(VERIFY, tmp_path, "--json", "--no-memory", CLAIM)
    assert first.returncode == 0, first.stderr
    cache = tmp_path / "cache" / "corpus-index"
    assert any(cache.iterdir())
    with read_only(cache):
        again = run(VERIFY, tmp_path, "--json", "--no-memory", CLAIM)
    assert again.returncode == 0, again.stderr
    before, after = json.loads(first.stdout), json.loads(again.stdout)
    assert (after["verdict"], after["confidence"]) == (before["verdict"], before["confidence"])
