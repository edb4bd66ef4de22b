"""``mermaid-verifier mcp``: the verifier as an MCP server (stdio for a host that starts it, or streamable HTTP)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from mermaid_verifier.cli.options import (
    CacheDirOpt,
    CorpusOpt,
    DebugOpt,
    MaxStepsOpt,
    MemoryUrlOpt,
    NoMemoryOpt,
    guarded,
    run_settings,
)
from mermaid_verifier.cli.serve import (
    HostOpt,
    MaxClaimsOpt,
    MaxConcurrentOpt,
    NoAuthOpt,
    PortOpt,
    TimeoutOpt,
    TokenOpt,
    base_url,
    check_bind,
    listening_socket,
    serve_app,
)


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


TransportOpt = Annotated[
    Transport,
    typer.Option(
        "--transport",
        help="stdio (default: an MCP host such as Claude Desktop or Cursor starts the command) or http "
        "(streamable HTTP at /mcp, under serve's safe defaults).",
    ),
]


def mcp_command(
    transport: TransportOpt = Transport.stdio,
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8000,
    token: TokenOpt = None,
    no_auth: NoAuthOpt = False,
    corpus: CorpusOpt = None,
    no_memory: NoMemoryOpt = False,
    memory_url: MemoryUrlOpt = None,
    cache_dir: CacheDirOpt = None,
    max_steps: MaxStepsOpt = None,
    max_concurrent: MaxConcurrentOpt = 4,
    max_claims: MaxClaimsOpt = 60,
    timeout: TimeoutOpt = 300.0,
    debug: DebugOpt = False,
) -> None:
    """Serve the verifier as an MCP server: tools verify_claim, check_text and check_grounding."""

    def body() -> None:
        if transport is Transport.http:
            check_bind(host, token, no_auth)  # said at once, before anything heavy is imported
        settings = run_settings(
            corpus=corpus,
            no_memory=no_memory,
            cache_dir=cache_dir,
            max_steps=max_steps,
            debug=debug,
            memory_url=memory_url,
        )
        import asyncio

        from mermaid_verifier.service.limits import Limits

        limits = Limits(max_concurrent=max_concurrent, max_claims=max_claims, request_timeout_s=timeout)
        if transport is Transport.http:
            with listening_socket(host, port) as listener:
                asyncio.run(_serve_http(listener, settings, limits, host, port, token))
        else:
            asyncio.run(_serve_stdio(settings, limits))

    guarded(debug, body)


async def _serve_stdio(settings, limits) -> None:
    from mermaid_verifier.service.mcp_server import create_server
    from mermaid_verifier.text_graph import TextChecker

    # the resources open before the first message is read: a corpus, model or tool server that cannot start is
    # this command's error (one line on stderr, non-zero exit), never a server that answers and then fails
    async with TextChecker.open(settings) as checker:
        server = create_server(settings, limits=limits, checker=checker)
        await server.run_stdio_async()


async def _serve_http(listener, settings, limits, host: str, port: int, token: str | None) -> None:
    from mermaid_verifier.service.mcp_server import create_server, http_app
    from mermaid_verifier.text_graph import TextChecker

    async with TextChecker.open(settings) as checker:
        server = create_server(settings, limits=limits, checker=checker, host=host, port=port)
        app = http_app(server, token=token, limits=limits)
        announce = f"MCP (streamable HTTP) on {base_url(host, port)}mcp; Ctrl-C stops"
        await serve_app(app, listener, host, port, announce)
