"""Ctrl-C in a `fever` run: it ends at once with exit 130, says the decided claims are kept and that
--resume continues, and --resume then finishes without repeating a claim."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from ..conftest import WIKI_MINI
from .test_damaged_files import CLI

CLAIMS = ["Stanley Kubrick directed 2001: A Space Odyssey.", "Mount Everest is in the Himalayas."]


def test_ctrl_c_says_resume_continues_and_resume_finishes(tmp_path):
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "".join(json.dumps({"id": f"c{i}", "claim": CLAIMS[i % 2], "label": "SUPPORTS"}) + "\n" for i in range(60))
    )
    out = tmp_path / "out"
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"}
    args = ["fever", str(claims), "--corpus", str(WIKI_MINI), "--no-memory", "--concurrency", "1", "--out", str(out)]
    process = subprocess.Popen(CLI + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (results.exists() and results.read_text().count("\n") >= 2):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "--resume continues" in stderr and str(results) in stderr
    decided = results.read_text().count("\n")
    assert 2 <= decided < 60

    resumed = subprocess.run(CLI + args + ["--resume"], env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    ids = [json.loads(line)["id"] for line in results.read_text().splitlines()]
    assert sorted(ids) == sorted(f"c{i}" for i in range(60))
