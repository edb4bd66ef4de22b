"""The LLM executor: a ReAct loop of a chat model over the MCP tools.

Tools
    Every tool of every Toolbox server becomes an OpenAI function named ``<server>__<tool>`` (characters
    outside ``[A-Za-z0-9_-]`` become ``_``; a clash gets a ``_2`` suffix) whose parameters are the
    tool's MCP ``inputSchema``. A call may also name ``server.tool`` or, when unique, just ``tool``.
Loop
    model → tool calls → one ToolMessage per call with the observation → model … A *step* is one
    model turn that calls tools; its parallel calls (at most ``max_calls_per_step``, the rest are
    answered "not run") run concurrently. The loop ends when the model answers without a tool call
    or after ``max_steps`` steps (the trace's last entry then says the budget ran out). A server that
    writes its call as JSON in the message text (``{"name": …, "arguments": …}``, ``{"tool_calls": […]}``,
    ``<tool_call>`` tags) is understood too.
Evidence
    Exactly as offline: each observation's passages become Evidence (``evidence_from_outcome``),
    de-duplicated by id, capped at 30, and scored by the stance model; remembered evidence is scored
    and joins the evidence before the first model call (``OfflineExecutor._start``), never shortening
    the budget. Each tool call is a TraceStep (thought = the model's text that turn, action = ``server.tool``); parallel calls share a
    step number.
Cascade
    The graph escalates a claim whose offline verdict abstained to this executor, which continues the
    offline evidence and trace with its own step budget (``mermaid_verifier.graph``).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from mermaid_verifier.agents.executor import (
    MAX_EVIDENCE,
    ExecutionResult,
    OfflineExecutor,
    PlannedAction,
    evidence_from_outcome,
    leaning,
    observation,
    remembered_observation,
)
from mermaid_verifier.agents.model_calls import (
    Pricing,
    add_usage,
    ainvoke_model,
    usage_scope,
)
from mermaid_verifier.agents.prompt_files import load_prompt
from mermaid_verifier.agents.tool_text import (
    json_values,
    message_text,
    tool_calls_from_content,
)
from mermaid_verifier.errors import LLMServiceError
from mermaid_verifier.models import Decomposition, Evidence, TraceStep
from mermaid_verifier.tools.toolbox import ToolOutcome

PROMPT_PLACEHOLDERS = {
    "system": {"max_steps"},
    "user": {"claim", "triplets", "keywords", "entities", "evidence", "actions", "max_steps"},
}
SHOWN_EVIDENCE = 10  # evidence items quoted in the first user message
SHOWN_CHARS = 300  # of each of them
SUMMARY_CHARS = 400  # an earlier observation, once shortened
MAX_REPEATED_STEPS = 2  # steps that only repeat earlier calls before the search is stopped


def _spec_name(server: str, tool: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}__{tool}")[:64]


def tool_specs(tools: dict[str, dict]) -> tuple[list[dict], dict[str, tuple[str, str]]]:
    """OpenAI tool specs for every MCP tool, and each spec name's (server, tool)."""
    specs, routes = [], {}
    for server, by_name in tools.items():
        for name, tool in by_name.items():
            base = spec = _spec_name(server, name)
            number = 2
            while spec in routes:
                suffix = f"_{number}"
                spec, number = base[: 64 - len(suffix)] + suffix, number + 1
            routes[spec] = (server, name)
            parameters = dict(tool.inputSchema or {})
            parameters.setdefault("type", "object")
            parameters.setdefault("properties", {})
            specs.append(
                {
                    "type": "function",
                    "function": {
                        "name": spec,
                        "description": (tool.description or f"{name} on {server}").strip()[:1024],
                        "parameters": parameters,
                    },
                }
            )
    return specs, routes


