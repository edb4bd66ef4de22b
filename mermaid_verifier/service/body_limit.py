"""The service's request-body limit, as pure ASGI middleware, so it holds for every route.

A request that declares a ``Content-Length`` over the limit is answered 413 before any of its body is read.
One without (``Transfer-Encoding: chunked``) is counted as its body streams in: the read that passes the
limit raises :class:`RequestTooLarge` inside the app, which stops reading there,
and the middleware answers 413 in place of whatever the app made of the failed read. The rest of the body
is never read: the 413 says ``Connection: close``.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestTooLarge(Exception):
    """A request body passed the service's limit while it was read; the service answers 413 with this message."""


ADVICE = "send less: check a long text in parts, or fewer or smaller sources"


def too_large(message: str) -> JSONResponse:
    """The 413 answer, in the service's error shape (``{"detail": …}``)."""
    return JSONResponse({"detail": message}, status_code=413, headers={"Connection": "close"})


class BodyLimit:
    """413 for a request body over ``max_bytes``: at once from ``Content-Length``, else as soon as the
    bytes read pass it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            message = f"the request is {int(declared):,} bytes; the limit is {self.max_bytes:,} ({ADVICE})"
            await too_large(message)(scope, receive, send)
            return

        read = 0
        passed: RequestTooLarge | None = None
        started = False

        async def counted() -> Message:
            nonlocal read, passed
            if passed is not None:  # a reader that asks again gets the same answer, never more bytes
                raise passed
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > self.max_bytes:
                    passed = RequestTooLarge(
                        f"the request is more than {self.max_bytes:,} bytes; the limit is {self.max_bytes:,} ({ADVICE})"
                    )
                    raise passed
            return message

        async def answer(message: Message) -> None:
            nonlocal started
            if passed is not None and not started:
                return  # the app's answer to a body it could not read: the 413 below replaces it
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, answer)
        except Exception:
            if passed is None or started:
                raise
            # what the app raised came from the read that passed the limit: the 413 below is the answer
        if passed is not None and not started:
            await too_large(str(passed))(scope, receive, send)
