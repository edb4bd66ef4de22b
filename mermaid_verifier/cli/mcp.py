"""``mermaid-verifier mcp``: the verifier as an MCP server (stdio for a host that starts it, or streamable HTTP)."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import Annotated

import typer

from mermaid_verifier.cli.options import SettingsOptions, guarded, takes_options, text_job_started_early
from mermaid_verifier.cli.serve import LimitOptions, ListenOptions, serve_app


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


@takes_options
def mcp_command(
    transport: TransportOpt = Transport.stdio,
    *,
    listen: ListenOptions,
    options: SettingsOptions,
    limit_options: LimitOptions,
) -> None:
    """Serve the verifier as an MCP server: tools verify_claim, check_text and check_grounding."""

    def body() -> None:
        if transport is Transport.http:
            listen.check()  # said at once, before anything heavy is imported
        settings = options.settings()
        if transport is Transport.http:
            with listen.bind() as listener:
                asyncio.run(_serve_http(listener, settings, limit_options, listen))
        else:
            asyncio.run(_serve_stdio(settings, limit_options))

    guarded(options.debug, body)


async def _serve_stdio(settings, limit_options: LimitOptions) -> None:
    # the resources open before the first message is read: a corpus, model or tool server that cannot start is
    # this command's error (one line on stderr, non-zero exit), never a server that answers and then fails
    async with text_job_started_early(settings) as checker:
        from mermaid_verifier.service.mcp_server import create_server

        limits = limit_options.limits()  # imports the service package, so after the servers' start
        server = create_server(settings, limits=limits, checker=checker)
        await server.run_stdio_async()


async def _serve_http(listener, settings, limit_options: LimitOptions, listen: ListenOptions) -> None:
    async with text_job_started_early(settings) as checker:
        from mermaid_verifier.service.mcp_server import create_server, http_app

        limits = limit_options.limits()  # imports the service package, so after the servers' start
        server = create_server(settings, limits=limits, checker=checker, host=listen.host, port=listen.port)
        app = http_app(server, token=listen.token, limits=limits)
        announce = f"MCP (streamable HTTP) on {listen.url}mcp; Ctrl-C stops"
        await serve_app(app, listener, listen, announce)