def tool_resolver(routes: dict[str, tuple[str, str]]) -> Callable[[str], str | None]:
    """Map a name a model used (``server__tool``, ``server.tool``, a unique bare ``tool``) to its spec name."""
    exact = {name.casefold(): name for name in routes}
    dotted = {f"{server}.{tool}".casefold(): name for name, (server, tool) in routes.items()}
    bare: dict[str, list[str]] = {}
    for name, (_, tool) in routes.items():
        bare.setdefault(tool.casefold(), []).append(name)

    def resolve(name: str) -> str | None:
        key = (name or "").strip().casefold()
        if key in exact:
            return exact[key]
        if key in dotted:
            return dotted[key]
        candidates = bare.get(key, [])
        return candidates[0] if len(candidates) == 1 else None

    return resolve


def _model_observation(outcome: ToolOutcome, limit: int) -> str:
    """What the model reads back from one tool call: passages with their ids, or the error."""
    if not outcome.ok:
        text = f"error: {outcome.text}"
    else:
        data = outcome.data or {}
        passages = data.get("passages")
        if passages is None:
            text = outcome.text
        else:
            lines = [f"{len(passages)} passage(s)" + (":" if passages else "")]
            for p in passages:
                where = f" (line {p['line']})" if p.get("line") is not None else ""
                lines.append(f"[{p.get('id')}] {p.get('title')}{where}: {' '.join(str(p.get('text', '')).split())}")
            for key in ("message", "suggestions"):
                if data.get(key):
                    lines.append(f"{key}: {data[key]}")
            text = "\n".join(lines)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters cut)"


def _evidence_lines(evidence: list[Evidence]) -> str:
    if not evidence:
        return "none"
    ranked = sorted(evidence, key=leaning, reverse=True)
    lines = []
    for e in ranked[:SHOWN_EVIDENCE]:
        text = " ".join(e.text.split())
        text = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + " …"
        lines.append(f"- [{e.id}] {e.title}{' (from memory)' if e.from_memory else ''}: {text}")
    if len(ranked) > SHOWN_EVIDENCE:
        lines.append(f"- … and {len(ranked) - SHOWN_EVIDENCE} more item(s)")
    return "\n".join(lines)


def _action(name: str, routes: dict[str, tuple[str, str]]) -> str:
    """``server.tool`` as the offline trace writes it (the name as given when no tool has it)."""
    return ".".join(routes[name]) if name in routes else name


