"""`mermaid-verifier fever --ray`: the driver's batch streaming (with stand-in workers, always run) and
real runs on a local Ray cluster (``python -m pytest -m ray``): the same verdicts as in process, and
a worker or the driver killed with SIGKILL mid-run losing and duplicating nothing."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mermaid_verifier.errors import LLMServiceError, UsageError
from mermaid_verifier.evaluation import ray_batch
from mermaid_verifier.evaluation.datasets import LabelledClaim
from mermaid_verifier.evaluation.ray_batch import RayOptions, stream_batches
from mermaid_verifier.evaluation.run_log import ResultsLog
from mermaid_verifier.models import Label
from mermaid_verifier.reader.model_check import machine_record

from .conftest import CLI, WIKI_MINI
from .fever_kit import write_claims

# ---- the driver, with stand-in workers ----------------------------------------------------------


def labelled(count: int) -> list[LabelledClaim]:
    return [LabelledClaim(id=f"c{i}", claim=f"claim {i}", label=Label.SUPPORTS) for i in range(count)]


class StandInWorker:
    """Answers ``verify.remote(batch).future()`` like a Ray actor handle; records what it was sent
    and how many of its batches were unanswered at once."""

    def __init__(self, fail_ids: frozenset[str] = frozenset(), repeat_first_row: bool = False):
        self.fail_ids, self.repeat_first_row = fail_ids, repeat_first_row
        self.sent: list[list[str]] = []
        self.unanswered: list[concurrent.futures.Future] = []
        self.most_unanswered = 0
        self.verify = self  # worker.verify.remote(...)

    def remote(self, batch: list[LabelledClaim]):
        self.sent.append([claim.id for claim in batch])
        outcomes = [
            ("failed", (claim, LLMServiceError("endpoint down")))
            if claim.id in self.fail_ids
            else ("row", {"id": claim.id})
            for claim in batch
        ]
        if self.repeat_first_row and outcomes[0][0] == "row":
            outcomes.append(outcomes[0])
        future: concurrent.futures.Future = concurrent.futures.Future()
        self.unanswered.append(future)
        self.most_unanswered = max(self.most_unanswered, len(self.unanswered))
        asyncio.get_running_loop().call_later(0.001, self._answer, future, outcomes)
        return self

    def future(self) -> concurrent.futures.Future:
        return self.unanswered[-1]

    def _answer(self, future, outcomes) -> None:
        self.unanswered.remove(future)
        future.set_result(outcomes)


async def test_claims_stream_out_in_bounded_batches_and_every_row_comes_back_once():
    workers = [StandInWorker(), StandInWorker(repeat_first_row=True)]
    rows, failed = [], []
    await stream_batches(
        workers,
        ray_batch.batches_of(labelled(23), 4),
        rows.append,
        lambda claim, error: failed.append(claim.id),
    )
    assert sorted(row["id"] for row in rows) == sorted(f"c{i}" for i in range(23))  # a repeated row counted once
    sent = [claim_id for worker in workers for batch in worker.sent for claim_id in batch]
    assert sorted(sent) == sorted(f"c{i}" for i in range(23))  # every claim sent exactly once
    assert all(len(batch) <= 4 for worker in workers for batch in worker.sent)
    assert all(worker.most_unanswered <= ray_batch.IN_FLIGHT_PER_WORKER for worker in workers)
    assert all(worker.sent for worker in workers) and not failed


async def test_a_claim_that_failed_on_a_worker_goes_to_the_failure_handler():
    rows, failed = [], []
    await stream_batches(
        [StandInWorker(fail_ids=frozenset({"c3"}))],
        ray_batch.batches_of(labelled(6), 2),
        rows.append,
        lambda claim, error: failed.append((claim.id, str(error))),
    )
    assert failed == [("c3", "endpoint down")]
    assert sorted(row["id"] for row in rows) == ["c0", "c1", "c2", "c4", "c5"]


class PacedGraph:
    """Stands in for a compiled graph: ``a-slow`` finishes only once a claim of another batch has
    started beside it; records how many claims ran at once."""

    def __init__(self):
        self.running = 0
        self.most_running = 0
        self.other_batch_started = asyncio.Event()

    async def ainvoke(self, state: dict) -> dict:
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            if state["claim"].startswith("b"):
                self.other_batch_started.set()
            if state["claim"] == "a-slow":
                await asyncio.wait_for(self.other_batch_started.wait(), timeout=5)
            await asyncio.sleep(0.01)
            return {"claim": state["claim"], "verdict": None}
        finally:
            self.running -= 1


async def test_a_worker_says_which_machine_it_runs_on_when_it_starts():
    worker = ray_batch.VerifierWorker(settings=None, concurrency=1)
    worker._verifier = PacedGraph()  # built already: start() only reports
    assert await worker.start() == machine_record()


async def test_a_workers_batches_share_its_claim_slots(monkeypatch):
    """Two batches held by one worker never run more than ``concurrency`` claims together, and the
    second batch starts in the slot the first frees at its tail rather than waiting for it."""
    monkeypatch.setattr("mermaid_verifier.evaluation.batch.result_row", lambda claim, output: {"id": claim.id})
    worker = ray_batch.VerifierWorker(settings=None, concurrency=2)
    graph = PacedGraph()
    worker._verifier = graph

    def batch(*names: str) -> list[LabelledClaim]:
        return [LabelledClaim(id=name, claim=name, label=Label.SUPPORTS) for name in names]

    first, second = await asyncio.gather(
        worker.verify(batch("a-quick", "a-slow")), worker.verify(batch("b-1", "b-2", "b-3"))
    )
    assert sorted(value["id"] for _, value in first) == ["a-quick", "a-slow"]
    assert sorted(value["id"] for _, value in second) == ["b-1", "b-2", "b-3"]
    assert graph.most_running == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"address": " "}, "--ray needs an address"),
        ({"workers": 0}, "--workers must be at least 1"),
        ({"batch_size": 0}, "--ray-batch must be at least 1"),
    ],
)
def test_ray_options_refuse_what_cannot_run(options, message):
    with pytest.raises(UsageError, match=message):
        RayOptions(**options)


def test_without_the_ray_extra_the_error_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(UsageError, match=r"mermaid-verifier\[ray\]"):
        ray_batch.import_ray()


def test_ray_only_options_without_ray_are_a_usage_error(tmp_path):
    claims = write_claims(tmp_path / "claims.jsonl", 2)
    result = subprocess.run(
        CLI + ["fever", str(claims), "--workers", "2", "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "--workers and --ray-batch go with --ray" in result.stderr


# ---- a real local Ray cluster -------------------------------------------------------------------

CLAIMS = 40


def ray_env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
        "MERMAID_SOURCES": "local",
        "RAY_AUTH_MODE": "disabled",
    }


def fever_args(claims: Path, out: Path, *extra: str) -> list[str]:
    return CLI + ["fever", str(claims), "--corpus", str(WIKI_MINI), "--out", str(out), "--no-memory", *extra]


def wait_for_rows(process: subprocess.Popen, results: Path, count: int) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= count:
            return
        time.sleep(0.02)
    stderr = process.stderr.read().decode()[-800:] if process.poll() is not None and process.stderr else ""
    pytest.fail(f"the run did not reach {count} rows while running: {stderr}")


def worker_pids() -> list[int]:
    """Processes of live Ray actors of this project (Ray names them ``ray::VerifierWorker...``)."""
    listing = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in listing.splitlines() if "ray::VerifierWorker" in line]


def verdicts(results: Path) -> dict[str, str]:
    rows = ResultsLog(results).read()
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)), "a claim was recorded twice"
    return {row["id"]: row["verdict"] for row in rows}


@pytest.fixture(scope="module")
def in_process_verdicts(tmp_path_factory) -> dict[str, str]:
    pytest.importorskip("ray", reason="needs the ray extra: pip install 'mermaid-verifier[ray]'")
    tmp_path = tmp_path_factory.mktemp("in-process")
    claims = write_claims(tmp_path / "claims.jsonl", CLAIMS)
    done = subprocess.run(
        fever_args(claims, tmp_path / "run"), env=ray_env(tmp_path), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return verdicts(tmp_path / "run" / "results.jsonl")


def start_ray_run(tmp_path: Path, workers: int) -> tuple[list[str], Path, subprocess.Popen]:
    """A ``fever --ray local`` run in its own process, returned once it has decided 4 claims."""
    claims = write_claims(tmp_path / "claims.jsonl", CLAIMS)
    out = tmp_path / "run"
    args = fever_args(
        claims, out, "--ray", "local", "--workers", str(workers), "--ray-batch", "2", "--concurrency", "1"
    )
    process = subprocess.Popen(args, env=ray_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_rows(process, out / "results.jsonl", 4)
    return args, out, process


@pytest.mark.ray
def test_a_worker_killed_mid_run_is_replaced_and_the_run_matches_the_in_process_one(tmp_path, in_process_verdicts):
    _, out, process = start_ray_run(tmp_path, workers=2)
    victims = worker_pids()
    assert len(victims) == 2, f"expected two Ray workers, found {victims}"
    os.kill(victims[0], signal.SIGKILL)
    assert process.wait(timeout=600) == 0, process.stderr.read().decode()[-800:]
    assert verdicts(out / "results.jsonl") == in_process_verdicts  # every claim once, decided as in process
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["claims"] == CLAIMS and metrics["run"]["options"]["ray"]["workers"] == 2
    # a local cluster: the workers run on the driver's machine, which the run records
    assert metrics["machines"] == [{"rows": CLAIMS, "machine": machine_record(), "ray_workers": [machine_record()]}]


@pytest.mark.ray
def test_a_driver_killed_mid_run_resumes_on_ray_without_loss_or_duplicates(tmp_path, in_process_verdicts):
    args, out, process = start_ray_run(tmp_path, workers=1)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    decided_before = len(verdicts(out / "results.jsonl"))
    assert 4 <= decided_before < CLAIMS

    resumed = subprocess.run(args + ["--resume"], env=ray_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert verdicts(out / "results.jsonl") == in_process_verdicts
    assert json.loads((out / "metrics.json").read_text())["run"]["resumed_rows"] == decided_before
