"""What every live-source server process shares: :func:`run_source_call` (a blocking call in a worker thread
within the tool call's time limit, any failure one ``ToolError`` line), the command line (:func:`serve_command_line`)
and the stdio loop.

Nothing here prints; logs go to the ``mermaid_verifier.tools`` loggers (stderr in the servers).
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.fastmcp.exceptions import ToolError

from mermaid_verifier.tools.servers.server_logging import add_log_level_option, configure_logging
from mermaid_verifier.tools.servers.source_cache import ResponseCache
from mermaid_verifier.tools.servers.source_errors import UNEXPECTED_RESPONSE, describe_error
from mermaid_verifier.tools.servers.source_http import (
    DEFAULT_CACHE_EXPIRE_S,
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    T,
    contact_from_env,
    warn_without_contact,
)

logger = logging.getLogger(__name__)


async def run_source_call(
    what: str,
    label: str,
    func: Callable[..., T],
    *args: Any,
    call_timeout_s: float,
    timeout_s: float | None = None,
    host: str | None = None,
    log: logging.Logger = logger,
) -> T:
    """Run blocking ``func(*args)`` in a worker thread within ``call_timeout_s``; any failure
    becomes a ``ToolError`` with one line (see :func:`describe_error`)."""

    def guarded():
        # exceptions come back as values, so that a TimeoutError from a socket is not mistaken
        # for this call's own deadline
        try:
            return True, func(*args)
        except Exception as exc:  # noqa: BLE001 - described below
            return False, exc

    try:
        with anyio.fail_after(call_timeout_s):
            ok, value = await anyio.to_thread.run_sync(guarded, abandon_on_cancel=True)
    except TimeoutError:
        log.warning("%s gave up after %gs", what, call_timeout_s)
        raise ToolError(f"{what} gave up after {call_timeout_s:g}s: {label} is answering too slowly") from None
    if not ok:
        message = describe_error(label, value, timeout_s=timeout_s, host=host)
        unexpected = isinstance(value, UNEXPECTED_RESPONSE)
        log.warning("%s failed: %s", what, message, exc_info=value if unexpected else None)
        raise ToolError(message)
    return value


# ----------------------------------------------------------------------------- command line


def default_cache_dir() -> Path:
    env = os.environ.get("MERMAID_CACHE_DIR", "").strip()
    if env:
        return Path(env) / "sources"
    import platformdirs

    return Path(platformdirs.user_cache_dir("mermaid-verifier")) / "sources"


def argument_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="Where answers are cached (JSON, 7 days). Default: $MERMAID_CACHE_DIR/sources or "
        "<user cache dir>/mermaid-verifier/sources.",
    )
    parser.add_argument("--no-cache", action="store_true", help="Do not read or write the response cache.")
    parser.add_argument(
        "--cache-days",
        type=float,
        default=DEFAULT_CACHE_EXPIRE_S / 86400,
        help="Days a cached answer stays valid (default 7).",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"Seconds allowed per HTTP request (default {DEFAULT_TIMEOUT_S:g}).",
    )
    parser.add_argument(
        "--call-timeout",
        type=float,
        default=DEFAULT_CALL_TIMEOUT_S,
        help=f"Seconds allowed per tool call, retries included (default {DEFAULT_CALL_TIMEOUT_S:g}).",
    )
    add_log_level_option(parser)
    return parser


def check_common_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    for name in ("timeout", "call_timeout", "cache_days"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")


def cache_from_args(args: argparse.Namespace) -> ResponseCache | None:
    if args.no_cache:
        return None
    return ResponseCache(args.cache_dir or default_cache_dir(), expire_s=args.cache_days * 86400)


def run_stdio(server) -> None:
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass


def serve_command_line(
    parser: argparse.ArgumentParser,
    argv: list[str] | None,
    create_server: Callable[..., Any],
    log: logging.Logger,
    *,
    check: Callable[[argparse.Namespace], str | None] | None = None,
    options: Callable[[argparse.Namespace], dict[str, Any]] | None = None,
) -> None:
    """A live-source server's ``main``: parse ``argv`` and check it (the options every server has, then ``check``,
    which says what is wrong with the server's own, or None), log to stderr at the level asked for, say once when
    no contact is set, and serve ``create_server(cache, timeout_s=, call_timeout_s=, **options(args))`` over stdio.
    ``options`` is called once logging is set up, so that what it logs is seen."""
    args = parser.parse_args(argv)
    check_common_args(parser, args)
    problem = check(args) if check is not None else None
    if problem is not None:
        parser.error(problem)
    configure_logging(args.log_level)
    warn_without_contact(contact_from_env(), log)
    extra = options(args) if options is not None else {}
    server = create_server(cache_from_args(args), timeout_s=args.timeout, call_timeout_s=args.call_timeout, **extra)
    run_stdio(server)


def source_server(
    name: str,
    instructions: str,
    cache: ResponseCache | None,
    label: str,
    host: str,
    call_timeout_s: float,
    timeout_s: float,
    log: logging.Logger,
):
    """The FastMCP server every live source shares (its response cache closed when the server stops),
    and ``run(what, func, *args)``: a blocking client call made under the source's timeouts."""
    from contextlib import asynccontextmanager

    from mcp.server.fastmcp import FastMCP

    @asynccontextmanager
    async def lifespan(_: FastMCP):
        try:
            yield None
        finally:
            if cache is not None:
                cache.close()

    server = FastMCP(name, instructions=instructions, lifespan=lifespan, log_level="WARNING")

    async def run(what: str, func, *args):
        return await run_source_call(
            what, label, func, *args, call_timeout_s=call_timeout_s, timeout_s=timeout_s, host=host, log=log
        )

    return server, run
