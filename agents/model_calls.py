"""Every model call goes through :func:`ainvoke_model`: it translates the client's API errors into
:class:`~mermaid_verifier.errors.LLMServiceError` and adds the call and its token counts
(``usage_metadata``, else ``response_metadata["token_usage"]``; never a local tokenizer) to every open
:func:`usage_scope`. Scopes live in a context variable, so concurrent claims (each in its own graph task)
never mix their numbers. Cost is recomputed from the token totals with :class:`Pricing` (USD per million
input / output tokens).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from mermaid_verifier.errors import LLMServiceError
from mermaid_verifier.models import Stats

logger = logging.getLogger(__name__)


def _as_service_error(exc: BaseException) -> LLMServiceError | None:
    try:
        import openai
    except ImportError:  # pragma: no cover - langchain-openai depends on openai
        return None
    if not isinstance(exc, openai.APIError):
        return None
    status = getattr(exc, "status_code", None)
    full = " ".join(str(getattr(exc, "message", None) or exc).split())
    where = f"HTTP {status}" if status else type(exc).__name__
    overflow = (
        "ContextOverflow" in "".join(c.__name__ for c in type(exc).__mro__)
        or getattr(exc, "code", None) == "context_length_exceeded"
        or "context_length_exceeded" in full
    )
    return LLMServiceError(f"LLM endpoint error ({where}): {full[:300]}", status, overflow)


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add_message(self, message: Any) -> None:
        prompt, completion = message_tokens(message)
        self.calls += 1
        self.prompt_tokens += prompt
        self.completion_tokens += completion


@dataclass(frozen=True)
class Pricing:
    """USD per million input / output tokens."""

    price_in: float = 0.0
    price_out: float = 0.0

    @classmethod
    def from_settings(cls, settings) -> Pricing | None:
        if settings.price_in is None and settings.price_out is None:
            return None
        return cls(settings.price_in or 0.0, settings.price_out or 0.0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_in + completion_tokens * self.price_out) / 1_000_000


_scopes: contextvars.ContextVar[tuple[Usage, ...]] = contextvars.ContextVar("mermaid_llm_usage", default=())


@contextlib.contextmanager
def usage_scope() -> Iterator[Usage]:
    """Collect the usage of every model call made inside the block (in this task and tasks it starts)."""
    usage = Usage()
    token = _scopes.set(_scopes.get() + (usage,))
    try:
        yield usage
    finally:
        _scopes.reset(token)


def message_tokens(message: Any) -> tuple[int, int]:
    """(prompt, completion) tokens the server reported for one response; (0, 0) when it reported none."""
    usage = getattr(message, "usage_metadata", None)
    if usage:
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    meta = getattr(message, "response_metadata", None) or {}
    reported = meta.get("token_usage") or meta.get("usage") or {}
    prompt = reported.get("prompt_tokens", reported.get("input_tokens")) or 0
    completion = reported.get("completion_tokens", reported.get("output_tokens")) or 0
    return int(prompt), int(completion)


def add_usage(stats: Stats, usage: Usage | Stats, pricing: Pricing | None) -> Stats:
    """``stats`` plus the LLM calls and tokens of ``usage`` (a Usage or another Stats), cost recomputed."""
    if isinstance(usage, Stats):
        calls, prompt, completion = usage.llm_calls, usage.prompt_tokens, usage.completion_tokens
    else:
        calls, prompt, completion = usage.calls, usage.prompt_tokens, usage.completion_tokens
    merged = stats.model_copy(
        update={
            "llm_calls": stats.llm_calls + calls,
            "prompt_tokens": stats.prompt_tokens + prompt,
            "completion_tokens": stats.completion_tokens + completion,
        }
    )
    return priced(merged, pricing)


def priced(stats: Stats, pricing: Pricing | None) -> Stats:
    """``stats`` with ``cost_usd`` computed from its token totals (None without prices)."""
    if pricing is None:
        return stats
    return stats.model_copy(update={"cost_usd": round(pricing.cost(stats.prompt_tokens, stats.completion_tokens), 8)})


async def ainvoke_model(runnable, messages: list[BaseMessage]):
    """Call a chat model (or a structured-output wrapper of one), account for it, translate API errors."""
    try:
        out = await runnable.ainvoke(messages)
    except Exception as exc:
        service_error = _as_service_error(exc)
        if service_error is not None:
            raise service_error from exc
        raise
    raw = out.get("raw") if isinstance(out, dict) else out
    if raw is not None:
        for usage in _scopes.get():
            usage.add_message(raw)
    return out
