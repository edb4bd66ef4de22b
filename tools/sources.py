"""Which evidence sources a run uses, and the MCP servers that serve them.

``MERMAID_SOURCES`` (comma-separated; default ``wikipedia,arxiv,pubmed,local``; parsed in
``config.parse_sources``) chooses them.
``local`` is the local-corpus server over ``--corpus`` files (or the default corpus); the live ones
are started only when the network answers: when it does not, the run says so once and goes on with
what is reachable.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from mermaid_verifier.source_registry import BY_NAME
from mermaid_verifier.tools.toolbox import ServerSpec, Toolbox, corpus_server, stdio_server

T = TypeVar("T")
LAUNCH_WAIT_S = 5.0  # the most an early start waits for its server processes to be running


@dataclass(frozen=True)
class SourcePlan:
    servers: list[ServerSpec]
    skipped: dict[str, str]  # source -> why it is not used in this run


def reachable(host: str, timeout_s: float = 1.5) -> bool:
    """Whether ``host`` resolves and accepts a TCP connection on 443 within ``timeout_s``."""
    try:
        with socket.create_connection((host, 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def reachable_hosts(hosts: list[str], probe=None) -> dict[str, bool]:
    """Probe several hosts at once (threads), so an offline run waits for the slowest, not the sum."""
    probe = probe or reachable
    with ThreadPoolExecutor(max_workers=max(len(hosts), 1)) as pool:
        return dict(zip(hosts, pool.map(probe, hosts)))


def plan_sources(
    sources: tuple[str, ...],
    local_corpora: list[Path],
    index_cache_dir: Path,
    cache_dir: Path,
    probe=reachable,
    index_backend: str | None = None,
) -> SourcePlan:
    """Server specs for the chosen sources; live ones only when their host answers."""
    servers, skipped = [], {}
    up = reachable_hosts([host for n in sources if (host := BY_NAME[n].host)], probe)
    for name in sources:
        if name == "local":
            servers.append(corpus_server(local_corpora, index_cache_dir, index_backend))
            continue
        module, host = BY_NAME[name].module, BY_NAME[name].host
        if host is None or not up[host]:
            skipped[name] = f"{host} is unreachable"
            continue
        servers.append(
            stdio_server(name, sys.executable, ["-m", module, "--cache-dir", str(cache_dir / "sources")], source=name)
        )
    return SourcePlan(servers, skipped)


def toolbox_for(settings, stop: threading.Event | None = None) -> tuple[Toolbox, dict[str, str]]:
    """The toolbox for a run's chosen sources (not yet started), and the sources left out and why. Blocking: the
    default corpus is converted on first use (seconds) and the live sources' hosts are probed; a set ``stop``
    ends the conversion early (:class:`~mermaid_verifier.tools.corpora.ConversionStopped`)."""
    from mermaid_verifier.errors import ConfigError
    from mermaid_verifier.tools.corpora import resolve_corpora
    from mermaid_verifier.tools.toolbox import Toolbox

    corpora = resolve_corpora(settings.corpora, settings.cache_dir, stop) if "local" in settings.sources else []
    plan = plan_sources(
        settings.sources, corpora, settings.index_cache_dir, settings.cache_dir, index_backend=settings.index_backend
    )
    if not plan.servers:
        raise ConfigError("no evidence source is reachable: " + "; ".join(f"{k}: {v}" for k, v in plan.skipped.items()))
    return Toolbox(plan.servers, settings.tool_timeout_s), plan.skipped


async def stoppable(work: Callable[[threading.Event], T]) -> T:
    """``work(stop)`` in a worker thread, so that the event loop (and with it Ctrl-C) is not held while it runs.
    Cancelled, it sets ``stop`` and waits for the thread, which ends soon after (the default corpus's conversion
    stops at its next summary, having written nothing), then passes the cancellation on."""
    stop = threading.Event()
    running = asyncio.ensure_future(asyncio.to_thread(work, stop))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait([running])
        if not running.cancelled():
            running.exception()  # ConversionStopped, or what the thread ended with: the cancellation is what matters
        raise


async def toolbox_in_thread(settings) -> tuple[Toolbox, dict[str, str]]:
    """:func:`toolbox_for` off the event loop, stopping a first run's conversion when cancelled (:func:`stoppable`)."""
    return await stoppable(functools.partial(toolbox_for, settings))


async def corpora_ready(settings) -> None:
    """The default corpus converted if the run searches it and a first run has not yet done it, off the event loop
    and stopping when cancelled (:func:`stoppable`): what then builds the toolbox in a thread of its own
    (``Resources.create``) finds it ready. The user's own corpora are checked there, once."""
    if "local" in settings.sources and not settings.corpora:
        from mermaid_verifier.tools.corpora import default_corpus

        await stoppable(functools.partial(default_corpus, settings.cache_dir))


@contextlib.asynccontextmanager
async def toolbox_started_early(settings) -> AsyncIterator[tuple[Toolbox, dict[str, str], asyncio.Task]]:
    """The run's toolbox with its servers already starting: their processes import and load their indexes on
    the other core while the caller imports the graph, the parser and the stance model (a cold ``verify`` is
    ~1.5 s shorter). Yields the toolbox, the sources left out (and why) and the starting task, for
    ``graph.open_pipeline`` (as ``Overrides(toolbox=…, early_start=…)``); a start-up failure is raised there, once. The task is
    finished and the toolbox closed on leaving, on every path."""
    from mermaid_verifier.errors import ToolServerError

    toolbox, skipped = await toolbox_in_thread(settings)

    async def start_quietly() -> None:
        with contextlib.suppress(ToolServerError):  # open_pipeline raises it again, once, with its message
            await toolbox.start()

    task = asyncio.create_task(start_quietly())
    # Until the server processes run: the caller's imports then hold the loop for seconds, and a process
    # not yet spawned (its error log is made in a thread first) would only start after them.
    try:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(toolbox.launched.wait(), LAUNCH_WAIT_S)
        yield toolbox, skipped, task
    finally:
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await toolbox.aclose()
