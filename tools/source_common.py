"""What the online evidence servers (``wikipedia``, ``arxiv``, ``pubmed``) share.

None of the client libraries they use (``wikipedia``, ``arxiv``, ``Bio.Entrez``) sets a network
timeout, and each retries (or not) in its own way. Every request therefore goes through the pieces
here instead:

* **timeout** -- :class:`SourceSession` (a ``requests.Session``) puts ``timeout=`` on every request;
  the Entrez server passes one to ``urlopen`` the same way. A whole tool call is bounded as well
  (:func:`run_source_call`, ``anyio.fail_after``).
* **retries** -- :func:`with_retries`: exponential backoff with a little jitter on HTTP 429 / 5xx and
  on connection resets; a ``Retry-After`` header is honoured (up to ``max_retry_after_s``; a longer
  wait gives up at once). Timeouts, DNS failures and refused connections are not retried: they
  would only make the caller wait longer for the same answer.
* **rate limit** -- :class:`RateLimiter`: a minimum interval between requests to one source, shared
  by all threads (NCBI: 3 requests/s without an API key, 10/s with one).
* **cache** -- :class:`ResponseCache`: diskcache holding JSON text only (a ``Disk`` that neither
  pickles nor unpickles, so a planted pickle cannot run code -- CVE-2025-69872), keyed by
  source + operation + normalised arguments, expiring after 7 days by default.
* **one-line errors** -- :func:`describe_error` turns any failure into one readable line
  ("Wikipedia is unreachable: ...", "arXiv returned HTTP 503 (Service Unavailable) after 3
  attempts", ...), which the servers raise as ``ToolError``.
* **evidence passages** -- :class:`EvidencePassage`, the keys the local corpus server returns plus
  ``url``, ``published_at`` and ``authors``, so the executor reads every source alike.

Nothing here prints; logs go to the ``mermaid_verifier.tools`` loggers (stderr in the servers).
"""

import argparse
import email.utils
import http.client
import json
import logging
import math
import os
import random
import socket
import sqlite3
import sys
import threading
import time
import urllib.error
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import diskcache
import requests
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field
from requests.structures import CaseInsensitiveDict

from mermaid_verifier.json_disk import JSONTextDisk
from mermaid_verifier.tools.passage_record import PassageRecord

logger = logging.getLogger("mermaid_verifier.tools.source_common")

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 8.0  # one HTTP request
DEFAULT_CALL_TIMEOUT_S = 18.0  # one tool call, retries included (the toolbox waits 20 s)
DEFAULT_CACHE_EXPIRE_S = 7 * 24 * 3600.0
CACHE_FORMAT = 1  # part of every cache key: bump it when a cached record's shape changes
MAX_ERROR_CHARS = 300

NCBI_INTERVAL_S = 0.35  # a little over 1/3 s: at most 3 requests per second without an API key
NCBI_INTERVAL_WITH_KEY_S = 0.11  # at most 10 requests per second with NCBI_API_KEY


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mermaid-verifier")
    except PackageNotFoundError:  # not installed (running from a checkout)
        return "0"


USER_AGENT = f"mermaid-verifier/{_package_version()} (claim-verification tool; python-requests)"


# ----------------------------------------------------------------------------- evidence passages


class EvidencePassage(PassageRecord):
    """One evidence passage: the local corpus server's keys plus where and when it was published."""

    score: float | None = Field(
        default=None,
        description="Rank-based relevance for search results (1/(1+rank)); null when not from a search.",
    )
    url: str = Field(description="Web page of the source.")
    published_at: float | None = Field(
        default=None, description="Unix time (seconds) the source says it was published, if known."
    )
    authors: list[str] | None = Field(default=None, description="Authors, when the source lists them.")


def rank_score(rank: int) -> float:
    """Search engines here give a ranking, not a score: 1.0, 0.5, 0.3333, ..."""
    return round(1.0 / (1 + rank), 4)


def unix_time(moment: datetime | None) -> float | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def collapse(text: str | None) -> str:
    return " ".join((text or "").split())


# ----------------------------------------------------------------------------- errors


class HTTPStatusError(Exception):
    """A source answered with an HTTP error status."""

    def __init__(self, status: int, reason: str = "", retry_after: float | None = None, url: str = ""):
        self.status = status
        self.reason = reason or http.client.responses.get(status, "")
        self.retry_after = retry_after
        self.url = url
        super().__init__(f"HTTP {status} {self.reason}".strip())


