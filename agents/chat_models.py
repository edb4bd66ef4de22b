"""The chat models the LLM agents talk to.

:class:`ChatModels` builds one ``ChatOpenAI`` per model name, speaking the Chat Completions API
(``use_responses_api=False``) so any OpenAI-compatible server works (vLLM, llama.cpp, Ollama, LM Studio …);
a local server needs no key (a placeholder is passed). :func:`compatible_payload` rewrites each request
into what every such server accepts (``content: ""`` instead of ``null``, ``max_tokens``);
``tests/test_llm_wire.py`` pins the exact bodies sent through the real ``openai`` client.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

PLACEHOLDER_API_KEY = "not-needed"  # local OpenAI-compatible servers ignore the key, but the client wants one


class ChatModels:
    """role ("decomposer", "executor", "judge") -> a chat model for that role's model; one per model name.

    The models share one HTTP client that belongs to this object (``aclose()`` closes it). LangChain's
    default is a client cached for the whole process, whose connections stay bound to the event loop
    that first used them: a second ``asyncio.run`` in the same process (a notebook, a test) then fails
    with "Event loop is closed"."""

    def __init__(self, settings):
        self.settings = settings
        self.built: dict[str, BaseChatModel] = {}
        self.http_client = None

    def __call__(self, role: str) -> BaseChatModel:
        settings = self.settings
        name = settings.model_for(role)
        if name not in self.built:
            if self.http_client is None:
                from openai import (
                    DefaultAsyncHttpxClient,  # the openai client's own HTTP client, with its defaults
                )

                self.http_client = DefaultAsyncHttpxClient(timeout=settings.llm_timeout_s)
            kwargs: dict[str, Any] = dict(
                model=name,
                base_url=settings.openai_base_url,
                api_key=settings.openai_api_key or PLACEHOLDER_API_KEY,
                use_responses_api=False,
                timeout=settings.llm_timeout_s,
                max_retries=settings.llm_retries,
                max_tokens=settings.llm_max_tokens,
                http_async_client=self.http_client,
            )
            if settings.llm_temperature is not None:
                kwargs["temperature"] = settings.llm_temperature
            self.built[name] = compatible_chat_model_class()(**kwargs)
        return self.built[name]

    async def aclose(self) -> None:
        if self.http_client is not None:
            await self.http_client.aclose()
            self.http_client = None
            self.built.clear()


def chat_model_factory(settings) -> ChatModels:
    """The chat models of a run, built from ``settings`` (see :class:`ChatModels`)."""
    return ChatModels(settings)


def compatible_payload(payload: dict, model: str | None) -> dict:
    """A Chat Completions request body in the dialect every OpenAI-compatible server accepts.

    - An assistant turn that only calls tools goes out with ``content: ""``, not ``null`` (llama.cpp
      answers HTTP 500 to ``null``; OpenAI, vLLM and Ollama accept both).
    - The completion cap goes out as ``max_tokens`` (LangChain writes ``max_completion_tokens``, which
      llama.cpp and older servers ignore, so an answer could run to the context limit); OpenAI's
      o-series models take only ``max_completion_tokens`` and keep it."""
    for message in payload.get("messages", []):
        if message.get("role") == "assistant" and message.get("content") is None:
            message["content"] = ""
    if "max_completion_tokens" in payload and not re.match(r"^o\d", model or ""):
        payload["max_tokens"] = payload.pop("max_completion_tokens")
    return payload


@functools.cache
def compatible_chat_model_class():
    """``ChatOpenAI`` whose requests pass through :func:`compatible_payload` (langchain-openai is
    imported on first use: the offline path never needs it)."""
    from langchain_openai import ChatOpenAI

    class CompatibleChatOpenAI(ChatOpenAI):
        """ChatOpenAI speaking the Chat Completions dialect local servers accept."""

        def _get_request_payload(self, input_, *, stop=None, **kwargs) -> dict:
            return compatible_payload(super()._get_request_payload(input_, stop=stop, **kwargs), self.model_name)

    return CompatibleChatOpenAI


def as_model_factory(chat_model) -> Callable[[str], BaseChatModel]:
    """Normalise a model override: one model for every role, a ``{role: model}`` mapping, or a callable."""
    if isinstance(chat_model, BaseChatModel):
        return lambda role: chat_model
    if isinstance(chat_model, Mapping):
        return lambda role: chat_model[role]
    if callable(chat_model):
        return chat_model
    raise TypeError(f"chat_model must be a chat model, a mapping of roles to models or a callable, got {chat_model!r}")
