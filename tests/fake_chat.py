"""A scripted chat model for the LLM agents' tests: no network, replies written by the test.

``ScriptedChatModel(script=[...])`` answers each call with the next item of its script: an
``AIMessage`` (tool calls, usage_metadata and all), a string (an AIMessage with that content), an
exception (raised, as a failing server would), or a callable ``(messages, kwargs) -> AIMessage``.
It records what it received (``received``: the messages of every call; ``calls``: the keyword
arguments bound for each call, e.g. ``tools``, ``tool_choice``, ``response_format``).

``bind_tools`` formats tools like ChatOpenAI does and binds them. ``with_structured_output`` uses the
real LangChain wrappers: ``method="function_calling"`` is ``BaseChatModel``'s own implementation
(``bind_tools`` + a tools output parser); ``method="json_schema"`` binds ``response_format`` and parses
the reply's JSON content with LangChain's JSON / pydantic output parsers, wired as ChatOpenAI wires
them (``include_raw`` gives ``raw`` / ``parsed`` / ``parsing_error``). A call asking for a
``response_format`` whose type is in ``rejected_formats`` fails with the ``openai.BadRequestError`` a
server without that mode returns.
"""

from __future__ import annotations

import itertools
from operator import itemgetter
from typing import Any

import httpx2
import openai
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableMap, RunnablePassthrough
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field

_ids = itertools.count(1)


def usage(prompt: int, completion: int) -> dict:
    return {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}


def tool_call(name: str, args: dict, call_id: str | None = None) -> dict:
    return {"name": name, "args": args, "id": call_id or f"call_{next(_ids)}", "type": "tool_call"}


def calls(*tool_calls: dict, text: str = "", tokens: tuple[int, int] = (100, 20)) -> AIMessage:
    """An assistant turn that calls tools."""
    return AIMessage(content=text, tool_calls=list(tool_calls), usage_metadata=usage(*tokens))


def answer(text: str, tokens: tuple[int, int] = (100, 20)) -> AIMessage:
    """An assistant turn with text only."""
    return AIMessage(content=text, usage_metadata=usage(*tokens))


def format_rejection(kind: str) -> openai.BadRequestError:
    request = httpx2.Request("POST", "http://localhost:8000/v1/chat/completions")
    response = httpx2.Response(400, request=request)
    return openai.BadRequestError(
        f"'response_format' of type '{kind}' is not supported by this server", response=response, body=None
    )


def _format_type(response_format) -> str | None:
    if isinstance(response_format, dict):
        return response_format.get("type")
    return None if response_format is None else "json_schema"  # a pydantic class: structured outputs


class ScriptedChatModel(BaseChatModel):
    script: list[Any] = Field(default_factory=list)
    received: list[list[BaseMessage]] = Field(default_factory=list)
    calls: list[dict] = Field(default_factory=list)
    rejected_formats: tuple[str, ...] = ()  # response_format types answered with HTTP 400

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def _reply(self, messages: list[BaseMessage], kwargs: dict) -> ChatResult:
        self.received.append(list(messages))
        self.calls.append(dict(kwargs))
        if _format_type(kwargs.get("response_format")) in self.rejected_formats:
            raise format_rejection(_format_type(kwargs.get("response_format")))
        if not self.script:
            raise AssertionError(f"the scripted chat model has no reply left for call {len(self.received)}")
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            item = item(messages, kwargs)
        message = AIMessage(content=item) if isinstance(item, str) else item.model_copy(deep=True)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, kwargs)

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        bound = {"tools": [convert_to_openai_tool(t) for t in tools], **kwargs}
        if tool_choice is not None:
            bound["tool_choice"] = tool_choice
        return self.bind(**bound)

    def with_structured_output(
        self, schema, *, method: str = "json_schema", include_raw: bool = False, strict: bool | None = None, **kwargs
    ):
        if method == "function_calling":
            return super().with_structured_output(schema, include_raw=include_raw)
        if method != "json_schema":
            raise ValueError(f"the fake supports function_calling and json_schema, not {method!r}")
        is_model = isinstance(schema, type) and issubclass(schema, BaseModel)
        response_format = (
            schema if is_model else {"type": "json_schema", "json_schema": convert_to_openai_tool(schema)["function"]}
        )
        llm = self.bind(response_format=response_format)
        parser = PydanticOutputParser(pydantic_object=schema) if is_model else JsonOutputParser()
        if not include_raw:
            return llm | parser
        parser_assign = RunnablePassthrough.assign(parsed=itemgetter("raw") | parser, parsing_error=lambda _: None)
        parser_none = RunnablePassthrough.assign(parsed=lambda _: None)
        return RunnableMap(raw=llm) | parser_assign.with_fallbacks([parser_none], exception_key="parsing_error")

    # what tests ask about

    @property
    def remaining(self) -> int:
        return len(self.script)

    def tool_names(self, call: int = -1) -> list[str]:
        return [t["function"]["name"] for t in self.calls[call].get("tools", [])]
