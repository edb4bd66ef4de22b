"""Batch verification on a Ray cluster: ``mermaid-verifier fever --ray ADDRESS``.

Each Ray worker is an actor that builds the verification graph once (tool servers, stance model,
memory) and then verifies the batches of claims it is sent. The driver streams the claims out in
bounded batches (at most ``IN_FLIGHT_PER_WORKER`` per worker, so a million-claim file is never
shipped at once) and hands every result to the same ``on_result`` the in-process batch uses: rows
reach ``results.jsonl`` through the driver alone, so the resume guarantee is the log's own.

What a crash costs:
* a worker killed mid-batch is restarted by Ray and its batch retried (``WORKER_RESTARTS`` times),
  so its claims are decided once, by the retry;
* the driver killed mid-run loses only batches not yet written; ``--resume`` verifies them again.

Ray is imported only here, and only when a run asks for it (the ``ray`` extra).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mermaid_verifier.config import Settings
from mermaid_verifier.errors import BatchWorkerError, MermaidError, UsageError
from mermaid_verifier.evaluation.datasets import LabelledClaim

logger = logging.getLogger(__name__)

LOCAL = "local"  # --ray local: start a cluster on this machine for the run
DEFAULT_BATCH_SIZE = 8  # claims sent to a worker at a time (--ray-batch)
IN_FLIGHT_PER_WORKER = 2  # batches a worker holds at once; they share its claim slots, so none idles at a batch's tail
WORKER_RESTARTS = 3
LOCAL_OBJECT_STORE_BYTES = 256 * 1024 * 1024  # results are small JSON rows; Ray's default takes 30 % of RAM
FORWARDED_ENV_PREFIXES = ("MERMAID_", "OPENAI_")  # settings a remote worker's own code reads from its environment


@dataclass(frozen=True)
class RayOptions:
    """Where the batch runs: ``address`` is ``local`` (a cluster started for this run), ``auto`` (the
    cluster this machine belongs to) or a head node's ``host:port`` / ``ray://host:port``."""

    address: str = LOCAL
    workers: int | None = None  # None: one per CPU the cluster has
    batch_size: int = DEFAULT_BATCH_SIZE

    def __post_init__(self) -> None:
        if not self.address.strip():
            raise UsageError("--ray needs an address: local, auto, or the head node's host:port")
        if self.workers is not None and self.workers < 1:
            raise UsageError(f"--workers must be at least 1, got {self.workers}")
        if self.batch_size < 1:
            raise UsageError(f"--ray-batch must be at least 1, got {self.batch_size}")


# ---- the worker ---------------------------------------------------------------------------------

Outcome = tuple[str, Any]  # ("row", result row) or ("failed", (claim, error))


class VerifierWorker:
    """A Ray actor's body: one graph, built on first use and kept for every batch.

    Ray restarts a killed worker by constructing it again, so the graph is built lazily (``verify``
    works on a fresh instance without ``start`` being called first). Batches held at once run side by
    side but share ``concurrency`` claim slots: when one batch is down to its last claim, the next
    batch's claims take the free slot, as in the in-process batch's single pool."""

    def __init__(self, settings: Settings, concurrency: int):
        self.settings, self.concurrency = settings, concurrency
        self._stack: contextlib.AsyncExitStack | None = None
        self._verifier = None
        self._slots: asyncio.Semaphore | None = None  # made in the actor's own event loop
        self._building: asyncio.Lock | None = None

    async def start(self) -> dict:
        """Build the graph now, so a broken setup shows before any claim is sent; the machine the worker
        runs on (on a cluster of several machines it may not be the driver's)."""
        from mermaid_verifier.reader.model_check import machine_record

        await self._graph()
        return machine_record()

    def _claim_slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.concurrency)
        return self._slots

    async def _graph(self):
        if self._building is None:
            self._building = asyncio.Lock()
        async with self._building:  # two first batches arriving together build one graph
            if self._verifier is None:
                from mermaid_verifier.graph import open_verifier

                stack = contextlib.AsyncExitStack()
                self._verifier = await stack.enter_async_context(open_verifier(self.settings))
                self._stack = stack
        return self._verifier

    async def verify(self, claims: list[LabelledClaim]) -> list[Outcome]:
        """Each claim's result row, or its failure (a :class:`MermaidError`) to be set aside."""
        from mermaid_verifier.evaluation.batch import verify_labelled

        outcomes: list[Outcome] = []
        await verify_labelled(
            await self._graph(),
            claims,
            self.concurrency,
            on_result=lambda row: outcomes.append(("row", row)),
            on_failure=lambda claim, error: outcomes.append(("failed", (claim, error))),
            slots=self._claim_slots(),
        )
        return outcomes

    async def close(self) -> None:
        """Close the graph's resources (tool-server processes, memory connections)."""
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = self._verifier = None


# ---- the driver ---------------------------------------------------------------------------------


def import_ray():
    try:
        import ray
    except ImportError:
        raise UsageError("batches on Ray need the ray extra: pip install 'mermaid-verifier[ray]'") from None
    return ray


def batches_of(claims: list[LabelledClaim], size: int) -> Iterator[list[LabelledClaim]]:
    for start in range(0, len(claims), size):
        yield claims[start : start + size]


