"""Reading a live source's failure: which HTTP status, timeout, reset or malformed answer it was, whether
to retry it, and :func:`describe_error`, the one line a server gives the executor ("Wikipedia is unreachable:
...", "arXiv returned HTTP 503 (Service Unavailable) after 3 attempts").
"""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import math
import socket
import time
import urllib.error
import xml.etree.ElementTree as ET
from datetime import UTC

import requests

logger = logging.getLogger(__name__)


# Signals between the pieces of a source server (source_http, source_cache, the servers); a server turns each
# into one line for the executor (a ToolError), so none of them reaches the command line.


class HTTPStatusError(Exception):
    """A source answered with an HTTP error status."""

    def __init__(
        self, status: int, reason: str = "", retry_after: float | None = None, url: str = "", detail: str = ""
    ):
        self.status = status
        self.reason = reason or http.client.responses.get(status, "")
        self.retry_after = retry_after
        self.url = url
        self.detail = detail  # what the service's error body says, when it says something
        super().__init__(f"HTTP {status} {self.reason}".strip() + (f": {detail}" if detail else ""))


class MalformedResponse(Exception):
    """A source answered 200 with a body that is not what it should be (bad JSON, bad XML, HTML)."""


class SourceAPIError(Exception):
    """A source answered 200 with an error document (MediaWiki ``error``, E-utilities ``ERROR``)."""


class SourceBusyError(SourceAPIError):
    """A source's error document says its backend failed for now (E-utilities' 'Search Backend failed',
    a 502 passed on in an EFetch error): worth retrying, unlike other error documents."""


class RetriesExhausted(Exception):
    """Every attempt failed; ``last`` is the final failure."""

    def __init__(self, last: BaseException, attempts: int):
        self.last = last
        self.attempts = attempts
        summary = " ".join(str(last).split()) or type(last).__name__
        super().__init__(f"{summary} (after {attempts} attempts)")


class CacheDataError(ValueError):
    """A cache row that this cache did not write (pickled, binary): refused, never loaded."""


MAX_ERROR_CHARS = 300  # of a failure's text in the line a server gives


def one_line(exc: BaseException | str) -> str:
    text = " ".join(str(exc).split())
    if not text and isinstance(exc, BaseException):
        return type(exc).__name__
    return text


