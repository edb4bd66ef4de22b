"""What the LLM agents share: the chat-model factory, prompt files, usage accounting, tolerant
tool-call parsing and the structured-output call that repairs a bad answer once.

Chat models
    :func:`chat_model_factory` builds one ``ChatOpenAI`` per model name, speaking the Chat
    Completions API (``use_responses_api=False``) so any OpenAI-compatible server works (vLLM,
    llama.cpp, Ollama, LM Studio …). A local server needs no key: a placeholder is passed.
Prompts
    ``prompts/<agent>.md``, split into sections by ``## <name>`` heading lines (``## system``,
    ``## user``, ``## repair``); each section is a ``str.format`` template, so literal braces are
    written ``{{`` and ``}}``. A file of the same name in ``MERMAID_PROMPTS_DIR`` replaces the bundled
    one. Missing sections and unknown placeholders are reported when the agent is built.
Accounting
    Every model call goes through :func:`ainvoke_model`, which adds the call and its token counts
    (``usage_metadata``, else ``response_metadata["token_usage"]``; never a local tokenizer) to
    every open :func:`usage_scope`. Scopes live in a context variable, so concurrent claims (each
    in its own graph task) never mix their numbers. Cost is recomputed from the token totals with
    :class:`Pricing` (USD per million input / output tokens).
Structured output
    :class:`StructuredCaller` asks for a pydantic schema with ``with_structured_output(...,
    method="json_schema" | "function_calling", include_raw=True)``. The schema is passed as an
    OpenAI tool *dict*, not the class: with a class the OpenAI SDK validates inside the request and a
    malformed answer becomes an exception without the raw text; as a dict the answer comes back as
    ``raw`` + ``parsed`` + ``parsing_error`` and is validated here. A bad or empty answer is sent
    back once with a repair message quoting the error; a second bad answer raises
    :class:`LLMOutputError`. A server that rejects an output mode is switched to the next one
    (JSON schema → JSON object with the schema → function calling) for the rest of the run.
Wire format
    :func:`compatible_payload` rewrites each request into what every OpenAI-compatible server
    accepts (``content: ""`` instead of ``null``, ``max_tokens``); ``tests/test_llm_wire.py`` pins the
    exact bodies sent through the real ``openai`` client.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
import json
import logging
import re
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from mermaid_verifier.config import STRUCTURED_METHODS
from mermaid_verifier.errors import ConfigError, LLMOutputError, LLMServiceError
from mermaid_verifier.models import Stats

logger = logging.getLogger(__name__)

PLACEHOLDER_API_KEY = "not-needed"  # local OpenAI-compatible servers ignore the key, but the client wants one
ERROR_QUOTE_CHARS = 600  # how much of a parse error a repair message quotes


# ----------------------------------------------------------------------------- errors


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
    overflow = ("ContextOverflow" in "".join(c.__name__ for c in type(exc).__mro__)
                or getattr(exc, "code", None) == "context_length_exceeded" or "context_length_exceeded" in full)
    return LLMServiceError(f"LLM endpoint error ({where}): {full[:300]}", status, overflow)


# ----------------------------------------------------------------------------- chat models


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
                from openai import DefaultAsyncHttpxClient  # the openai client's own HTTP client, with its defaults

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


# ----------------------------------------------------------------------------- prompts

_SECTION = re.compile(r"^##[ \t]+(\w+)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Prompt:
    """One agent's prompt file, split into ``str.format`` sections."""

    name: str
    source: str
    sections: dict[str, str]

    def render(self, section: str, **values: Any) -> str:
        return self.sections[section].format(**values)


