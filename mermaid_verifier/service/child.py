"""``mermaid-verifier serve`` (or ``mcp --transport http``) in a child process on a free loopback port, started and
stopped as one unit.

For whatever talks to the service over real HTTP from the same machine (the end-to-end tests, the load
benchmark): ``with serve_in_child(["--corpus", path]) as base: httpx.get(f"{base}/healthz")``. The block is
entered once the service answers ``/healthz``; on leaving it, on every path, the process is terminated (killed
if it does not stop) and waited for. A service that exits or stays silent while starting raises
``ServiceStartError`` with its exit code and what it wrote to stderr.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping

import httpx

from mermaid_verifier.errors import ServiceStartError

COMMAND = [sys.executable, "-c", "from mermaid_verifier.cli import main; main()"]
SERVE = [*COMMAND, "serve"]
MCP_HTTP = [*COMMAND, "mcp", "--transport", "http"]


def free_port() -> int:
    """A TCP port nothing listens on at the moment of asking (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(url: str, healthy_only: bool) -> bool:
    try:
        status = httpx.get(url, timeout=2).status_code
    except httpx.TransportError:
        return False
    return status == 200 if healthy_only else status < 500


@contextlib.contextmanager
def serve_in_child(
    options: list[str],
    *,
    env: Mapping[str, str] | None = None,
    ready_within_s: float = 120.0,
    stop_within_s: float = 30.0,
    command: list[str] = SERVE,
) -> Iterator[str]:
    """Run ``mermaid-verifier serve --port PORT *options`` (or ``command``, e.g. :data:`MCP_HTTP`) and yield its base
    URL once it answers: ``/healthz`` healthy for ``serve``, any HTTP answer at ``/mcp`` for the MCP server."""
    port = free_port()
    serving = command == SERVE
    probe = "/healthz" if serving else "/mcp"
    # stderr goes to a file, not a pipe: a service that logs while nobody reads must never block on a full pipe
    with tempfile.TemporaryFile("w+") as stderr:
        process = subprocess.Popen(
            [*command, "--port", str(port), *options],
            env=dict(env) if env is not None else None,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + ready_within_s
            while not _answers(base + probe, healthy_only=serving):
                if process.poll() is not None:
                    stderr.seek(0)
                    raise ServiceStartError(f"serve exited with {process.returncode}: {stderr.read().strip()}")
                if time.monotonic() > deadline:
                    raise ServiceStartError(f"serve did not answer {base}{probe} within {ready_within_s:g} s")
                time.sleep(0.3)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=stop_within_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