def _clip(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it wraps: ``__cause__``, ``.reason`` (urllib, urllib3), exceptions in ``args``."""
    found: list[BaseException] = []
    seen: set[int] = set()
    queue: list[BaseException] = [exc]
    while queue and len(found) < 32:
        current = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.append(current)
        nested = [current.__cause__, getattr(current, "reason", None), getattr(current, "last", None)]
        nested += [arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException)]
        queue.extend(e for e in nested if isinstance(e, BaseException))
    return found


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date; else None."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - (time.time() if now is None else now)
    if math.isnan(seconds):
        return None
    return max(0.0, seconds)


def http_status_of(exc: BaseException) -> tuple[int, str, float | None] | None:
    """(status, reason, retry_after) for an HTTP error status from requests, urllib or us."""
    for cause in causes(exc):
        if isinstance(cause, HTTPStatusError):
            return cause.status, cause.reason, cause.retry_after
        if isinstance(cause, urllib.error.HTTPError):
            headers = cause.headers
            retry_after = parse_retry_after(headers.get("Retry-After") if headers is not None else None)
            reason = cause.reason if isinstance(cause.reason, str) else ""
            return cause.code, reason or http.client.responses.get(cause.code, ""), retry_after
        if isinstance(cause, requests.HTTPError) and cause.response is not None:
            response = cause.response
            return (response.status_code, response.reason or "", parse_retry_after(response.headers.get("Retry-After")))
    return None


def is_timeout(exc: BaseException) -> bool:
    import urllib3.exceptions

    timeouts = (requests.exceptions.Timeout, TimeoutError, urllib3.exceptions.TimeoutError)
    # urllib3's NewConnectionError (and NameResolutionError) subclass its ConnectTimeoutError
    not_timeouts = (urllib3.exceptions.NewConnectionError,)
    return any(isinstance(cause, timeouts) and not isinstance(cause, not_timeouts) for cause in causes(exc))


def is_connection_reset(exc: BaseException) -> bool:
    import urllib3.exceptions

    resets = (
        ConnectionResetError,
        ConnectionAbortedError,
        BrokenPipeError,
        http.client.RemoteDisconnected,
        http.client.IncompleteRead,
        requests.exceptions.ChunkedEncodingError,
        urllib3.exceptions.ProtocolError,
    )
    return any(isinstance(cause, resets) for cause in causes(exc))


def is_source_busy(exc: BaseException) -> bool:
    return any(isinstance(cause, SourceBusyError) for cause in causes(exc))


def http_error_detail(exc: BaseException) -> str:
    """What the service's error body said, for an :class:`HTTPStatusError` that read it."""
    return next((cause.detail for cause in causes(exc) if isinstance(cause, HTTPStatusError) and cause.detail), "")


def is_retryable_status(status: int) -> bool:
    return status == 429 or (500 <= status <= 599 and status not in (501, 505))


def is_malformed(exc: BaseException) -> bool:
    malformed: tuple[type[BaseException], ...] = (
        MalformedResponse,
        json.JSONDecodeError,
        ET.ParseError,
        UnicodeDecodeError,
    )
    try:
        from lxml import etree

        malformed += (etree.XMLSyntaxError,)
    except ImportError:  # pragma: no cover - lxml comes with arxiv
        pass
    return any(isinstance(cause, malformed) for cause in causes(exc))


def _connection_reason(exc: BaseException, host: str | None) -> str:
    where = host or "the server"
    chain = causes(exc)
    if any(isinstance(c, socket.gaierror) or type(c).__name__ == "NameResolutionError" for c in chain):
        return f"cannot resolve {where} (no network or DNS?)"
    if any(isinstance(c, ConnectionRefusedError) for c in chain):
        return f"the connection to {where} was refused"
    if is_connection_reset(exc):
        return f"the connection to {where} was reset"
    # the innermost plain OSError says most ("[Errno 101] Network is unreachable", ...)
    plain = [
        c
        for c in chain
        if isinstance(c, OSError) and not type(c).__module__.startswith(("urllib3", "requests", "urllib"))
    ]
    if plain:
        return f"cannot connect to {where}: {one_line(plain[-1])}"
    text = one_line(chain[-1])
    marker = "Failed to establish a new connection: "
    if marker in text:
        text = text.split(marker, 1)[1]
    return f"cannot connect to {where}: {text}"


# what a client library raises when an answer is not shaped as it expects (the wikipedia package
# indexes JSON blindly and asserts on redirects); also logged with a traceback, in case it is ours
UNEXPECTED_RESPONSE = (KeyError, IndexError, TypeError, AttributeError, AssertionError)


def describe_error(label: str, exc: BaseException, *, timeout_s: float | None = None, host: str | None = None) -> str:
    """One line saying what went wrong talking to ``label`` (e.g. 'Wikipedia', 'arXiv', 'PubMed')."""
    attempts = 1
    if isinstance(exc, RetriesExhausted):
        attempts, exc = exc.attempts, exc.last
    after = f" after {attempts} attempts" if attempts > 1 else ""
    status = http_status_of(exc)
    if status is not None:
        code, reason, retry_after = status
        message = f"{label} returned HTTP {code}" + (f" ({reason})" if reason else "") + after
        detail = http_error_detail(exc)
        if detail:
            message += f": {detail}"
        if retry_after is not None and code in (429, 503):
            message += f"; it asks to wait {retry_after:g}s before trying again"
    elif is_malformed(exc):
        detail = one_line(exc) or type(exc).__name__
        if isinstance(exc, json.JSONDecodeError):
            detail = f"not valid JSON ({detail})"
        elif isinstance(exc, ET.ParseError) or type(exc).__name__ == "XMLSyntaxError":
            detail = f"not valid XML ({detail})"
        message = f"{label} returned a malformed response: {detail}"
    elif isinstance(exc, SourceAPIError):
        message = f"{label} reported an error: {one_line(exc)}{after}"
    elif is_timeout(exc):
        within = f" within {timeout_s:g}s" if timeout_s else ""
        message = f"{label} did not answer{within} (timed out){after}"
    elif isinstance(exc, (requests.exceptions.ConnectionError, urllib.error.URLError, OSError)):
        message = f"{label} is unreachable: {_connection_reason(exc, host)}{after}"
    elif isinstance(exc, UNEXPECTED_RESPONSE):
        message = f"{label} returned an unexpected response ({type(exc).__name__}: {one_line(exc)})"
    else:
        message = f"{label} request failed: {type(exc).__name__}: {one_line(exc)}{after}"
    return _clip(one_line(message))