class MalformedResponse(Exception):
    """A source answered 200 with a body that is not what it should be (bad JSON, bad XML, HTML)."""


class SourceAPIError(Exception):
    """A source answered 200 with an error document (MediaWiki ``error``, E-utilities ``ERROR``)."""


class RetriesExhausted(Exception):
    """Every attempt failed; ``last`` is the final failure."""

    def __init__(self, last: BaseException, attempts: int):
        self.last = last
        self.attempts = attempts
        super().__init__(f"{one_line(last)} (after {attempts} attempts)")


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
        message = f"{label} reported an error: {one_line(exc)}"
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


# ----------------------------------------------------------------------------- retries


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a request that failed in a way worth retrying."""

    max_attempts: int = 3
    base_delay_s: float = 0.5  # first backoff; doubles each time
    max_delay_s: float = 8.0
    max_retry_after_s: float = 10.0  # a longer Retry-After gives up at once (a call has 18 s in all)
    jitter: float = 0.1  # up to +10% random extra on backoff delays (not on Retry-After)

    def __post_init__(self):
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")


def retry_delay(
    exc: BaseException, attempt: int, policy: RetryPolicy, rng: Callable[[], float] = random.random
) -> float | None:
    """Seconds to wait before attempt ``attempt + 1``, or None if ``exc`` is not worth retrying."""
    status = http_status_of(exc)
    if status is not None:
        code, _, retry_after = status
        if not is_retryable_status(code):
            return None
        if retry_after is not None:
            return retry_after if retry_after <= policy.max_retry_after_s else None
    elif is_timeout(exc) or not is_connection_reset(exc):
        return None
    backoff = min(policy.max_delay_s, policy.base_delay_s * (2 ** (attempt - 1)))
    return backoff * (1.0 + policy.jitter * rng())


def with_retries(
    attempt: Callable[[], T],
    policy: RetryPolicy,
    *,
    label: str = "source",
    sleep: Callable[[float], Any] = time.sleep,
    rng: Callable[[], float] = random.random,
) -> T:
    """Call ``attempt()`` until it succeeds, fails in a way not worth retrying, or runs out of attempts.

    A failure after at least one retry is raised as :class:`RetriesExhausted` (so the message can
    say how many attempts were made); a first failure that is not retryable is raised as it is.
    """
    tries = 0
    while True:
        tries += 1
        try:
            return attempt()
        except Exception as exc:  # noqa: BLE001 - classified below
            delay = retry_delay(exc, tries, policy, rng) if tries < policy.max_attempts else None
            if delay is None:
                if tries > 1:
                    raise RetriesExhausted(exc, tries) from exc
                raise
            logger.warning(
                "%s; retrying in %.2fs (attempt %d of %d)",
                describe_error(label, exc),
                delay,
                tries + 1,
                policy.max_attempts,
            )
        sleep(delay)


# ----------------------------------------------------------------------------- rate limit


class RateLimiter:
    """At least ``min_interval_s`` between the starts of two requests, across threads.

    Each caller reserves the next free slot under a lock, then sleeps until it outside the lock.
    """

    def __init__(
        self,
        min_interval_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = time.sleep,
    ):
        self.min_interval_s = max(0.0, float(min_interval_s))
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_slot = float("-inf")

    def wait(self) -> float:
        """Block until this request may start; returns the seconds waited."""
        if self.min_interval_s <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            slot = max(now, self._next_slot)
            self._next_slot = slot + self.min_interval_s
        delay = slot - now
        if delay > 0:
            self._sleep(delay)
        return delay


def ncbi_min_interval(api_key: str | None) -> float:
    """NCBI E-utilities allow 3 requests/s per client without an API key, 10/s with one."""
    return NCBI_INTERVAL_WITH_KEY_S if api_key else NCBI_INTERVAL_S


# ----------------------------------------------------------------------------- HTTP session


class SourceSession(requests.Session):
    """A ``requests.Session`` whose every request has a timeout, waits for the rate limiter, is
    retried per :class:`RetryPolicy`, raises :class:`HTTPStatusError` for an error status and, with
    ``validate``, checks the body (raising :class:`MalformedResponse`) before the caller sees it.

    Hand it to a client library in place of its own session (``arxiv.Client._session``), or call
    ``get`` directly.
    """

    def __init__(
        self,
        label: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        limiter: RateLimiter | None = None,
        validate: Callable[[bytes], Any] | None = None,
        user_agent: str = USER_AGENT,
        sleep: Callable[[float], Any] = time.sleep,
    ):
        super().__init__()
        self.label = label
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.limiter = limiter or RateLimiter(0.0)
        self.validate = validate
        self.user_agent = user_agent
        self._sleep = sleep
        self.headers["User-Agent"] = user_agent

    def request(self, method, url, *args, **kwargs):
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = self.timeout_s
        headers = CaseInsensitiveDict(kwargs.get("headers") or {})
        headers["User-Agent"] = self.user_agent  # libraries pass their own; we identify ourselves
        kwargs["headers"] = headers

        def attempt():
            self.limiter.wait()
            response = requests.Session.request(self, method, url, *args, **kwargs)
            if response.status_code >= 400:
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
                reason, status = response.reason or "", response.status_code
                response.close()
                raise HTTPStatusError(status, reason, retry_after, url=response.url)
            if self.validate is not None:
                self.validate(response.content)
            return response

        return with_retries(attempt, self.retry, label=self.label, sleep=self._sleep)


def parse_json_object(body: bytes) -> dict:
    """The body as a JSON object, else :class:`MalformedResponse`."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedResponse(f"not valid JSON ({one_line(exc)})") from exc
    if not isinstance(data, dict):
        raise MalformedResponse(f"expected a JSON object, got {type(data).__name__}")
    return data


