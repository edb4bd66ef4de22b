"""How a live-source server talks to its service: :class:`SourceSession` (a ``requests.Session`` that puts
``timeout=`` on every request and names the project in its User-Agent), :func:`with_retries` (exponential
backoff with jitter on HTTP 429 / 5xx and connection resets, ``Retry-After`` honoured up to a limit; timeouts,
DNS failures and refused connections are not retried), :class:`RateLimiter` (a minimum interval between
requests to one source, shared by all threads) and the body parsers.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import requests
from requests.structures import CaseInsensitiveDict

from mermaid_verifier.tools.servers.source_errors import (
    HTTPStatusError,
    MalformedResponse,
    RetriesExhausted,
    describe_error,
    http_status_of,
    is_connection_reset,
    is_retryable_status,
    is_source_busy,
    is_timeout,
    one_line,
    parse_retry_after,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 8.0  # one HTTP request
DEFAULT_CALL_TIMEOUT_S = 18.0  # one tool call, retries included (the toolbox waits 20 s)
DEFAULT_CACHE_EXPIRE_S = 7 * 24 * 3600.0
MAX_ERROR_BODY = 64 * 1024  # how much of an error response is read for its reason
CACHE_FORMAT = 2  # part of every cache key: bump it when a cached record's shape changes

NCBI_INTERVAL_S = 0.35  # a little over 1/3 s: at most 3 requests per second without an API key
NCBI_INTERVAL_WITH_KEY_S = 0.11  # at most 10 requests per second with NCBI_API_KEY


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mermaid-verifier")
    except PackageNotFoundError:  # not installed (running from a checkout)
        return "0"


CONTACT_ENV = "MERMAID_CONTACT"  # an email address or URL where the services can reach whoever runs this copy


def contact_from_env(environ: dict[str, str] | None = None) -> str | None:
    """The operator's contact (``MERMAID_CONTACT``), None when unset."""
    env = os.environ if environ is None else environ
    return (env.get(CONTACT_ENV) or "").strip() or None


def user_agent_for(contact: str | None) -> str:
    """What the live sources see: the tool, its version, the operator's contact -- Wikimedia's
    User-Agent policy and arXiv's API terms ask for one -- and the HTTP library."""
    about = f"{contact}; claim-verification tool" if contact else f"claim-verification tool; contact: set {CONTACT_ENV}"
    return f"mermaid-verifier/{_package_version()} ({about}) python-requests/{requests.__version__}"


def warn_without_contact(contact: str | None, log: logging.Logger) -> None:
    """A server started without a contact says so once (the services may throttle anonymous clients)."""
    if contact is None:
        log.warning("no contact address in the User-Agent: set %s to an email or URL, as the service asks", CONTACT_ENV)


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
    # a busy source may have said so with an error status (an EFetch 400 that passes on a 502)
    status = None if is_source_busy(exc) else http_status_of(exc)
    if status is not None:
        code, _, retry_after = status
        if not is_retryable_status(code):
            return None
        if retry_after is not None:
            return retry_after if retry_after <= policy.max_retry_after_s else None
    elif is_timeout(exc) or not (is_connection_reset(exc) or is_source_busy(exc)):
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
        error_detail: Callable[[bytes], str] | None = None,
        user_agent: str | None = None,
        sleep: Callable[[float], Any] = time.sleep,
    ):
        super().__init__()
        self.label = label
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.limiter = limiter or RateLimiter(0.0)
        self.validate = validate
        self.error_detail = error_detail
        self.user_agent = user_agent or user_agent_for(contact_from_env())
        self._sleep = sleep
        self.headers["User-Agent"] = self.user_agent

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
                detail = self._error_detail(response)
                response.close()
                raise HTTPStatusError(status, reason, retry_after, url=response.url, detail=detail)
            if self.validate is not None:
                self.validate(response.content)
            return response

        return with_retries(attempt, self.retry, label=self.label, sleep=self._sleep)

    def _error_detail(self, response: requests.Response) -> str:
        """What an error response's body says, read with the source's ``error_detail`` ('' when it says nothing)."""
        if self.error_detail is None:
            return ""
        try:
            body = response.content[:MAX_ERROR_BODY]
        except requests.RequestException as exc:  # the body broke off: the status still stands
            logger.debug("%s: cannot read the error body: %s", self.label, one_line(exc))
            return ""
        return self.error_detail(body)


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
