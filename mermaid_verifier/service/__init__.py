"""``mermaid-verifier serve``: the HTTP service and its web page (FastAPI, MIT; served by uvicorn, BSD-3-Clause).

Endpoints (the OpenAPI schema is at ``/openapi.json``, its browsable form at ``/docs``):

* ``POST /v1/verify`` ``{"claim": …}`` → one ``VerificationResult``;
* ``POST /v1/check`` ``{"text": …}`` → NDJSON, one event per line as it happens: ``extraction`` (the claims and
  the sentences dropped), one ``claim`` per claim as it is decided, then ``summary`` — or ``error`` (the time
  limit, a failure) and nothing after it;
* the same with ``"sources": [{"name", "content"}]``: grounding (``mermaid_verifier.texts.grounding``), the text against
  those documents only: ``extraction``, one ``grounded`` per claim as it is read (its ``status``: supported,
  contradicted, not stated or undecided), then ``grounding`` (each sentence supported, partially supported, contradicted,
  not stated or undecided, with the passage and its span) — or ``error``;
* ``GET /healthz``; ``GET /`` the page: paste a text, watch its claims appear and colour as they are decided.

Safe by default: it listens on 127.0.0.1; any other address needs a bearer ``--token`` or an explicit
``--no-auth``. A request body is at most ``max_request_bytes`` (413 beyond: from its Content-Length, or as it
streams in without one; ``body_limit``), a text gives at most ``max_claims`` claims, at most ``max_concurrent``
checks run at once (429 beyond), and each request has ``request_timeout_s``. A 422 names where and why as
FastAPI does, echoing at most ``SHOWN_INPUT_CHARS`` characters of the input it refused.
Source documents come only as uploaded text (``.txt``/``.md``/``.html`` content), never as server paths.

Laid out as FastAPI's bigger applications: this module assembles the app (lifespan, middleware, the 422 handler,
the routers); the routes are :mod:`.routes`, what they share :mod:`.dependencies` (the opened text job, the
limits and slots, the token check), the records :mod:`.schemas`; the events of ``/v1/check`` are the text job's
(:mod:`mermaid_verifier.texts.events`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from mermaid_verifier.config import Settings
from mermaid_verifier.service.body_limit import BodyLimit
from mermaid_verifier.service.dependencies import Service, authorised
from mermaid_verifier.service.limits import Limits
from mermaid_verifier.service.routes import api, public
from mermaid_verifier.service.schemas import SHOWN_INPUT_CHARS, shortened
from mermaid_verifier.texts import TextJob
from mermaid_verifier.wiring import Overrides

__all__ = ["SHOWN_INPUT_CHARS", "Limits", "create_app"]


def create_app(
    settings: Settings | None = None,
    *,
    token: str | None = None,
    limits: Limits | None = None,
    checker: TextJob | None = None,
    overrides: Overrides | None = None,
) -> FastAPI:
    """The ASGI app. Its resources (tool servers, models, memory; ``overrides`` gives any ready-made) open when it
    starts and close when it stops;
    given an open text job (``checker``) instead, it serves that one and leaves closing it to its owner (``serve``
    opens it first, so a start-up failure is reported as the command's error before anything listens)."""
    settings = settings or Settings.from_env()
    limits = limits or Limits()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if checker is not None:  # served as given, closed by its owner
            yield
            return
        async with TextJob.open(settings, overrides=overrides) as opened:
            app.state.service = Service(settings, limits, opened)
            yield

    app = FastAPI(
        title="mermaid-verifier",
        summary="Fact-check a claim or a whole text against open sources or your own documents.",
        version="1",
        lifespan=lifespan,
    )
    app.state.token = token
    if checker is not None:
        app.state.service = Service(settings, limits, checker)
    app.add_middleware(BodyLimit, max_bytes=limits.max_request_bytes)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": [shortened(error) for error in jsonable_encoder(exc.errors())]}, status_code=422)

    # the schema asks for a token only when one is set
    app.include_router(api, dependencies=[Depends(authorised)] if token is not None else [])
    app.include_router(public)
    return app
