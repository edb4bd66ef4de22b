"""Reading what a model wrote as text: the text of a message, the JSON values in it, and the tool calls a
server wrote as JSON text instead of ``tool_calls`` (llama.cpp's chat template does, with
``tool_choice="auto"``), in every form seen from real servers.
"""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import Callable
from typing import Any

from langchain_core.messages import BaseMessage

logger = logging.getLogger(__name__)


def message_text(message: BaseMessage) -> str:
    """The text of a message, whether its content is a string or a list of content blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


_DECODER = json.JSONDecoder()
_CALL_NAME_KEYS = ("name", "tool", "action", "function", "tool_name")
_CALL_ARGUMENT_KEYS = ("arguments", "parameters", "args", "tool_input", "action_input", "input")


def json_values(text: str) -> list[Any]:
    """The JSON values a model wrote, in order: the whole text if it is JSON, else every object or array
    found in it (inside ``<tool_call>`` tags, code fences or prose; spread over lines or not).

    Two slips of real servers are forgiven when nothing parses as written: doubled braces
    (``{{"name": …}}``, copied from a template) and Python literals (single quotes, ``True``/``None``)."""
    text = text.strip()
    if not text:
        return []
    whole = loads_or_none(text)
    if whole is not None:
        return [whole]
    found = []
    if "{{" in text:  # never valid JSON outside a string: the braces were doubled
        found = _scan(text.replace("{{", "{").replace("}}", "}"))
    if not found:
        found = _scan(text)
    if not found:
        found = [v for v in (_literal(span) for span in _balanced_spans(text)) if v is not None]
    return found


def loads_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def _scan(text: str) -> list[Any]:
    """Every top-level JSON object or array in ``text`` (a failed start moves on by one character)."""
    values: list[Any] = []
    at = 0
    while True:
        starts = [i for i in (text.find("{", at), text.find("[", at)) if i >= 0]
        if not starts:
            return values
        start = min(starts)
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            at = start + 1
            continue
        if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, dict) for v in value)):
            values.append(value)
        at = end


def _balanced_spans(text: str) -> list[str]:
    """Outermost ``{…}`` spans, braces inside quotes ignored."""
    spans, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            if char == quote and text[i - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char if depth else ""
        elif char == "{":
            start = i if depth == 0 else start
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _literal(span: str) -> Any:
    try:
        value = ast.literal_eval(span)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def call_items(value: Any) -> list[dict]:
    """``{"name": str, "arguments": …}`` for every tool call ``value`` describes, in any of the shapes
    servers and ReAct-trained models write: OpenAI ``{"function": {…}}`` items, ``{"tool_calls": […]}``,
    ``{"name", "arguments" | "parameters" | "args"}``, ``{"tool", "tool_input"}``, ``{"action",
    "action_input"}``, ``{"function": name, "arguments"}``, or a list of these."""
    if isinstance(value, list):
        return [item for v in value for item in call_items(v)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return [item for v in value["tool_calls"] for item in call_items(v)]
    if isinstance(value.get("function"), dict):
        return call_items(value["function"])
    name = next((value[k] for k in _CALL_NAME_KEYS if isinstance(value.get(k), str)), None)
    arguments_key = next((k for k in _CALL_ARGUMENT_KEYS if k in value), None)
    if name is None or arguments_key is None:
        return []
    return [{"name": name, "arguments": value[arguments_key], "id": value.get("id")}]


def tool_calls_from_content(text: str, resolve: Callable[[str], str | None]) -> list[dict]:
    """Tool calls a server wrote as JSON text (see :func:`json_values` and :func:`_call_items` for the
    forms understood).

    Only JSON naming a known tool counts (``resolve`` maps a name to its canonical tool name, or None), so
    a JSON final answer is never mistaken for a call. Ids are left empty for the caller to assign."""
    items = [item for value in json_values(text) for item in call_items(value)]
    if not items or not any(resolve(item["name"]) for item in items):
        return []
    calls = []
    for item in items:
        arguments = item["arguments"]
        if isinstance(arguments, str):
            arguments = (loads_or_none(arguments) or _literal(arguments)) if arguments.strip() else {}
        name = resolve(item["name"]) or item["name"]
        calls.append(
            {
                "name": name,
                "args": arguments if isinstance(arguments, dict) else {"__invalid__": arguments},
                "id": item.get("id") or "",
                "type": "tool_call",
            }
        )
    return calls
