"""The live sources' answer cache: :class:`ResponseCache`, diskcache holding JSON text only (a ``Disk`` that
neither pickles nor unpickles, so a planted pickle cannot run code -- CVE-2025-69872), keyed by source +
operation + normalised arguments, expiring after 7 days by default.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import diskcache

from mermaid_verifier.tools.servers.json_disk import JSONTextDisk
from mermaid_verifier.tools.servers.source_errors import CacheDataError, one_line
from mermaid_verifier.tools.servers.source_http import CACHE_FORMAT, DEFAULT_CACHE_EXPIRE_S, T
from mermaid_verifier.tools.servers.source_passages import collapse

logger = logging.getLogger(__name__)


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

    def set(
        self, source: str, operation: str, args: Mapping[str, Any], value: Any, *, expire_s: float | None = None
    ) -> bool:
        """Store an answer for ``expire_s`` seconds, or the cache's ``expire_s`` if that is shorter or not given."""
        cache = self._open()
        if cache is None:
            return False
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        life = self.expire_s if expire_s is None else min(expire_s, self.expire_s)
        try:
            return bool(cache.set(self.key(source, operation, args), text, expire=life))
        except (diskcache.Timeout, sqlite3.Error, OSError) as exc:
            logger.warning("response cache: cannot write an entry (%s)", one_line(exc))
            return False

    def close(self) -> None:
        with self._lock:
            if self._cache is not None:
                self._cache.close()
                self._cache = None


def cached_call(
    cache: ResponseCache | None,
    source: str,
    operation: str,
    args: Mapping[str, Any],
    fetch: Callable[[], T],
    *,
    expire_s_for: Callable[[T], float | None] | None = None,
) -> T:
    """``fetch()``'s JSON-able answer, from the cache when it holds one (only successes are stored).
    ``expire_s_for(answer)`` may give an answer a shorter life than the cache's (None: the cache's)."""
    if cache is not None:
        hit = cache.get(source, operation, args)
        if hit is not None:
            logger.debug("%s %s: cache hit", source, operation)
            return hit
    value = fetch()
    if cache is not None:
        cache.set(source, operation, args, value, expire_s=expire_s_for(value) if expire_s_for else None)
    return value
