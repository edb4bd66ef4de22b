"""The HTTP service's routes: ``/healthz``, ``/v1/verify``, ``/v1/check`` (a text's claims, or with ``sources`` the
text against those documents: the text job's events as NDJSON) and the page at ``/``. What they share comes from
:mod:`.dependencies`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from importlib import resources as package_files

from fastapi import APIRouter, HTTPException
from fastapi.responses import HTMLResponse, StreamingResponse

from mermaid_verifier.errors import MermaidError, UsageError
from mermaid_verifier.models import GivenDocument, VerificationResult
from mermaid_verifier.service.dependencies import Service, ServiceDep
from mermaid_verifier.service.schemas import CheckRequest, ErrorEvent, Health, VerifyRequest
from mermaid_verifier.texts.events import ExtractionEvent

api = APIRouter()  # the token check, when a token is set, is added where the app includes it
public = APIRouter()

PAGE_POLICY = "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'"


@public.get("/healthz", response_model=Health)
async def healthz(service: ServiceDep) -> Health:
    return Health(backend=service.settings.effective_backend, sources=sorted(service.texts.resources.toolbox.sources))


@api.post("/v1/verify", response_model=VerificationResult)
async def verify(body: VerifyRequest, service: ServiceDep) -> VerificationResult:
    await service.take_slot()
    try:
        async with asyncio.timeout(service.limits.request_timeout_s):
            return await service.texts.verify(" ".join(body.claim.split()))
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
    """The text job's events, one NDJSON line each: against the uploaded documents when there are any, else
    against open sources; an error event ends the stream early."""
    limit = service.limits.request_timeout_s
    try:
        async with asyncio.timeout(limit):
            documents = await _documents(body) if body.sources else None
            async for event in service.texts.events(body.text, documents, body.concurrency):
                if isinstance(event, ExtractionEvent):
                    refusal = service.limits.claims_refusal(len(event.claims))
                    if refusal is not None:
                        yield ErrorEvent(message=refusal).line()
                        return
                yield event.line()
    except TimeoutError:
        yield ErrorEvent(message=f"the check did not end within {limit:g} s").line()
    except MermaidError as exc:
        yield ErrorEvent(message=str(exc)).line()
    finally:
        service.slots.release()


async def _documents(body: CheckRequest) -> list[GivenDocument]:
    """The uploaded documents as text; one that holds none is refused, by name."""
    from mermaid_verifier.tools.documents import uploaded_document

    documents = []
    for source in body.sources:
        try:
            document = await asyncio.to_thread(uploaded_document, source.name, source.data())
        except ValueError as exc:  # not base64, not a readable PDF, a PDF with no text
            raise UsageError(f"{source.name}: {exc}") from None
        if not document.text.strip():
            raise UsageError(f"{source.name}: the document holds no text")
        documents.append(document)
    return documents


@public.get("/", response_class=HTMLResponse, include_in_schema=False)
async def page() -> HTMLResponse:
    html = (package_files.files("mermaid_verifier.service") / "page.html").read_text(encoding="utf-8")
    return HTMLResponse(html, headers={"Content-Security-Policy": PAGE_POLICY})
