"""``mermaid-verifier mcp``: the verifier itself as an MCP server, for any agent that should check before it answers.

Three tools, each answering with the same pydantic record the CLI's ``--json`` and the HTTP API give
(``structuredContent``, with its JSON schema as the tool's output schema, plus the same JSON as text):

* ``verify_claim(claim)``                  -> ``VerificationResult``: SUPPORTS / REFUTES / NOT ENOUGH INFO or an
  abstention, with the evidence, where each item came from and why it was trusted;
* ``check_text(text)``                     -> ``TextCheckResult``: every claim of a whole text, verified;
* ``check_grounding(text, documents)``     -> ``GroundingResult``: is the text backed by these documents? each
  claim supported, contradicted, not stated or undecided (``status``), each sentence supported, partially supported,
  contradicted, not stated or undecided, with the passage and its span.

The long ones report progress (``notifications/progress``, one per claim decided) when the client asks for it
with a progress token. Offline and keyless by default; the settings are those of ``verify`` (corpus, sources,
backend, memory: ``MERMAID_*`` and the command's options). Over stdio by default (a host such as Claude Desktop
or Cursor starts it); ``--transport http`` serves MCP's streamable HTTP under the same safe defaults as
``serve``: loopback only unless a bearer ``--token`` (or ``--no-auth``) is given, a request body of at most
``max_request_bytes``, at most ``max_concurrent`` checks at once, ``request_timeout_s`` per check.

The tool functions are plain methods of :class:`Verifier`, tested directly; :func:`create_server` only
registers them; :func:`http_app` wraps the streamable-HTTP app in the body limit and the bearer check. The command
(``mermaid_verifier/cli/mcp.py``) runs either transport: FastMCP's ``run_stdio_async``, or :func:`http_app` served
on its listening socket. stdout is the JSON-RPC channel over stdio: nothing here prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from mermaid_verifier.claims import MAX_CLAIM_CHARS
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import MermaidError
from mermaid_verifier.models import GivenDocument, GroundingResult, TextCheckResult, VerificationResult
from mermaid_verifier.service.limits import Limits
from mermaid_verifier.texts import MAX_DOCUMENTS, MAX_TEXT_CHARS, TextJob
from mermaid_verifier.texts.events import ClaimDone, ExtractionEvent, TextDone
from mermaid_verifier.tools.servers.server_tools import tool

SERVER_NAME = "mermaid-verifier"
INSTRUCTIONS = (
    "Fact-checks offline, without an API key. verify_claim checks one claim against the configured sources "
    "(a local corpus, and Wikipedia, arXiv or PubMed when allowed) and says SUPPORTS, REFUTES, NOT ENOUGH INFO "
    "or abstains, with the evidence. check_text checks every claim of a whole text (an article, an answer). "
    "check_grounding checks whether a text is backed by the documents you give it (RAG faithfulness): each "
    "claim supported, contradicted, not stated or undecided by them, each sentence supported, partially supported, "
    "contradicted, not stated or undecided, with the passage that backs or contradicts it."
)
Progress = Callable[[int, int, str], Awaitable[None]]


class Verifier:
    """The tools' work over an opened :class:`~mermaid_verifier.texts.TextJob`, at most ``limits.max_concurrent``
    checks at once; every failure is a :class:`ToolError` with one line."""

    def __init__(self, texts: TextJob, limits: Limits | None = None) -> None:
        self.texts = texts
        self.limits = limits = limits or Limits()
        self._slots = asyncio.Semaphore(limits.max_concurrent)

    @contextlib.asynccontextmanager
    async def _slot(self, what: str) -> AsyncIterator[None]:
        if self._slots.locked():
            raise ToolError(f"{self.limits.max_concurrent} checks are running; try again shortly")
        async with self._slots:
            try:
                async with asyncio.timeout(self.limits.request_timeout_s):
                    yield
            except TimeoutError:
                raise ToolError(f"{what} did not end within {self.limits.request_timeout_s:g} s") from None
            except MermaidError as error:
                raise ToolError(str(error)) from None

    async def verify_claim(self, claim: str) -> VerificationResult:
        claim = " ".join(claim.split())
        if not claim:
            raise ToolError("the claim is empty: give one statement to check")
        async with self._slot("the verification"):
            return await self.texts.verify(claim)

    async def check_text(self, text: str, progress: Progress | None = None) -> TextCheckResult:
        result = await self._check(text, None, progress, "the check", "to verify")
        assert isinstance(result, TextCheckResult)
        return result

    async def check_grounding(
        self, text: str, documents: list[GivenDocument | str], progress: Progress | None = None
    ) -> GroundingResult:
        planned = f"to read against {len(documents)} document(s)"
        result = await self._check(text, documents, progress, "the grounding check", planned)
        assert isinstance(result, GroundingResult)
        return result

    async def _check(
        self, text: str, documents: list[GivenDocument | str] | None, progress: Progress | None, what: str, planned: str
    ) -> TextCheckResult | GroundingResult:
        """The text job's events read to its result, with a progress report per claim decided."""
        if not text.strip():
            raise ToolError("the text is empty: give the text to check")
        async with self._slot(what):
            total = done = 0
            async for event in self.texts.events(text, documents):
                if isinstance(event, ExtractionEvent):
                    self._within_limit(len(event.claims))
                    total = len(event.claims)
                    if progress:
                        await progress(0, total, f"{total} claims {planned}")
                elif isinstance(event, ClaimDone):
                    done += 1
                    if progress:
                        await progress(done, total, event.outcome())
                elif isinstance(event, TextDone):
                    return event.result
            raise ToolError(f"{what} ended without a result")

    def _within_limit(self, claims: int) -> None:
        refusal = self.limits.claims_refusal(claims)
        if refusal is not None:
            raise ToolError(refusal)