def parse_xml(body: bytes, *, root_tags: tuple[str, ...] = ()) -> ET.Element:
    """The body as XML (stdlib ElementTree: no DTD or external entity is ever fetched).

    With ``root_tags`` the root element must be one of them, else :class:`MalformedResponse`.
    """
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise MalformedResponse(f"not valid XML ({one_line(exc)})") from exc
    if root_tags and root.tag not in root_tags:
        raise MalformedResponse(f"unexpected XML document <{root.tag}>")
    return root


# ----------------------------------------------------------------------------- cache


class CacheDataError(ValueError):
    """A cache row that this cache did not write (pickled, binary): refused, never loaded."""


class _JSONTextDisk(JSONTextDisk):
    data_error = CacheDataError
    noun = "cache row"


def normalise_args(value: Any) -> Any:
    """Cache-key form of tool arguments: whitespace collapsed in strings, recursively."""
    if isinstance(value, str):
        return collapse(value)
    if isinstance(value, Mapping):
        return {str(k): normalise_args(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalise_args(v) for v in value]
    return value


class ResponseCache:
    """Answers of one or more sources on disk, as JSON text, each expiring after ``expire_s``.

    A cache that cannot be opened, read or written is logged and skipped: it never fails a call.
    """

    def __init__(self, directory: Path | str, *, expire_s: float = DEFAULT_CACHE_EXPIRE_S, timeout_s: float = 2.0):
        self.directory = Path(directory)
        self.expire_s = expire_s
        self.timeout_s = timeout_s
        self._cache: diskcache.Cache | None = None
        self._broken = False
        self._lock = threading.Lock()

    @staticmethod
    def key(source: str, operation: str, args: Mapping[str, Any]) -> str:
        payload = {"v": CACHE_FORMAT, "source": source, "op": operation, "args": normalise_args(args)}
        return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    def _open(self) -> diskcache.Cache | None:
        with self._lock:
            if self._cache is None and not self._broken:
                try:
                    self._cache = diskcache.Cache(
                        str(self.directory),
                        disk=_JSONTextDisk,
                        timeout=self.timeout_s,
                        eviction_policy="least-recently-stored",
                    )
                except Exception as exc:  # noqa: BLE001 - a cache is optional
                    self._broken = True
                    logger.warning("response cache disabled: cannot open %s: %s", self.directory, one_line(exc))
            return self._cache

    def get(self, source: str, operation: str, args: Mapping[str, Any]) -> Any | None:
        cache = self._open()
        if cache is None:
            return None
        key = self.key(source, operation, args)
        try:
            text = cache.get(key)
        except (CacheDataError, diskcache.Timeout, sqlite3.Error, OSError) as exc:
            logger.warning("response cache: cannot read an entry (%s); ignoring it", one_line(exc))
            return None
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            logger.warning("response cache: an entry is not JSON; ignoring it")
            return None

    def set(self, source: str, operation: str, args: Mapping[str, Any], value: Any) -> bool:
        cache = self._open()
        if cache is None:
            return False
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        try:
            return bool(cache.set(self.key(source, operation, args), text, expire=self.expire_s))
        except (diskcache.Timeout, sqlite3.Error, OSError) as exc:
            logger.warning("response cache: cannot write an entry (%s)", one_line(exc))
            return False

    def close(self) -> None:
        with self._lock:
            if self._cache is not None:
                self._cache.close()
                self._cache = None


def cached_call(
    cache: ResponseCache | None, source: str, operation: str, args: Mapping[str, Any], fetch: Callable[[], T]
) -> T:
    """``fetch()``'s JSON-able answer, from the cache when it holds one (only successes are stored)."""
    if cache is not None:
        hit = cache.get(source, operation, args)
        if hit is not None:
            logger.debug("%s %s: cache hit", source, operation)
            return hit
    value = fetch()
    if cache is not None:
        cache.set(source, operation, args, value)
    return value


# ----------------------------------------------------------------------------- server side


async def run_source_call(
    what: str,
    label: str,
    func: Callable[..., T],
    *args: Any,
    call_timeout_s: float,
    timeout_s: float | None = None,
    host: str | None = None,
    log: logging.Logger = logger,
) -> T:
    """Run blocking ``func(*args)`` in a worker thread within ``call_timeout_s``; any failure
    becomes a ``ToolError`` with one line (see :func:`describe_error`)."""

    def guarded():
        # exceptions come back as values, so that a TimeoutError from a socket is not mistaken
        # for this call's own deadline
        try:
            return True, func(*args)
        except Exception as exc:  # noqa: BLE001 - described below
            return False, exc

    try:
        with anyio.fail_after(call_timeout_s):
            ok, value = await anyio.to_thread.run_sync(guarded, abandon_on_cancel=True)
    except TimeoutError:
        log.warning("%s gave up after %gs", what, call_timeout_s)
        raise ToolError(f"{what} gave up after {call_timeout_s:g}s: {label} is answering too slowly") from None
    if not ok:
        message = describe_error(label, value, timeout_s=timeout_s, host=host)
        unexpected = isinstance(value, UNEXPECTED_RESPONSE)
        log.warning("%s failed: %s", what, message, exc_info=value if unexpected else None)
        raise ToolError(message)
    return value


# ----------------------------------------------------------------------------- command line


def default_cache_dir() -> Path:
    env = os.environ.get("MERMAID_CACHE_DIR", "").strip()
    if env:
        return Path(env) / "sources"
    import platformdirs

    return Path(platformdirs.user_cache_dir("mermaid-verifier")) / "sources"


def argument_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="Where answers are cached (JSON, 7 days). Default: $MERMAID_CACHE_DIR/sources or "
        "<user cache dir>/mermaid-verifier/sources.",
    )
    parser.add_argument("--no-cache", action="store_true", help="Do not read or write the response cache.")
    parser.add_argument(
        "--cache-days",
        type=float,
        default=DEFAULT_CACHE_EXPIRE_S / 86400,
        help="Days a cached answer stays valid (default 7).",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"Seconds allowed per HTTP request (default {DEFAULT_TIMEOUT_S:g}).",
    )
    parser.add_argument(
        "--call-timeout",
        type=float,
        default=DEFAULT_CALL_TIMEOUT_S,
        help=f"Seconds allowed per tool call, retries included (default {DEFAULT_CALL_TIMEOUT_S:g}).",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        help="stderr log level.",
    )
    return parser


def check_common_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    for name in ("timeout", "call_timeout", "cache_days"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")


def configure_logging(level: str) -> None:
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def cache_from_args(args: argparse.Namespace) -> ResponseCache | None:
    if args.no_cache:
        return None
    return ResponseCache(args.cache_dir or default_cache_dir(), expire_s=args.cache_days * 86400)


def run_stdio(server) -> None:
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass


def source_server(
    name: str,
    instructions: str,
    cache: "ResponseCache | None",
    label: str,
    host: str,
    call_timeout_s: float,
    timeout_s: float,
    log: logging.Logger,
):
    """The FastMCP server every live source shares (its response cache closed when the server stops),
    and ``run(what, func, *args)``: a blocking client call made under the source's timeouts."""
    from contextlib import asynccontextmanager

    from mcp.server.fastmcp import FastMCP

    @asynccontextmanager
    async def lifespan(_: FastMCP):
        try:
            yield None
        finally:
            if cache is not None:
                cache.close()

    server = FastMCP(name, instructions=instructions, lifespan=lifespan, log_level="WARNING")

    async def run(what: str, func, *args):
        return await run_source_call(
            what, label, func, *args, call_timeout_s=call_timeout_s, timeout_s=timeout_s, host=host, log=log
        )

    return server, run
