"""What every route of the HTTP service shares: the opened text job, the limits and the slots, and the token check."""

from __future__ import annotations

import asyncio
import hmac
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from mermaid_verifier.config import Settings
from mermaid_verifier.service.limits import Limits
from mermaid_verifier.texts import TextJob


@dataclass
class Service:
    """The app's open resources and limits (``app.state.service``, set by the lifespan)."""

    settings: Settings
    limits: Limits
    texts: TextJob
    slots: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self.slots = asyncio.Semaphore(self.limits.max_concurrent)

    async def take_slot(self) -> None:
        """One of ``max_concurrent`` slots, taken now (release it with ``slots.release()``), or 429."""
        if self.slots.locked():
            raise HTTPException(
                status_code=429,
                detail=f"{self.limits.max_concurrent} checks are running; try again shortly",
                headers={"Retry-After": "5"},
            )
        await self.slots.acquire()  # not locked: taken at once


def service(request: Request) -> Service:
    return request.app.state.service


ServiceDep = Annotated[Service, Depends(service)]

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