def _progress(ctx: Context) -> Progress | None:
    """The client's progress reporting, when its request carried a progress token."""
    meta = ctx.request_context.meta
    if meta is None or meta.progressToken is None:
        return None

    async def report(done: int, total: int, message: str) -> None:
        await ctx.report_progress(done, total, message)

    return report


def create_server(
    settings: Settings | None = None,
    *,
    limits: Limits | None = None,
    checker: TextJob | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
) -> FastMCP:
    """The MCP server. Its resources (tool servers, models, memory) open when a session starts it (stdio) or the
    HTTP app starts, and close when it stops; given an open ``checker``, it serves that one and leaves closing
    it to its owner (``mermaid-verifier mcp`` opens it first, so a start-up failure is the command's error)."""
    settings = settings or Settings.from_env()
    limits = limits or Limits()

    shared = Verifier(checker, limits) if checker is not None else None

    @contextlib.asynccontextmanager
    async def lifespan(_: FastMCP) -> AsyncIterator[Verifier]:
        # entered for each session (streamable HTTP runs one per client): with an open checker every session
        # shares one Verifier, so the limits hold for the server, not per session
        if shared is not None:
            yield shared
            return
        async with TextJob.open(settings) as opened:
            yield Verifier(opened, limits)

    server = FastMCP(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level="WARNING",
        host=host,
        port=port,
        max_request_body_size=limits.max_request_bytes,
    )

    def verifier(ctx: Context) -> Verifier:
        return ctx.request_context.lifespan_context

    @tool(server)
    async def verify_claim(
        claim: Annotated[
            str, Field(max_length=MAX_CLAIM_CHARS, description="One factual claim, a sentence or two, in English.")
        ],
        ctx: Context,
    ) -> VerificationResult:
        """Check one factual claim against the configured sources: SUPPORTS, REFUTES or NOT ENOUGH INFO, or an
        abstention when the evidence is too weak to say, with the evidence used, where each item came from and
        how much it was trusted."""
        return await verifier(ctx).verify_claim(claim)

    @tool(server)
    async def check_text(
        text: Annotated[
            str,
            Field(max_length=MAX_TEXT_CHARS, description="A whole text: an article, a speech, an answer to check."),
        ],
        ctx: Context,
    ) -> TextCheckResult:
        """Check every factual claim of a whole text: the text is split into atomic, self-contained claims
        (questions, greetings, opinions and advice left out with the reason), each is verified, and the counts
        are summed up. Reports progress per claim when asked."""
        return await verifier(ctx).check_text(text, _progress(ctx))

    @tool(server)
    async def check_grounding(
        text: Annotated[str, Field(max_length=MAX_TEXT_CHARS, description="The text to check, e.g. an answer.")],
        documents: Annotated[
            list[GivenDocument | str],
            Field(
                min_length=1,
                max_length=MAX_DOCUMENTS,
                description="The documents the text should rest on: each a plain text (named 'document N') or"
                " {name, title?, text}.",
            ),
        ],
        ctx: Context,
    ) -> GroundingResult:
        """Check whether a text is backed by the given documents (RAG faithfulness), using those documents
        only: each claim comes back supported, contradicted (a passage states something else for its subject
        and relation), not stated or undecided (its ``status``; why in ``reason``), each sentence supported, partially supported (naming the
        claims that are not), contradicted, not stated or undecided, with the passage that backs (or contradicts) it and
        its character span in its document."""
        return await verifier(ctx).check_grounding(text, documents, _progress(ctx))

    return server


def http_app(server: FastMCP, *, token: str | None, limits: Limits):
    """The streamable-HTTP ASGI app (endpoint ``/mcp``), behind the body limit and, with a token, the bearer
    check (401 otherwise)."""
    from starlette.responses import JSONResponse

    from mermaid_verifier.service.body_limit import BodyLimit

    app = server.streamable_http_app()
    app.add_middleware(BodyLimit, max_bytes=limits.max_request_bytes)
    if token is not None:
        expected = f"Bearer {token}".encode()

        class BearerToken:
            def __init__(self, inner) -> None:
                self.inner = inner

            async def __call__(self, scope, receive, send) -> None:
                if scope["type"] == "http":
                    sent = dict(scope.get("headers") or []).get(b"authorization", b"")
                    if not hmac.compare_digest(sent, expected):
                        response = JSONResponse(
                            {"detail": "a bearer token is required"},
                            status_code=401,
                            headers={"WWW-Authenticate": "Bearer"},
                        )
                        await response(scope, receive, send)
                        return
                await self.inner(scope, receive, send)

        app.add_middleware(BearerToken)
    return app
