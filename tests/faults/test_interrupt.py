"""Ctrl-C in a `fever` run: it ends at once with exit 130, says the decided claims are kept and that
--resume continues, and --resume then finishes without repeating a claim."""

from __future__ import annotations

import json
import signal
import subprocess

from ..conftest import CLI
from .fever_process import start_fever


def test_ctrl_c_says_resume_continues_and_resume_finishes(tmp_path):
    run = start_fever(tmp_path, 60)
    run.wait_for_results(2)
    run.process.send_signal(signal.SIGINT)
    _, stderr = run.process.communicate(timeout=60)
    assert run.process.returncode == 130, stderr
    assert "--resume continues" in stderr and str(run.results) in stderr
    assert 2 <= run.decided() < 60

    resumed = subprocess.run(CLI + run.args + ["--resume"], env=run.env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    ids = [json.loads(line)["id"] for line in run.results.read_text().splitlines()]
    assert sorted(ids) == sorted(f"c{i}" for i in range(60))