class LLMExecutor:
    """``run(claim, decomposition, remembered, previous=None) -> ExecutionResult`` with a chat model."""

    def __init__(
        self,
        model: BaseChatModel,
        offline: OfflineExecutor,
        *,
        prompts_dir: Path | None = None,
        pricing: Pricing | None = None,
        max_calls_per_step: int = 4,
        observation_chars: int = 6000,
    ):
        """``offline`` is the configured offline executor: its toolbox, step budget, stance scoring and
        memory check (warm start, topicality, trust) are this executor's too, so both backends search
        the same tools and weigh evidence alike."""
        self.model = model
        self.offline = offline
        self.toolbox = offline.toolbox
        self.max_steps = offline.max_steps
        self.clock = offline.clock
        self.pricing = pricing
        self.max_calls_per_step = max_calls_per_step
        self.observation_chars = observation_chars
        self.prompt = load_prompt("executor", PROMPT_PLACEHOLDERS, prompts_dir)

    async def _call(self, route: tuple[str, str] | None, name: str, arguments, known: str) -> tuple[ToolOutcome, Any]:
        """The call's outcome and, when the evidence memory answered it (the same lookup made
        earlier, within its time to live), the remembered lookup: as on the offline path."""
        if route is None:
            return ToolOutcome(server="?", tool=name, ok=False, text=f"unknown tool {name!r}; available: {known}"), None
        server, tool = route
        if not isinstance(arguments, dict) or "__invalid__" in arguments:
            return ToolOutcome(
                server=server,
                tool=tool,
                ok=False,
                text="the arguments were not a JSON object; call again with valid JSON arguments",
            ), None
        return await self.offline.call_or_recall(
            PlannedAction(thought="", tool=tool, arguments=arguments, server=server)
        )

    def _first_message(self, claim: str, decomposition: Decomposition, result: ExecutionResult) -> str:
        triplets = (
            "\n".join(
                f"- {t.subject} | {t.relation} | {t.object or '-'} | {t.attribution or '-'}"
                for t in decomposition.triplets
            )
            or "- (none found)"
        )
        actions = [
            f"- {s.action} {json.dumps(s.action_input, ensure_ascii=False)}"
            for s in result.trace
            if "." in s.action and not s.action.startswith(("memory.", "cascade."))
        ]
        return self.prompt.render(
            "user",
            claim=claim,
            triplets=triplets,
            keywords=", ".join(decomposition.keywords) or "-",
            entities=", ".join(decomposition.entities) or "-",
            evidence=_evidence_lines(result.evidence),
            actions="\n".join(actions) or "none",
            max_steps=self.max_steps,
        )

    async def run(
        self,
        claim: str,
        decomposition: Decomposition,
        remembered: list[Evidence],
        previous: ExecutionResult | None = None,
    ) -> ExecutionResult:
        """Let the model search until it answers or ``max_steps`` tool-using steps are spent. With
        ``previous`` (a reviewer asked for more, or the cascade escalated), continue its evidence and
        trace with a fresh budget. An LLM endpoint failure ends the search, not the claim: the trace
        says what failed, ``result.failure`` carries it to the graph, and the evidence gathered stays."""
        if previous is None:
            result = await self.offline._start(claim, decomposition.entities, remembered)
            result.stats.backend = "llm"
        else:
            result = ExecutionResult(
                evidence=list(previous.evidence), trace=list(previous.trace), stats=previous.stats.model_copy(deep=True)
            )
            result.stats.backend = "llm"
        await self.toolbox.start()
        specs, routes = tool_specs(self.toolbox.tools)
        step = max((s.step for s in result.trace), default=0) + 1
        if not specs:
            result.trace.append(
                TraceStep(
                    step=step,
                    thought="",
                    action="stop",
                    action_input={},
                    observation="no tools are available; nothing to search",
                )
            )
            return result
        search = _Search(self, claim, result, routes, step)
        messages: list[BaseMessage] = [
            SystemMessage(self.prompt.render("system", max_steps=self.max_steps)),
            HumanMessage(self._first_message(claim, decomposition, result)),
        ]
        model = self.model.bind_tools(specs, tool_choice="auto")
        with usage_scope() as usage:
            try:
                await search.loop(model, messages)
            except LLMServiceError as exc:
                result.failure = str(exc)
                result.trace.append(
                    TraceStep(
                        step=search.step,
                        thought="",
                        action="llm.error",
                        action_input={},
                        observation=f"the search stopped: {exc}; keeping the "
                        f"{len(result.evidence)} evidence item(s) gathered so far",
                    )
                )
        result.stats = add_usage(result.stats, usage, self.pricing)
        return result


def _call_key(route: tuple[str, str], arguments: dict) -> str:
    """One string per (tool, arguments), the same whatever the key order or spacing of the values."""
    canonical = {k: " ".join(v.casefold().split()) if isinstance(v, str) else v for k, v in arguments.items()}
    return f"{route[0]}.{route[1]} " + json.dumps(canonical, sort_keys=True, ensure_ascii=False)


def _summary(outcome: ToolOutcome) -> str:
    """An earlier observation as the model reads it once newer ones came in: one line, passage ids kept."""
    if not outcome.ok:
        return f"error: {' '.join(outcome.text.split())[:SUMMARY_CHARS]}"
    passages = (outcome.data or {}).get("passages")
    if passages is None:
        text = " ".join(outcome.text.split())
        return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS] + " …"
    shown = "; ".join(f"[{p.get('id')}] {p.get('title')}" for p in passages)
    if len(shown) > SUMMARY_CHARS:
        shown = shown[:SUMMARY_CHARS] + " …"
    return f"(earlier result, shortened) {len(passages)} passage(s): {shown or 'none'}"


