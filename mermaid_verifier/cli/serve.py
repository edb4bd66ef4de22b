"""``mermaid-verifier serve``: the HTTP service and its web page."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
from typing import Annotated

import typer

from mermaid_verifier.cli.options import SettingsOptions, guarded, stderr, takes_options, text_job_started_early
from mermaid_verifier.errors import UsageError

HostOpt = Annotated[
    str, typer.Option("--host", help="Address to listen on; beyond 127.0.0.1 needs --token or --no-auth.")
]
PortOpt = Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")]
TokenOpt = Annotated[
    str | None,
    typer.Option(
        "--token", envvar="MERMAID_TOKEN", help="Bearer token every API request must send (env MERMAID_TOKEN)."
    ),
]
NoAuthOpt = Annotated[bool, typer.Option("--no-auth", help="Serve beyond this machine without a token.")]
MaxConcurrentOpt = Annotated[int, typer.Option("--max-concurrent", min=1, max=64, help="Checks at once (429 beyond).")]
MaxClaimsOpt = Annotated[int, typer.Option("--max-claims", min=1, max=1000, help="Claims per text.")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", min=1, help="Seconds a request may take.")]


LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def check_bind(host: str, token: str | None, no_auth: bool) -> None:
    """A :class:`UsageError` when the service would listen beyond this machine without a token."""
    if host not in LOOPBACK and token is None and not no_auth:
        raise UsageError(
            f"--host {host} lets other machines in: give --token TOKEN (clients send 'Authorization: Bearer TOKEN')"
            " or, to serve without one, --no-auth"
        )


def listening_socket(host: str, port: int) -> socket.socket:
    """The service's socket, bound before anything else starts: an address in use or not this machine's is a
    usage error naming it, not a server that logs and exits."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        reason = error.strerror or str(error)
        raise UsageError(f"cannot listen on {host}:{port}: {reason.lower()}; choose another --port or --host") from None
    return listener


def base_url(host: str, port: int) -> str:
    """The URL a listener on ``host``:``port`` answers at (an IPv6 address in brackets)."""
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"


@dataclasses.dataclass(frozen=True)
class ListenOptions:
    """Where ``serve`` (and ``mcp --transport http``) listens, and the token a client must send."""

    host: HostOpt = "127.0.0.1"
    port: PortOpt = 8000
    token: TokenOpt = None
    no_auth: NoAuthOpt = False

    def check(self) -> None:
        """A :class:`UsageError` when the service would listen beyond this machine without a token."""
        check_bind(self.host, self.token, self.no_auth)

    def bind(self) -> socket.socket:
        return listening_socket(self.host, self.port)

    @property
    def url(self) -> str:
        return base_url(self.host, self.port)


@dataclasses.dataclass(frozen=True)
class LimitOptions:
    """How much the service takes on: checks at once, claims per text, seconds per request."""

    max_concurrent: MaxConcurrentOpt = 4
    max_claims: MaxClaimsOpt = 60
    timeout: TimeoutOpt = 300.0

    def limits(self):
        from mermaid_verifier.service.limits import Limits  # the service package imports the web framework

        return Limits(max_concurrent=self.max_concurrent, max_claims=self.max_claims, request_timeout_s=self.timeout)


async def serve_app(app, listener: socket.socket, listen: ListenOptions, announce: str) -> None:
    """Serve an ASGI app with uvicorn on the socket already bound, after saying ``announce`` on stderr."""
    import uvicorn

    config = uvicorn.Config(app, host=listen.host, port=listen.port, log_level="warning", timeout_graceful_shutdown=10)
    stderr.print(announce, highlight=False, soft_wrap=True)
    await uvicorn.Server(config).serve(sockets=[listener])


@takes_options
def serve_command(*, listen: ListenOptions, options: SettingsOptions, limit_options: LimitOptions) -> None:
    """Serve the HTTP API (POST /v1/verify, POST /v1/check streaming NDJSON) and the web page at /."""

    def body() -> None:
        # the checks of the arguments come first: a refusal is said at once, before the web framework, the
        # graph and the models are imported (seconds)
        listen.check()
        settings = options.settings()
        with listen.bind() as listener:
            serve_on(listener, settings)

    def serve_on(listener: socket.socket, settings) -> None:
        where = listen.url

        async def serve(listener: socket.socket) -> None:
            # the resources open before anything listens: a corpus, model or tool server that fails to start is
            # this command's error (one line, non-zero exit), and they close on every path out
            async with text_job_started_early(settings) as checker:
                from mermaid_verifier.service import create_app

                limits = limit_options.limits()  # imports the service package, so after the servers' start
                app = create_app(settings, token=listen.token, limits=limits, checker=checker)
                announce = f"serving on {where} (API schema at {where}docs); Ctrl-C stops"
                await serve_app(app, listener, listen, announce)

        asyncio.run(serve(listener))

    guarded(options.debug, body)
