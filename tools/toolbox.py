"""MCP client side: one session per tool server for a whole run, and tool calls as plain outcomes.

A background *owner task* starts every server at once, each session in a task of its own that keeps
it open until :meth:`Toolbox.aclose`; anyio requires a transport to be closed by the task that opened
it, and graph nodes run in tasks of their own, so no node opens or closes a session itself. Calls from
any task share the sessions.

A tool that fails (``isError``, a timeout) is an *outcome* the executor reads and acts on. A server
that cannot be started, or whose connection breaks, raises :class:`ToolServerError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError
from pydantic import BaseModel

from mermaid_verifier.errors import CORPUS_UNUSABLE, CorpusError, ToolServerError
from mermaid_verifier.source_registry import BY_NAME

SessionConnector = Callable[..., AbstractAsyncContextManager[ClientSession]]


class ToolOutcome(BaseModel):
    """What one tool call returned, ready for the executor to read."""

    server: str
    tool: str
    ok: bool
    text: str
    data: dict | None = None
    origin: str | None = None  # the serving server's source id (ServerSpec.source)


@dataclass(frozen=True)
class ServerSpec:
    """A tool server and how to reach it (``connect`` yields an initialised ClientSession).

    ``source`` says what it serves, for the lookups memory remembers: ``corpus:<fingerprint>`` for
    local corpora (a changed corpus is another source), a live source's name otherwise; None: its
    lookups are not remembered. ``launches``: the server is a process of its own, and ``connect`` takes
    ``on_launch``, called once that process is running (before the MCP handshake)."""

    name: str
    connect: SessionConnector = field(compare=False)
    source: str | None = field(default=None, compare=False)
    launches: bool = field(default=False, compare=False)


def corpus_source(corpora: list[Path]) -> str | None:
    """The source id of a local-corpus server over these files (changes when a file does); None when
    a file cannot be read (the server will say why)."""
    from mermaid_verifier.tools.corpus_index import corpus_fingerprint

    try:
        return f"corpus:{corpus_fingerprint(corpora)}"
    except OSError:
        return None


def stdio_server(
    name: str, command: str, args: list[str], env: dict[str, str] | None = None, source: str | None = None
) -> ServerSpec:
    """A server started as a subprocess speaking MCP over stdio; its stderr is kept for errors."""

    @contextlib.asynccontextmanager
    async def connect(on_launch: Callable[[], None] | None = None):
        # Stdio servers start with a stripped environment; pass ours (plus overrides) explicitly.
        params = StdioServerParameters(command=command, args=args, env={**os.environ, **(env or {})})
        # Made in a thread: the first temporary file looks for a writable directory (os.getcwd and
        # test writes), which an ASGI host such as ``langgraph dev`` refuses on its event loop.
        errlog = await asyncio.to_thread(tempfile.TemporaryFile, "w+")
        with errlog:
            try:
                async with stdio_client(params, errlog=errlog) as (read, write):
                    if on_launch is not None:
                        on_launch()  # the process runs: it imports and loads while the caller goes on
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        yield session
            except BaseException as exc:
                if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt, GeneratorExit)):
                    raise
                stderr = await asyncio.to_thread(_read_from_start, errlog)
                raise ToolServerError(_server_failure(name, exc, stderr)) from exc

    return ServerSpec(name, connect, source, launches=True)


def corpus_server(corpora: list[Path], cache_dir: Path, index_backend: str | None = None) -> ServerSpec:
    """The bundled local-corpus server (``tools/servers/local_corpus_server.py``) over these corpora.

    ``index_backend`` (``auto``, ``memory``, ``tantivy``) is passed as ``--index-backend``; None leaves
    the choice to the server (``MERMAID_INDEX_BACKEND``, else auto)."""
    local = BY_NAME["local"]
    args = ["-m", local.module, "--cache-dir", str(cache_dir)]
    if index_backend is not None:
        args += ["--index-backend", index_backend]
    for path in corpora:
        args += ["--corpus", str(path)]
    return stdio_server(local.server, sys.executable, args, source=corpus_source(corpora))


def _read_from_start(file) -> str:
    file.seek(0)
    return file.read()


def _leaf_exceptions(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaf_exceptions(inner)]
    return [exc]


def _server_failure(name: str, exc: BaseException, stderr: str) -> str:
    last_stderr_line = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "")
    leaves = ", ".join(f"{type(e).__name__}: {e}" for e in _leaf_exceptions(exc))
    detail = last_stderr_line or leaves or type(exc).__name__
    return f"tool server {name!r} failed: {detail}"


def _outcome_text(result: types.CallToolResult) -> str:
    parts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    text = "\n".join(parts) if parts else json.dumps(result.structuredContent or {})
    return readable_argument_error(text) if result.isError else text


_VALIDATION = re.compile(r"Error executing tool (?P<tool>\S+): \d+ validation errors? for \w+\n(?P<body>.*)", re.S)
_PROBLEM = re.compile(r"^\s+(?P<message>.+?) \[type=[^,\]]+(?:, input_value=(?P<value>.+?))?(?:, input_type=\w+)?\]$")


def readable_argument_error(text: str) -> str:
    """FastMCP's report of arguments that fail the tool's schema (pydantic's text, with its type codes and a
    documentation URL) as one line a model can act on: ``search: invalid arguments: k: Input should be
    greater than or equal to 1 (got 0)``. Other texts are returned as they are."""
    match = _VALIDATION.match(text)
    if match is None:
        return text
    problems, field_name = [], None
    for line in match["body"].splitlines():
        if not line.strip() or line.strip().startswith("For further information"):
            continue
        problem = _PROBLEM.match(line)
        if problem is None:
            field_name = line.strip()
        else:
            got = f" (got {problem['value']})" if problem["value"] is not None else ""
            problems.append(f"{field_name}: {problem['message']}{got}")
    return f"{match['tool']}: invalid arguments: " + "; ".join(problems) if problems else text


class Toolbox:
    """Holds the MCP sessions of one run; use as ``async with Toolbox([...]) as toolbox``."""

    def __init__(self, servers: list[ServerSpec], call_timeout_s: float = 20.0):
        names = [s.name for s in servers]
        if len(set(names)) != len(names):
            raise ToolServerError(f"tool server names must be unique, got {names}")
        self.servers = servers
        self.sources: dict[str, str | None] = {s.name: s.source for s in servers}  # see ServerSpec.source
        self.call_timeout_s = call_timeout_s
        self._sessions: dict[str, ClientSession] = {}
        self.tools: dict[str, dict[str, types.Tool]] = {}
        self._owner: asyncio.Task | None = None
        self._ready = asyncio.Event()
        self.launched = asyncio.Event()  # set once every server process runs, or the start has ended (see start)
        self._closing = asyncio.Event()
        self._startup_error: BaseException | None = None
        self._start_lock = asyncio.Lock()

    async def __aenter__(self) -> Toolbox:
        await self.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Start every server (once); raises :class:`ToolServerError` if one cannot start."""
        async with self._start_lock:
            if self._owner is None:
                self._owner = asyncio.create_task(self._own_sessions(), name="mcp-session-owner")
        await self._ready.wait()
        if self._startup_error is not None:
            raise self._startup_error

    async def _own_sessions(self) -> None:
        """Every server started at once, each session owned by a task of its own (a transport is closed by the
        task that opened it); ready when all are, in the servers' order. When one fails to start, the others are
        stopped and its error, naming it, is the start's (the first to fail, not one stopped after it)."""
        unlaunched = {spec.name for spec in self.servers if spec.launches}  # processes not yet running
        opened: dict[str, tuple[ClientSession, dict[str, types.Tool]]] = {}
        failures: list[ToolServerError] = []  # in the order they came: a server stopped because another
        # failed may fail in turn as it is stopped (its connection closed), and must not be named for it

        def launched(name: str) -> None:
            unlaunched.discard(name)
            if not unlaunched:
                self.launched.set()

        async def own(spec: ServerSpec) -> None:
            try:
                if spec.launches:
                    connecting = spec.connect(on_launch=lambda: launched(spec.name))
                else:
                    connecting = spec.connect()
                async with connecting as session:
                    listed = await session.list_tools()
                    opened[spec.name] = (session, {tool.name: tool for tool in listed.tools})
                    if len(opened) == len(self.servers):
                        for server in self.servers:
                            self._sessions[server.name], self.tools[server.name] = opened[server.name]
                        self._ready.set()
                    await self._closing.wait()
            except ToolServerError as exc:
                failures.append(exc)
                raise
            except Exception as exc:  # in-process connectors raise the SDK's own errors
                failures.append(ToolServerError(_server_failure(spec.name, exc, "")))
                raise failures[-1] from exc

        if not unlaunched:
            self.launched.set()
        try:
            async with asyncio.TaskGroup() as group:
                for spec in self.servers:
                    group.create_task(own(spec), name=f"mcp-session:{spec.name}")
        except BaseExceptionGroup:
            if not failures:
                raise
            self._startup_error = failures[0]
        finally:
            self._sessions.clear()
            self.launched.set()
            self._ready.set()

    async def aclose(self) -> None:
        if self._owner is None:
            return
        self._closing.set()
        with contextlib.suppress(ToolServerError):  # a start-up failure was already raised by start()
            await self._owner
        self._owner = None

    def has_tool(self, server: str, tool: str) -> bool:
        return tool in self.tools.get(server, {})

    async def call(self, server: str, tool: str, arguments: dict) -> ToolOutcome:
        """Call one tool; tool-level failures come back as ``ok=False`` with a readable text."""
        await self.start()
        session = self._sessions.get(server)
        if session is None or not self.has_tool(server, tool):
            known = ", ".join(f"{s}.{t}" for s in self.tools for t in self.tools[s]) or "none"
            return ToolOutcome(server=server, tool=tool, ok=False, text=f"no tool {server}.{tool}; available: {known}")
        try:
            result = await session.call_tool(
                tool, arguments, read_timeout_seconds=timedelta(seconds=self.call_timeout_s)
            )
        except McpError as exc:
            # The SDK reports a read timeout (and protocol-level refusals) as McpError.
            return ToolOutcome(server=server, tool=tool, ok=False, text=f"{tool} failed: {exc.error.message}")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise ToolServerError(f"tool server {server!r} closed its connection during {tool}") from exc
        text = _outcome_text(result)
        if result.isError and CORPUS_UNUSABLE in text:  # no claim can be checked: the run stops, saying why
            raise CorpusError(text[text.index(CORPUS_UNUSABLE) + len(CORPUS_UNUSABLE) :].strip())
        return ToolOutcome(
            server=server,
            tool=tool,
            origin=self.sources.get(server),
            ok=not result.isError,
            text=text,
            data=result.structuredContent if not result.isError else None,
        )
