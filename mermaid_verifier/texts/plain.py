"""Grounding from plain Python, for notebooks and evaluation scripts: no asyncio for the caller.

    from mermaid_verifier import ground, Grounder

    result = ground("The harbour was rebuilt in 1923.", ["The harbour was rebuilt in 1923 after a storm."])
    result.summary.supported_share          # share of checkable sentences supported

    with Grounder() as grounder:            # the claim extractor and the stance model load once
        for answer, contexts in logged:
            score = grounder.ground(answer, contexts).summary.supported_share

A :class:`Grounder` owns an event loop in a thread of its own, so it works where a loop already runs (Jupyter)
as well as in a plain script; every call blocks until its result is in, and an error is raised in the caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from typing import Any

from mermaid_verifier.config import Settings
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import GroundingResult
from mermaid_verifier.texts.job import TextJob


class Grounder:
    """Answers grounded against their contexts, one after another, with one claim extractor and one stance model
    loaded for all of them. Use it as a context manager, or call :meth:`close`."""

    def __init__(self, settings: Settings | None = None) -> None:
        self._settings = settings
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mermaid-verifier-grounder", daemon=True)
        self._thread.start()
        self._stack = contextlib.AsyncExitStack()
        self._job: TextJob | None = None
        try:
            self._job = self._call(self._open())
        except BaseException:
            self.close()
            raise

    async def _open(self) -> TextJob:
        settings = self._settings or await asyncio.to_thread(Settings.from_env)
        return await self._stack.enter_async_context(TextJob.open(settings, documents_only=True))

    def _call(self, coroutine) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def ground(self, answer: str, contexts: Sequence) -> GroundingResult:
        """``answer`` against ``contexts`` (plain texts, (title, text) pairs, ``{"name", "title", "text"}`` dicts or
        :class:`~mermaid_verifier.models.GivenDocument`): each sentence and claim supported, contradicted or not
        stated, with the sentence that decided it."""
        if self._job is None:
            raise UsageError("this Grounder is closed: open another")
        result = self._call(self._job.check(answer, list(contexts)))
        assert isinstance(result, GroundingResult)
        return result

    def close(self) -> None:
        """Close the job and stop the loop's thread (safe to call twice)."""
        if self._loop.is_closed():
            return
        try:
            if self._thread.is_alive():
                self._call(self._stack.aclose())
        finally:
            self._job = None
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
            self._loop.close()

    def __enter__(self) -> Grounder:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def ground(answer: str, contexts: Sequence, settings: Settings | None = None) -> GroundingResult:
    """One answer against its contexts (see :meth:`Grounder.ground`); for many, keep a :class:`Grounder` open."""
    with Grounder(settings) as grounder:
        return grounder.ground(answer, contexts)
