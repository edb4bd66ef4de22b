"""``mermaid-verifier serve``: the HTTP service and its web page (FastAPI, MIT; served by uvicorn, BSD-3-Clause).

Endpoints (the OpenAPI schema is at ``/openapi.json``, its browsable form at ``/docs``):

* ``POST /v1/verify`` ``{"claim": …}`` → one ``VerificationResult``;
* ``POST /v1/check`` ``{"text": …}`` → NDJSON, one event per line as it happens: ``extraction`` (the claims and
  the sentences dropped), one ``claim`` per claim as it is decided, then ``summary`` — or ``error`` (the time
  limit, a failure) and nothing after it;
* the same with ``"sources": [{"name", "content"}]``: grounding (``mermaid_verifier.grounding``), the text against
  those documents only: ``extraction``, one ``grounded`` per claim as it is read, then ``grounding`` (each
  sentence supported, partially supported or not, with the passage and its span) — or ``error``;
* ``GET /healthz``; ``GET /`` the page: paste a text, watch its claims appear and colour as they are decided.

Safe by default: it listens on 127.0.0.1; any other address needs a bearer ``--token`` or an explicit
``--no-auth``. A request body is at most ``max_request_bytes`` (413 beyond: from its Content-Length, or as it
streams in without one; ``body_limit``), a text gives at most ``max_claims`` claims, at most ``max_concurrent``
checks run at once (429 beyond), and each request has ``request_timeout_s``. A 422 names where and why as
FastAPI does, echoing at most ``SHOWN_INPUT_CHARS`` characters of the input it refused.
Source documents come only as uploaded text (``.txt``/``.md``/``.html`` content), never as server paths.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
from collections.abc import AsyncIterator
from importlib import resources as package_files
from pathlib import Path
from typing import Annotated, Literal

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from mermaid_verifier.claims import MAX_CLAIM_CHARS
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import MermaidError
from mermaid_verifier.grounding import GroundingChecker
from mermaid_verifier.models import (
    CheckedClaim,
    DroppedSentence,
    ExtractedClaim,
    GivenDocument,
    GroundedClaim,
    GroundingResult,
    TextClaims,
    TextSummary,
    VerificationResult,
)
from mermaid_verifier.service.body_limit import BodyLimit
from mermaid_verifier.service.limits import Limits
from mermaid_verifier.service.openers import grounding_stance
from mermaid_verifier.text_graph import DEFAULT_CONCURRENCY, MAX_TEXT_CHARS, TextChecker

MAX_SOURCES = 20
SHOWN_INPUT_CHARS = 200  # a 422 echoes at most this much of the input it refused


class VerifyRequest(BaseModel):
    claim: str = Field(min_length=1, max_length=MAX_CLAIM_CHARS, description="One claim, a sentence or two")


class SourceDocument(BaseModel):
    name: str = Field(
        min_length=1,
        max_length=200,
        pattern=r"^[^/\\\x00]*[^/\\\x00.][.](txt|md|markdown|html|htm)$",
        description="A plain file name (no folder) ending .txt, .md, .markdown, .html or .htm",
    )
    content: str = Field(description="The document's text (UTF-8)")


class CheckRequest(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="The text to check")
    sources: list[SourceDocument] = Field(
        default_factory=list,
        max_length=MAX_SOURCES,
        description="Check the text against these documents only (grounding: is it backed by them?)",
    )
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1, le=8, description="Claims verified at once")


class ExtractionEvent(BaseModel):
    event: Literal["extraction"] = "extraction"
    claims: list[ExtractedClaim]
    dropped: list[DroppedSentence]
    extractor: str
    fallback: str | None = None


class ClaimEvent(BaseModel):
    event: Literal["claim"] = "claim"
    checked: CheckedClaim


class SummaryEvent(BaseModel):
    event: Literal["summary"] = "summary"
    summary: TextSummary


class GroundedEvent(BaseModel):
    event: Literal["grounded"] = "grounded"
    grounded: GroundedClaim


class GroundingEvent(BaseModel):
    event: Literal["grounding"] = "grounding"
    result: GroundingResult


class ErrorEvent(BaseModel):
    event: Literal["error"] = "error"
    message: str


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    backend: str
    sources: list[str]


_BEARER = HTTPBearer(auto_error=False)
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]


def authorised(request: Request, credentials: Credentials) -> None:
    """With a token set, every API request must send it as ``Authorization: Bearer``; 401 otherwise."""
    token: str | None = request.app.state.token
    if token is None:
        return
    if credentials is None or not hmac.compare_digest(credentials.credentials.encode(), token.encode()):
        raise HTTPException(
            status_code=401, detail="a bearer token is required", headers={"WWW-Authenticate": "Bearer"}
        )


def _line(event: BaseModel) -> bytes:
    return event.model_dump_json().encode() + b"\n"


def shortened(error: dict) -> dict:
    """A validation error as FastAPI reports it (``loc``, ``msg``, ``type`` …), its echoed ``input`` cut to
    :data:`SHOWN_INPUT_CHARS` characters with a note of its full length: a refused 100,000-character text is
    not sent back whole."""
    if "input" not in error:
        return error
    value = error["input"]
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(shown) <= SHOWN_INPUT_CHARS:
        return error
    return {**error, "input": f"{shown[:SHOWN_INPUT_CHARS]}… (cut: {len(shown):,} characters in all)"}


def create_app(
    settings: Settings | None = None,
    *,
    token: str | None = None,
    limits: Limits | None = None,
    checker: TextChecker | None = None,
    **resource_overrides,
) -> FastAPI:
    """The ASGI app. Its resources (tool servers, models, memory) open when it starts and close when it stops;
    given an open ``checker`` instead, it serves that one and leaves closing it to its owner (``serve`` opens
    it first, so a start-up failure is reported as the command's error before anything listens)."""
    settings = settings or Settings.from_env()
    limits = limits or Limits()
    state: dict = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as resources:
            opened = checker or await resources.enter_async_context(TextChecker.open(settings, **resource_overrides))
            state["checker"] = opened
            state["slots"] = asyncio.Semaphore(limits.max_concurrent)
            yield

    app = FastAPI(
        title="mermaid-verifier",
        summary="Fact-check a claim or a whole text against open sources or your own documents.",
        version="1",
        lifespan=lifespan,
    )
    app.state.token = token
    guarded = [Depends(authorised)] if token is not None else []  # the schema asks for a token only when one is set

    app.add_middleware(BodyLimit, max_bytes=limits.max_request_bytes)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": [shortened(error) for error in jsonable_encoder(exc.errors())]}, status_code=422)

    @contextlib.asynccontextmanager
    async def slot() -> AsyncIterator[None]:
        slots: asyncio.Semaphore = state["slots"]
        if slots.locked():
            raise HTTPException(
                status_code=429,
                detail=f"{limits.max_concurrent} checks are running; try again shortly",
                headers={"Retry-After": "5"},
            )
        async with slots:
            yield

    @app.get("/healthz", response_model=Health)
    async def healthz() -> Health:
        return Health(backend=settings.effective_backend, sources=sorted(state["checker"].resources.toolbox.sources))

    @app.post("/v1/verify", response_model=VerificationResult, dependencies=guarded)
    async def verify(body: VerifyRequest) -> VerificationResult:
        async with slot():
            try:
                async with asyncio.timeout(limits.request_timeout_s):
                    return await state["checker"].verify(" ".join(body.claim.split()))
            except TimeoutError:
                raise HTTPException(
                    status_code=504, detail=f"no verdict within {limits.request_timeout_s:g} s"
                ) from None
            except MermaidError as exc:
                raise HTTPException(status_code=502, detail=str(exc)) from None

    @app.post(
        "/v1/check",
        dependencies=guarded,
        response_class=StreamingResponse,
        responses={200: {"content": {"application/x-ndjson": {}}, "description": "One JSON event per line"}},
    )
    async def check(body: CheckRequest) -> StreamingResponse:
        slots: asyncio.Semaphore = state["slots"]
        if slots.locked():
            raise HTTPException(
                status_code=429,
                detail=f"{limits.max_concurrent} checks are running; try again shortly",
                headers={"Retry-After": "5"},
            )
        await slots.acquire()
        return StreamingResponse(_stream(body, slots), media_type="application/x-ndjson")

    async def _stream(body: CheckRequest, slots: asyncio.Semaphore) -> AsyncIterator[bytes]:
        try:
            async with asyncio.timeout(limits.request_timeout_s):
                if body.sources:
                    async for line in _grounding_events(body):
                        yield line
                else:
                    async for line in _events(state["checker"], body):
                        yield line
        except TimeoutError:
            yield _line(ErrorEvent(message=f"the check did not end within {limits.request_timeout_s:g} s"))
        except MermaidError as exc:
            yield _line(ErrorEvent(message=str(exc)))
        finally:
            slots.release()

    async def _events(checker: TextChecker, body: CheckRequest) -> AsyncIterator[bytes]:
        checked: list[CheckedClaim] = []
        extraction: TextClaims | None = None
        async for event in checker.events(body.text, body.concurrency):
            if isinstance(event, TextClaims):
                if len(event.claims) > limits.max_claims:
                    yield _line(
                        ErrorEvent(
                            message=f"the text gives {len(event.claims)} claims; the limit is {limits.max_claims} (check it in parts)"
                        )
                    )
                    return
                extraction = event
                yield _line(
                    ExtractionEvent(
                        claims=event.claims, dropped=event.dropped, extractor=event.extractor, fallback=event.fallback
                    )
                )
            else:
                checked.append(event)
                yield _line(ClaimEvent(checked=event))
        if extraction is not None:
            yield _line(
                SummaryEvent(summary=TextSummary.of(sorted(checked, key=lambda c: c.index), len(extraction.dropped)))
            )

    async def _grounding_events(body: CheckRequest) -> AsyncIterator[bytes]:
        from mermaid_verifier.tools.documents import uploaded_text

        documents = []
        for source in body.sources:
            title, text = await asyncio.to_thread(uploaded_text, source.name, source.content)
            if not text.strip():
                yield _line(ErrorEvent(message=f"{source.name}: the document holds no text"))
                return
            documents.append(
                GivenDocument(name=source.name, title=title if title != Path(source.name).stem else "", text=text)
            )
        if "grounding" not in state:  # made on the first upload: it shares the checker's parser and stance model
            state["grounding"] = GroundingChecker(state["checker"].extractor, grounding_stance(state["checker"]))
        grounding: GroundingChecker = state["grounding"]
        async for event in grounding.events(body.text, documents, body.concurrency):
            if isinstance(event, TextClaims):
                if len(event.claims) > limits.max_claims:
                    yield _line(
                        ErrorEvent(
                            message=f"the text gives {len(event.claims)} claims; the limit is {limits.max_claims} (check it in parts)"
                        )
                    )
                    return
                yield _line(
                    ExtractionEvent(
                        claims=event.claims, dropped=event.dropped, extractor=event.extractor, fallback=event.fallback
                    )
                )
            elif isinstance(event, GroundedClaim):
                yield _line(GroundedEvent(grounded=event))
            else:
                yield _line(GroundingEvent(result=event))

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        html = (package_files.files("mermaid_verifier.service") / "page.html").read_text(encoding="utf-8")
        return HTMLResponse(
            html,
            headers={
                "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'"
            },
        )

    return app
