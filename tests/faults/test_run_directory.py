"""The run directory of `fever`: two runs on one --out never write a claim twice, and --resume
continues the selection of claims the run was started on (a sample of a split's part stays that
sample), refusing an option that would mix two selections."""

from __future__ import annotations

import asyncio
import json

import pytest

from mermaid_verifier.config import Settings
from mermaid_verifier.errors import UsageError
from mermaid_verifier.evaluation.fever_run import RunOptions, run, run_lock

from ..test_fever_run import output_for, scripted


class SlowVerifier:
    """Stands in for the graph; each claim takes a moment, so a second run can start meanwhile."""

    def __init__(self, delay: float = 0.0):
        self.delay = delay

    async def ainvoke(self, state):
        await asyncio.sleep(self.delay)
        return output_for(state["claim"])


def write_claims(tmp_path, count: int = 40):
    claims = tmp_path / "claims.jsonl"
    labels = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
    claims.write_text(
        "".join(json.dumps({"id": f"c{i}", "claim": f"claim {i}", "label": labels[i % 3]}) + "\n" for i in range(count))
    )
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"assignment": {f"c{i}": "test" if i % 2 else "train" for i in range(count)}}))
    return claims, split


def settings(tmp_path) -> Settings:
    return Settings.from_env({}, cache_dir=tmp_path / "cache")


async def test_a_second_run_on_the_same_directory_is_refused_and_no_claim_is_written_twice(tmp_path):
    claims, _ = write_claims(tmp_path, 6)
    options = RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1)
    first = asyncio.create_task(run(options, settings(tmp_path), verifier_factory=scripted(SlowVerifier(0.05))))
    await asyncio.sleep(0.1)
    with pytest.raises(UsageError, match="another run is writing to"):
        await run(
            RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, resume=True),
            settings(tmp_path),
            verifier_factory=scripted(SlowVerifier()),
        )
    outcome = await first
    ids = [json.loads(line)["id"] for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert sorted(ids) == sorted(f"c{i}" for i in range(6)) and len(outcome.rows) == 6


def test_the_lock_is_held_across_processes(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "run"
    out.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from mermaid_verifier.evaluation.fever_run import run_lock\n"
            f"with run_lock(Path({str(out)!r})):\n    print('held', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(UsageError, match="another run"), run_lock(out):
            pass
    finally:
        holder.kill()
        holder.wait()
    with run_lock(out):  # a killed holder leaves no stale lock
        pass


async def test_resume_without_the_selection_options_continues_the_same_sample(tmp_path):
    claims, split = write_claims(tmp_path)
    started = RunOptions(
        claims_path=claims,
        out_dir=tmp_path / "run",
        concurrency=1,
        split_file=split,
        parts=("test",),
        limit=9,
        sample="stratified",
        seed=3,
    )
    await run(started, settings(tmp_path), verifier_factory=scripted(SlowVerifier()))
    results = tmp_path / "run" / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:4]))  # as a run killed after 4
    resumed = await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, resume=True),
        settings(tmp_path),
        verifier_factory=scripted(SlowVerifier()),
    )
    uninterrupted = await run(
        RunOptions(**{**started.__dict__, "out_dir": tmp_path / "whole"}),
        settings(tmp_path),
        verifier_factory=scripted(SlowVerifier()),
    )
    assert len(resumed.rows) == 9 and resumed.resumed == 4
    assert sorted(r["id"] for r in resumed.rows) == sorted(r["id"] for r in uninterrupted.rows)
    assert all(int(r["id"][1:]) % 2 for r in resumed.rows)  # test part only


async def test_resume_with_a_different_selection_is_refused(tmp_path):
    claims, split = write_claims(tmp_path)
    await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, limit=5),
        settings(tmp_path),
        verifier_factory=scripted(SlowVerifier()),
    )
    with pytest.raises(UsageError, match="--limit 7 .the run has 5."):
        await run(
            RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, limit=7, resume=True),
            settings(tmp_path),
            verifier_factory=scripted(SlowVerifier()),
        )


@pytest.mark.parametrize(
    "split_text, message",
    [
        (None, "split file not found"),
        ("not json", "holds no 'assignment' object"),
        (json.dumps({"assignment": {"c1": "train"}}), "has no part 'test': give --part one of 'train'"),
    ],
)
async def test_a_refused_fever_run_leaves_an_existing_run_directory_as_it_was(tmp_path, split_text, message):
    claims, split = write_claims(tmp_path, 4)
    await run(
        RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1),
        settings(tmp_path),
        verifier_factory=scripted(SlowVerifier()),
    )
    (tmp_path / "run" / "run.lock").unlink()
    before = {path.name: path.read_bytes() for path in (tmp_path / "run").iterdir() if path.is_file()}
    if split_text is None:
        split.unlink()
    else:
        split.write_text(split_text)
    with pytest.raises(UsageError, match=message) as refused:
        await run(
            RunOptions(claims_path=claims, out_dir=tmp_path / "run", concurrency=1, split_file=split, parts=("test",)),
            settings(tmp_path),
            verifier_factory=scripted(SlowVerifier()),
        )
    assert str(split) in str(refused.value)
    after = {path.name: path.read_bytes() for path in (tmp_path / "run").iterdir() if path.is_file()}
    assert after == before  # no lock file, no selection, no results of the refused run
