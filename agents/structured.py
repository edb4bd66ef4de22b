"""Structured output: :class:`StructuredCaller` asks a model for a pydantic schema, repairs a bad answer once
and falls back to the next output mode a server accepts.

The schema is passed as an OpenAI tool *dict*, not the class: with a class the OpenAI SDK validates
inside the request and a malformed answer becomes an exception without the raw text; as a dict the answer
comes back as ``raw`` + ``parsed`` + ``parsing_error`` and is validated here. A bad or empty answer is
sent back once with a repair message quoting the error; a second bad answer raises
:class:`~mermaid_verifier.errors.LLMOutputError`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from mermaid_verifier.agents.model_calls import ainvoke_model
from mermaid_verifier.agents.tool_text import (
    call_items,
    json_values,
    loads_or_none,
    message_text,
)
from mermaid_verifier.config import STRUCTURED_METHODS
from mermaid_verifier.errors import ConfigError, LLMOutputError, LLMServiceError

logger = logging.getLogger(__name__)
Answer = TypeVar("Answer", bound=BaseModel)  # the pydantic schema a caller asks for

ERROR_QUOTE_CHARS = 600  # how much of a parse error a repair message quotes


def short_error(exc: BaseException) -> str:
    """A parse or validation error in a line or two, for a repair message and a verdict's reason."""
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors()[:6]]
        text = "; ".join(parts)
    else:
        text = " ".join(str(exc).split())
        text = text.split(" For troubleshooting, visit:")[0]  # LangChain's link adds nothing for the model
    return text[:ERROR_QUOTE_CHARS]


def _salvage(raw: AIMessage | None, name: str) -> Any:
    """A structured answer the parser missed: JSON in the content (optionally wrapped as a call of the
    schema's function), or the arguments of whatever function the model called."""
    if raw is None:
        return None
    for call in raw.tool_calls or []:
        return call.get("args")
    for value in json_values(message_text(raw)):
        items = call_items(value)
        if items and items[0]["name"] == name:
            arguments = items[0]["arguments"]
            return loads_or_none(arguments) if isinstance(arguments, str) else arguments
        if isinstance(value, dict):
            return value
    return None


def _repair_turn(raw: AIMessage | None, text: str) -> list[BaseMessage]:
    """The bad answer and the repair request, in a shape every Chat Completions server accepts."""
    if raw is None:
        return [HumanMessage(text)]
    calls = raw.tool_calls or []
    if calls and all(c.get("id") for c in calls) and not raw.invalid_tool_calls:
        return [
            AIMessage(content=message_text(raw), tool_calls=calls),
            *[ToolMessage(content=text, tool_call_id=c["id"]) for c in calls],
        ]
    shown = message_text(raw)
    attempted: list[dict[str, Any]] = [
        {"name": c.get("name"), "arguments": c.get("args")} for c in raw.tool_calls or []
    ]
    attempted += [{"name": c.get("name"), "arguments": c.get("args")} for c in raw.invalid_tool_calls or []]
    if attempted:
        shown = (shown + "\n" + json.dumps(attempted, ensure_ascii=False)).strip()
    return [AIMessage(content=shown or "(empty answer)"), HumanMessage(text)]


class StructuredCaller(Generic[Answer]):
    """Ask a model for a pydantic ``schema``; repair once; fall back to the next output mode when the
    server rejects one.

    Modes, in fallback order: ``json_schema`` (OpenAI's structured outputs), ``json_object`` with the
    schema attached (``response_format={"type": "json_object", "schema": …}``: llama.cpp and vLLM
    constrain the answer to it), ``function_calling`` (the schema as a forced function). A rejection
    (any HTTP error that is not about length, auth or rate; llama.cpp answers 500 to ``json_schema``)
    moves this caller to the next mode for the rest of the run."""

    def __init__(
        self,
        model: BaseChatModel,
        schema: type[Answer],
        *,
        method: str = "json_schema",
        error_class: type[LLMOutputError] = LLMOutputError,
        what: str = "answer",
    ):
        if method not in STRUCTURED_METHODS:
            raise ConfigError(
                f"structured output method must be one of {', '.join(STRUCTURED_METHODS)}, got {method!r}"
            )
        self.model = model
        self.schema = schema
        self.method = method
        self.error_class = error_class
        self.what = what
        self.tool = convert_to_openai_tool(schema)["function"]  # {name, description, parameters}
        self.name = self.tool["name"]

    def _runnable(self):
        if self.method == "json_object":
            return self.model.bind(response_format={"type": "json_object", "schema": self.tool["parameters"]})
        return self.model.with_structured_output(self.tool, method=self.method, include_raw=True)

    async def _once(self, messages: list[BaseMessage]) -> tuple[AIMessage | None, Any, str | None]:
        """(raw answer, parsed JSON value or None, error text or None)."""
        try:
            out = await ainvoke_model(self._runnable(), messages)
        except LLMServiceError as exc:
            following = STRUCTURED_METHODS[STRUCTURED_METHODS.index(self.method) + 1 :]
            if not following or not exc.rejects_request:
                raise
            logger.warning(
                "the LLM server rejected %s output (%s); using %s from now on", self.method, exc, following[0]
            )
            self.method = following[0]
            return await self._once(messages)
        if isinstance(out, dict):
            raw, parsed, error = out.get("raw"), out.get("parsed"), out.get("parsing_error")
        else:  # json_object: the JSON is the message text
            raw, parsed, error = out, None, None
        if parsed is None:
            parsed = _salvage(raw, self.name)
        if parsed is None:
            if error is not None:
                return raw, None, short_error(error)
            if raw is not None and not message_text(raw).strip() and not raw.tool_calls:
                return raw, None, "the answer was empty"
            return raw, None, "the answer held no JSON object matching the schema"
        return raw, parsed, None

    async def __call__(
        self,
        messages: list[BaseMessage],
        repair: Callable[[str], str],
        validate: Callable[[Answer], None] | None = None,
    ) -> Answer:
        """The validated answer. ``validate`` raises ValueError for a well-formed but wrong answer (e.g.
        unknown ids); ``repair(error)`` is the message sent back with the first error."""
        history = list(messages)
        for attempt in (1, 2):
            raw, parsed, error = await self._once(history)
            if error is None:
                try:
                    value = self.schema.model_validate(parsed)
                    if validate is not None:
                        validate(value)
                    return value
                except (ValidationError, ValueError) as exc:
                    error = short_error(exc)
            if attempt == 2:
                raise self.error_class(f"the model's {self.what} was unusable twice: {error}")
            logger.info("repairing the model's %s: %s", self.what, error)
            history += _repair_turn(raw, repair(error))
        raise AssertionError("unreachable")