def forwarded_environment() -> dict[str, str]:
    """The driver's ``MERMAID_*`` / ``OPENAI_*`` variables, for workers on other machines."""
    return {name: value for name, value in os.environ.items() if name.startswith(FORWARDED_ENV_PREFIXES)}


def connect(ray, address: str) -> bool:
    """Join (or, for ``local``, start) the cluster; True when this call started it. Blocking: run in a thread."""
    common: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING, "include_dashboard": False}
    try:
        if address == LOCAL:
            ray.init(object_store_memory=LOCAL_OBJECT_STORE_BYTES, **common)
            return True
        ray.init(address=address, runtime_env={"env_vars": forwarded_environment()}, **common)
        return False
    except ConnectionError as exc:
        raise BatchWorkerError(f"cannot reach the Ray cluster at {address}: {exc}") from None


def cluster_cpus(ray) -> int:
    return int(ray.cluster_resources().get("CPU", 0))


def check_memory_is_shared(ray, settings: Settings) -> None:
    """A local memory directory is one machine's: on a cluster of several, workers need a shared one."""
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    if len(nodes) > 1 and settings.use_memory and not settings.memory_url:
        raise UsageError(
            f"the Ray cluster has {len(nodes)} machines and the evidence memory is a local directory; "
            "give a shared one with --memory-url postgresql://… or run with --no-memory"
        )


def worker_count(ray, wanted: int | None) -> int:
    cpus = cluster_cpus(ray)
    if wanted is None:
        return max(cpus, 1)
    if wanted > cpus:
        raise UsageError(f"--workers {wanted} asks for more workers than the Ray cluster has CPUs ({cpus})")
    return wanted


def actor_failure(ray, exc: Exception) -> MermaidError:
    """The error to stop the run with: a :class:`MermaidError` raised inside a worker as itself,
    a worker lost for good as a :class:`BatchWorkerError`."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, MermaidError):
        return cause
    if isinstance(exc, ray.exceptions.RayActorError):
        return BatchWorkerError(
            f"a Ray worker died {WORKER_RESTARTS + 1} times ({type(exc).__name__}); decided claims are kept: "
            "see the worker logs under the Ray session directory (/tmp/ray/session_latest/logs) and rerun with --resume"
        )
    return BatchWorkerError(f"a Ray worker failed: {type(exc).__name__}: {exc}; rerun with --resume")


async def verify_on_ray(
    settings: Settings,
    claims: list[LabelledClaim],
    concurrency: int,
    options: RayOptions,
    on_result: Callable[[dict], None],
    on_failure: Callable[[LabelledClaim, MermaidError], None],
) -> list[dict]:
    """Verify ``claims`` on Ray workers; every row goes to ``on_result`` here, in the driver. Returns the
    machines the workers started on, each once (a worker Ray restarts elsewhere is not among them)."""
    ray = import_ray()
    started_cluster = await asyncio.to_thread(connect, ray, options.address)
    workers: list = []
    try:
        check_memory_is_shared(ray, settings)
        actor = ray.remote(num_cpus=1, max_restarts=WORKER_RESTARTS, max_task_retries=WORKER_RESTARTS)(
            VerifierWorker
        ).options(max_concurrency=IN_FLIGHT_PER_WORKER)
        workers = [actor.remote(settings, concurrency) for _ in range(worker_count(ray, options.workers))]
        try:
            started = await asyncio.gather(*(worker.start.remote() for worker in workers))
            await stream_batches(workers, batches_of(claims, options.batch_size), on_result, on_failure)
        except ray.exceptions.RayError as exc:  # RayActorError and RayTaskError among them
            raise actor_failure(ray, exc) from None
        return [machine for number, machine in enumerate(started) if machine not in started[:number]]
    finally:
        await close_workers(ray, workers)
        if started_cluster:
            await asyncio.to_thread(ray.shutdown)


async def stream_batches(
    workers: list,
    batches: Iterator[list[LabelledClaim]],
    on_result: Callable[[dict], None],
    on_failure: Callable[[LabelledClaim, MermaidError], None],
) -> None:
    """Keep every worker ``IN_FLIGHT_PER_WORKER`` batches deep until the claims run out; pass on
    each batch's outcomes as it comes back."""
    waiting = deque(batches)
    running: dict[asyncio.Future, Any] = {}
    decided: set[str] = set()

    def send(worker) -> None:
        if waiting:
            future = asyncio.wrap_future(worker.verify.remote(waiting.popleft()).future())
            running[future] = worker

    for worker in workers:
        for _ in range(IN_FLIGHT_PER_WORKER):
            send(worker)
    while running:
        done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        for future in done:
            worker = running.pop(future)
            for kind, value in future.result():
                if kind == "row" and value["id"] not in decided:
                    decided.add(value["id"])
                    on_result(value)
                elif kind == "failed":
                    on_failure(*value)
            send(worker)


async def close_workers(ray, workers: list) -> None:
    """Let each worker close its graph, then end it; a worker already gone is simply ended."""
    if not workers:
        return
    closing = [asyncio.wrap_future(worker.close.remote().future()) for worker in workers]
    for outcome in await asyncio.gather(*closing, return_exceptions=True):
        if isinstance(outcome, Exception):  # a dead worker has nothing left to close; say so and go on
            logger.warning("a Ray worker could not close its graph: %s: %s", type(outcome).__name__, outcome)
    for worker in workers:
        ray.kill(worker)
