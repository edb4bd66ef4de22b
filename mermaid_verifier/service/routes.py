"""The HTTP service's routes: ``/healthz``, ``/v1/verify``, ``/v1/check`` (a text's claims, or with ``sources`` the
text against those documents) and the page at ``/``. What they share comes from :mod:`.dependencies`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from importlib import resources as package_files

from fastapi import APIRouter, HTTPException
from fastapi.responses import HTMLResponse, StreamingResponse

from mermaid_verifier.errors import MermaidError
from mermaid_verifier.models import GroundedClaim, TextCheckResult, TextClaims, VerificationResult
from mermaid_verifier.service.dependencies import Service, ServiceDep
from mermaid_verifier.service.schemas import (
    CheckRequest,
    ClaimEvent,
    ErrorEvent,
    ExtractionEvent,
    GroundedEvent,
    GroundingEvent,
    Health,
    SummaryEvent,
    VerifyRequest,
    line,
)

api = APIRouter()  # the token check, when a token is set, is added where the app includes it
public = APIRouter()

PAGE_POLICY = "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'"


@public.get("/healthz", response_model=Health)
async def healthz(service: ServiceDep) -> Health:
    return Health(backend=service.settings.effective_backend, sources=sorted(service.checker.resources.toolbox.sources))


@api.post("/v1/verify", response_model=VerificationResult)
async def verify(body: VerifyRequest, service: ServiceDep) -> VerificationResult:
    await service.take_slot()
    try:
        async with asyncio.timeout(service.limits.request_timeout_s):
            return await service.checker.verify(" ".join(body.claim.split()))
    except TimeoutError:
        raise HTTPException(
            status_code=504, detail=f"no verdict within {service.limits.request_timeout_s:g} s"
        ) from None
    except MermaidError as exc:
        raise HTTPException(status_code=502, detail=str(exc)) from None
    finally:
        service.slots.release()


@api.post(
    "/v1/check",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "One JSON event per line"}},
)
async def check(body: CheckRequest, service: ServiceDep) -> StreamingResponse:
    await service.take_slot()  # released when the stream ends, on every path
    return StreamingResponse(_stream(body, service), media_type="application/x-ndjson")


async def _stream(body: CheckRequest, service: Service) -> AsyncIterator[bytes]:
    limit = service.limits.request_timeout_s
    try:
        async with asyncio.timeout(limit):
            events = _grounding_events(body, service) if body.sources else _text_events(body, service)
            async for event in events:
                yield event
    except TimeoutError:
        yield line(ErrorEvent(message=f"the check did not end within {limit:g} s"))
    except MermaidError as exc:
        yield line(ErrorEvent(message=str(exc)))
    finally:
        service.slots.release()


def _too_many(claims: int, service: Service) -> bytes | None:
    refusal = service.limits.claims_refusal(claims)
    return line(ErrorEvent(message=refusal)) if refusal is not None else None


def _extraction(event: TextClaims) -> bytes:
    return line(
        ExtractionEvent(claims=event.claims, dropped=event.dropped, extractor=event.extractor, fallback=event.fallback)
    )


async def _text_events(body: CheckRequest, service: Service) -> AsyncIterator[bytes]:
    async for event in service.checker.events(body.text, body.concurrency):
        if isinstance(event, TextClaims):
            refusal = _too_many(len(event.claims), service)
            if refusal is not None:
                yield refusal
                return
            yield _extraction(event)
        elif isinstance(event, TextCheckResult):
            yield line(SummaryEvent(summary=event.summary))
        else:
            yield line(ClaimEvent(checked=event))


async def _grounding_events(body: CheckRequest, service: Service) -> AsyncIterator[bytes]:
    from mermaid_verifier.tools.documents import given_document, uploaded_text

    documents = []
    for source in body.sources:
        title, text = await asyncio.to_thread(uploaded_text, source.name, source.content)
        if not text.strip():
            yield line(ErrorEvent(message=f"{source.name}: the document holds no text"))
            return
        documents.append(given_document(source.name, title, text))
    async for event in service.grounding.events(body.text, documents, body.concurrency):
        if isinstance(event, TextClaims):
            refusal = _too_many(len(event.claims), service)
            if refusal is not None:
                yield refusal
                return
            yield _extraction(event)
        elif isinstance(event, GroundedClaim):
            yield line(GroundedEvent(grounded=event))
        else:
            yield line(GroundingEvent(result=event))


@public.get("/", response_class=HTMLResponse, include_in_schema=False)
async def page() -> HTMLResponse:
    html = (package_files.files("mermaid_verifier.service") / "page.html").read_text(encoding="utf-8")
    return HTMLResponse(html, headers={"Content-Security-Policy": PAGE_POLICY})