def load_prompt(name: str, placeholders: Mapping[str, set[str]], prompts_dir: Path | None = None) -> Prompt:
    """``prompts/<name>.md`` (or its replacement in ``prompts_dir``), checked against the sections and
    placeholders the agent fills in: ``placeholders`` maps each required section to its allowed fields."""
    override = Path(prompts_dir) / f"{name}.md" if prompts_dir else None
    if override is not None and override.is_file():
        source, text = str(override), override.read_text(encoding="utf-8")
    else:
        source = f"bundled prompts/{name}.md"
        text = (resources.files("mermaid_verifier.prompts") / f"{name}.md").read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections = {parts[i].lower(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    for section, allowed in placeholders.items():
        if not sections.get(section):
            raise ConfigError(f"prompt {source}: missing or empty section '## {section}'")
        try:
            used = {re.split(r"[.\[]", field)[0] for _, field, _, _ in string.Formatter().parse(sections[section])
                    if field is not None}
        except ValueError as exc:
            raise ConfigError(f"prompt {source}, section {section}: {exc} (write literal braces as {{{{ and }}}})") from exc
        unknown = used - set(allowed)
        if "" in unknown:
            raise ConfigError(f"prompt {source}, section {section}: positional '{{}}' placeholder; use a name")
        if unknown:
            raise ConfigError(f"prompt {source}, section {section}: unknown placeholder(s) "
                              f"{', '.join(sorted(unknown))}; allowed: {', '.join(sorted(allowed)) or 'none'}")
    return Prompt(name, source, sections)


# ----------------------------------------------------------------------------- accounting


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
    def from_settings(cls, settings) -> "Pricing | None":
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
    merged = stats.model_copy(update={"llm_calls": stats.llm_calls + calls,
                                      "prompt_tokens": stats.prompt_tokens + prompt,
                                      "completion_tokens": stats.completion_tokens + completion})
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


# ----------------------------------------------------------------------------- message helpers


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
    whole = _loads(text)
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


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def _scan(text: str) -> list[Any]:
    """Every top-level JSON object or array in ``text`` (a failed start moves on by one character)."""
    values, at = [], 0
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
                spans.append(text[start:i + 1])
    return spans


def _literal(span: str) -> Any:
    try:
        value = ast.literal_eval(span)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _call_items(value: Any) -> list[dict]:
    """``{"name": str, "arguments": …}`` for every tool call ``value`` describes, in any of the shapes
    servers and ReAct-trained models write: OpenAI ``{"function": {…}}`` items, ``{"tool_calls": […]}``,
    ``{"name", "arguments" | "parameters" | "args"}``, ``{"tool", "tool_input"}``, ``{"action",
    "action_input"}``, ``{"function": name, "arguments"}``, or a list of these."""
    if isinstance(value, list):
        return [item for v in value for item in _call_items(v)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return [item for v in value["tool_calls"] for item in _call_items(v)]
    if isinstance(value.get("function"), dict):
        return _call_items(value["function"])
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
    items = [item for value in json_values(text) for item in _call_items(value)]
    if not items or not any(resolve(item["name"]) for item in items):
        return []
    calls = []
    for item in items:
        arguments = item["arguments"]
        if isinstance(arguments, str):
            arguments = (_loads(arguments) or _literal(arguments)) if arguments.strip() else {}
        name = resolve(item["name"]) or item["name"]
        calls.append({"name": name, "args": arguments if isinstance(arguments, dict) else {"__invalid__": arguments},
                      "id": item.get("id") or "", "type": "tool_call"})
    return calls


# ----------------------------------------------------------------------------- structured output


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
        items = _call_items(value)
        if items and items[0]["name"] == name:
            arguments = items[0]["arguments"]
            return _loads(arguments) if isinstance(arguments, str) else arguments
        if isinstance(value, dict):
            return value
    return None


def _repair_turn(raw: AIMessage | None, text: str) -> list[BaseMessage]:
    """The bad answer and the repair request, in a shape every Chat Completions server accepts."""
    if raw is None:
        return [HumanMessage(text)]
    calls = raw.tool_calls or []
    if calls and all(c.get("id") for c in calls) and not raw.invalid_tool_calls:
        return [AIMessage(content=message_text(raw), tool_calls=calls),
                *[ToolMessage(content=text, tool_call_id=c["id"]) for c in calls]]
    shown = message_text(raw)
    attempted = [{"name": c.get("name"), "arguments": c.get("args")} for c in raw.tool_calls or []]
    attempted += [{"name": c.get("name"), "arguments": c.get("args")} for c in raw.invalid_tool_calls or []]
    if attempted:
        shown = (shown + "\n" + json.dumps(attempted, ensure_ascii=False)).strip()
    return [AIMessage(content=shown or "(empty answer)"), HumanMessage(text)]


class StructuredCaller:
    """Ask a model for a pydantic ``schema``; repair once; fall back to the next output mode when the
    server rejects one.

    Modes, in fallback order: ``json_schema`` (OpenAI's structured outputs), ``json_object`` with the
    schema attached (``response_format={"type": "json_object", "schema": …}``: llama.cpp and vLLM
    constrain the answer to it), ``function_calling`` (the schema as a forced function). A rejection
    (any HTTP error that is not about length, auth or rate; llama.cpp answers 500 to ``json_schema``)
    moves this caller to the next mode for the rest of the run."""

    def __init__(self, model: BaseChatModel, schema: type[BaseModel], *, method: str = "json_schema",
                 error_class: type[LLMOutputError] = LLMOutputError, what: str = "answer"):
        if method not in STRUCTURED_METHODS:
            raise ConfigError(f"structured output method must be one of {', '.join(STRUCTURED_METHODS)}, got {method!r}")
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
            following = STRUCTURED_METHODS[STRUCTURED_METHODS.index(self.method) + 1:]
            if not following or not exc.rejects_request:
                raise
            logger.warning("the LLM server rejected %s output (%s); using %s from now on", self.method, exc, following[0])
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

    async def __call__(self, messages: list[BaseMessage], repair: Callable[[str], str],
                       validate: Callable[[Any], None] | None = None) -> BaseModel:
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