class _Search:
    """One ReAct search: the model's turns, the tool calls they make and what is kept of them."""

    def __init__(
        self, executor: LLMExecutor, claim: str, result: ExecutionResult, routes: dict[str, tuple[str, str]], step: int
    ):
        self.executor, self.claim, self.result, self.routes, self.step = executor, claim, result, routes, step
        self.resolve = tool_resolver(routes)
        self.known = ", ".join(f"{s}.{t}" for s, t in routes.values()) or "none"
        self.seen_ids = {e.id for e in result.evidence}
        self.done: dict[str, int] = {}  # call key -> the step that made it
        self.summaries: list[tuple[int, str]] = []  # where the latest observations are in the messages, short forms
        self.repeated_steps = 0
        self.repaired = False

    async def loop(self, model, messages: list[BaseMessage]) -> None:
        executor, result = self.executor, self.result
        for used in range(executor.max_steps + 1):
            if used == executor.max_steps:
                self._trace(
                    "stop",
                    {},
                    f"step budget exhausted: {executor.max_steps} tool-using step(s) taken; "
                    f"stopping with the {len(result.evidence)} evidence item(s) gathered so far",
                )
                return
            response = await ainvoke_model(model, messages)
            thought = message_text(response).strip()
            calls = self._calls(response, thought)
            if calls and not response.tool_calls and not response.invalid_tool_calls:
                thought = ""  # the text *was* the call
            if not calls:
                unreadable = self._looks_like_a_call(thought)
                result.stats.llm_unreadable_turns += int(unreadable)
                if unreadable and not self.repaired:
                    self.repaired = True
                    messages += [AIMessage(content=thought), HumanMessage(self._repair_text())]
                    continue
                self._trace(
                    "finish", {}, f"the model ended the search: {_excerpt(thought) or '(empty reply)'}", thought=thought
                )
                return
            result.stats.llm_tool_turns += 1
            self._shorten_earlier_observations(messages)
            for number, call in enumerate(calls):
                call["id"] = call.get("id") or f"call_{self.step}_{number}"
                call["name"] = self.resolve(call["name"]) or call["name"]
            messages.append(
                AIMessage(
                    content=thought,
                    tool_calls=[
                        {
                            "name": c["name"],
                            "args": c["args"] if isinstance(c["args"], dict) else {},
                            "id": c["id"],
                            "type": "tool_call",
                        }
                        for c in calls
                    ],
                )
            )
            fresh = await self._run_calls(calls, thought, messages)
            if fresh == 0:
                self.repeated_steps += 1
                if self.repeated_steps >= MAX_REPEATED_STEPS:
                    self._trace(
                        "stop",
                        {},
                        f"the model repeated earlier calls in {self.repeated_steps} steps; stopping "
                        f"with the {len(result.evidence)} evidence item(s) gathered so far",
                    )
                    return
            self.step += 1

    def _calls(self, response: AIMessage, thought: str) -> list[dict]:
        calls = [dict(c) for c in response.tool_calls or []]
        invalid = [
            {
                "name": c.get("name") or "",
                "args": {"__invalid__": c.get("args")},
                "id": c.get("id") or "",
                "type": "tool_call",
            }
            for c in response.invalid_tool_calls or []
        ]
        if not calls and not invalid:  # written as text: a small model may repeat one call until the token cap
            unique: dict[str, dict] = {}
            for call in tool_calls_from_content(thought, self.resolve):
                unique.setdefault(json.dumps([call["name"], call["args"]], sort_keys=True, default=str), call)
            return list(unique.values())
        return calls + invalid

    def _looks_like_a_call(self, text: str) -> bool:
        """Whether a reply without a readable call tried to make one (JSON, or a tool's name): asked again once."""
        return bool(json_values(text)) or any(name.casefold() in text.casefold() for name in self.routes)

    def _repair_text(self) -> str:
        return (
            "Your reply could not be read as a tool call. To call a tool, reply with only a JSON object "
            '{"name": "<tool name>", "arguments": {...}} naming one of: '
            + ", ".join(self.routes)
            + ". To end the search, reply in plain sentences without JSON."
        )

    async def _run_calls(self, calls: list[dict], thought: str, messages: list[BaseMessage]) -> int:
        """Run the step's calls (repeats answered from the record instead); returns how many ran."""
        executor, result = self.executor, self.result
        runnable, answers = [], {}
        for call in calls[: executor.max_calls_per_step]:
            route = self.routes.get(call["name"])
            args = call["args"]
            if route is not None and isinstance(args, dict) and "__invalid__" not in args:
                key = _call_key(route, args)
                if key in self.done:
                    answers[call["id"]] = (
                        f"already done in step {self.done[key]} with the same arguments; its result "
                        "is above. Search with other words, open another page, or end the search."
                    )
                    continue
                self.done[key] = self.step
            runnable.append(call)
        outcomes = await asyncio.gather(
            *(executor._call(self.routes.get(c["name"]), c["name"], c["args"], self.known) for c in runnable)
        )
        by_id = dict(zip((c["id"] for c in runnable), outcomes))
        for _number, call in enumerate(calls):
            action = _action(call["name"], self.routes)
            arguments = (
                call["args"]
                if isinstance(call["args"], dict) and "__invalid__" not in call["args"]
                else {"invalid_arguments": str(call["args"].get("__invalid__"))}
            )
            if call["id"] in by_id:
                outcome, remembered = by_id[call["id"]]
                if remembered is not None:
                    result.stats.memory_hits += 1
                    found = [
                        e.model_copy(update={"from_memory": True})
                        for e in evidence_from_outcome(outcome, remembered.looked_up_at)
                    ]
                else:
                    if self.routes.get(call["name"]) is not None and "invalid_arguments" not in arguments:
                        result.stats.tool_calls += 1
                        result.stats.tool_calls_by_tool[action] = result.stats.tool_calls_by_tool.get(action, 0) + 1
                    found = evidence_from_outcome(outcome, executor.clock())
                new_items = [e for e in found if e.id not in self.seen_ids]
                self.seen_ids.update(e.id for e in new_items)
                new_items = await executor.offline._score(self.claim, new_items)
                result.evidence = (result.evidence + new_items)[:MAX_EVIDENCE]
                seen = (
                    observation(outcome, new_items)
                    if remembered is None
                    else remembered_observation(remembered, outcome, new_items)
                )
                self._trace(action, arguments, seen, thought=thought, new=len(new_items))
                message = ToolMessage(
                    content=_model_observation(outcome, executor.observation_chars), tool_call_id=call["id"]
                )
                self.summaries.append((len(messages), _summary(outcome)))
            else:
                note = answers.get(call["id"]) or f"not run: at most {executor.max_calls_per_step} tool calls per step"
                self._trace(action, arguments, note, thought=thought)
                message = ToolMessage(content=note, tool_call_id=call["id"])
            messages.append(message)
        return len(runnable)

    def _shorten_earlier_observations(self, messages: list[BaseMessage]) -> None:
        """Before a new step, earlier observations shrink to one line each: the prompt stays short."""
        for index, short in self.summaries:
            messages[index] = messages[index].model_copy(update={"content": short})
        self.summaries = []

    def _trace(self, action: str, arguments: dict, observation: str, *, thought: str = "", new: int = 0) -> None:
        self.result.trace.append(
            TraceStep(
                step=self.step,
                thought=thought,
                action=action,
                action_input=arguments,
                observation=observation,
                new_evidence=new,
            )
        )


def _excerpt(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " …"
