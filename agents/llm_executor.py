"""The LLM executor: a ReAct loop of a chat model over the MCP tools, and the offline→LLM cascade.

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
    and may settle the claim before any model call (``OfflineExecutor._start``). Each tool call is a
    TraceStep (thought = the model's text that turn, action = ``server.tool``); parallel calls share a
    step number.
Cascade
    :class:`CascadeExecutor` runs the offline executor and the offline judge's rule on its evidence;
    a confident (not abstained) verdict stands (``stats.backend == "offline"``), otherwise the LLM
    executor continues from the offline evidence and trace with its own step budget
    (``stats.backend == "llm"``, which makes the graph use the LLM judge).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from mermaid_verifier.agents.executor import (MAX_EVIDENCE, ExecutionResult, OfflineExecutor, _observation,
                                              evidence_from_outcome, leaning)
from mermaid_verifier.agents.judge import JudgeConfig, decide
from mermaid_verifier.agents.llm import (Pricing, add_usage, ainvoke_model, load_prompt, message_text,
                                         tool_calls_from_content, usage_scope)
from mermaid_verifier.models import Decomposition, Evidence, TraceStep
from mermaid_verifier.scoring import ReliabilityConfig, assess_trust
from mermaid_verifier.stance import StanceModel
from mermaid_verifier.toolbox import Toolbox, ToolOutcome

PROMPT_PLACEHOLDERS = {
    "system": {"max_steps"},
    "user": {"claim", "triplets", "keywords", "entities", "evidence", "actions", "max_steps"},
}
SHOWN_EVIDENCE = 10  # evidence items quoted in the first user message
SHOWN_CHARS = 300  # of each of them


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
            specs.append({"type": "function", "function": {
                "name": spec, "description": (tool.description or f"{name} on {server}").strip()[:1024],
                "parameters": parameters}})
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

    def __init__(self, model: BaseChatModel, toolbox: Toolbox, stance: StanceModel, *, max_steps: int = 5,
                 search_k: int = 5, stop_threshold: float = 0.9, memory_trust: float = 0.6,
                 reliability: ReliabilityConfig | None = None, clock: Callable[[], float] = time.time,
                 prompts_dir: Path | None = None, pricing: Pricing | None = None, max_calls_per_step: int = 4,
                 observation_chars: int = 6000):
        self.model = model
        self.toolbox = toolbox
        self.max_steps = max_steps
        self.pricing = pricing
        self.max_calls_per_step = max_calls_per_step
        self.observation_chars = observation_chars
        self.clock = clock
        self.prompt = load_prompt("executor", PROMPT_PLACEHOLDERS, prompts_dir)
        # scoring and the memory check are the offline executor's, so both backends weigh evidence alike
        self.offline = OfflineExecutor(toolbox, stance, max_steps=max_steps, search_k=search_k,
                                       stop_threshold=stop_threshold, memory_trust=memory_trust,
                                       reliability=reliability, clock=clock)

    async def _call(self, route: tuple[str, str] | None, name: str, arguments, known: str) -> ToolOutcome:
        if route is None:
            return ToolOutcome(server="?", tool=name, ok=False, text=f"unknown tool {name!r}; available: {known}")
        server, tool = route
        if not isinstance(arguments, dict) or "__invalid__" in arguments:
            return ToolOutcome(server=server, tool=tool, ok=False,
                               text="the arguments were not a JSON object; call again with valid JSON arguments")
        return await self.toolbox.call(server, tool, arguments)

    def _first_message(self, claim: str, decomposition: Decomposition, result: ExecutionResult) -> str:
        triplets = "\n".join(f"- {t.subject} | {t.relation} | {t.object or '-'} | {t.attribution or '-'}"
                             for t in decomposition.triplets) or "- (none found)"
        actions = [f"- {s.action} {json.dumps(s.action_input, ensure_ascii=False)}" for s in result.trace
                   if "." in s.action and not s.action.startswith(("memory.", "cascade."))]
        return self.prompt.render("user", claim=claim, triplets=triplets,
                                  keywords=", ".join(decomposition.keywords) or "-",
                                  entities=", ".join(decomposition.entities) or "-",
                                  evidence=_evidence_lines(result.evidence), actions="\n".join(actions) or "none",
                                  max_steps=self.max_steps)

    async def run(self, claim: str, decomposition: Decomposition, remembered: list[Evidence],
                  previous: ExecutionResult | None = None) -> ExecutionResult:
        """Let the model search until it answers or ``max_steps`` tool-using steps are spent. With
        ``previous`` (a reviewer asked for more, or the cascade escalated), continue its evidence and
        trace with a fresh budget."""
        if previous is None:
            result, budget = await self.offline._start(claim, decomposition, remembered)
            result.stats.backend = "llm"
            if budget == 0:  # memory settled it; otherwise the model gets its full budget
                return result
        else:
            result = ExecutionResult(evidence=list(previous.evidence), trace=list(previous.trace),
                                     stats=previous.stats.model_copy(deep=True))
            result.stats.backend = "llm"
        await self.toolbox.start()
        specs, routes = tool_specs(self.toolbox.tools)
        resolve = tool_resolver(routes)
        known = ", ".join(f"{s}.{t}" for s, t in routes.values()) or "none"
        step = max((s.step for s in result.trace), default=0) + 1
        if not specs:
            result.trace.append(TraceStep(step=step, thought="", action="stop", action_input={},
                                          observation="no tools are available; nothing to search"))
            return result
        seen_ids = {e.id for e in result.evidence}
        messages: list[BaseMessage] = [SystemMessage(self.prompt.render("system", max_steps=self.max_steps)),
                                       HumanMessage(self._first_message(claim, decomposition, result))]
        model = self.model.bind_tools(specs)
        with usage_scope() as usage:
            for used in range(self.max_steps + 1):
                if used == self.max_steps:
                    result.trace.append(TraceStep(
                        step=step, thought="", action="stop", action_input={},
                        observation=f"step budget exhausted: {self.max_steps} tool-using step(s) taken; "
                                    f"stopping with the {len(result.evidence)} evidence item(s) gathered so far"))
                    break
                response = await ainvoke_model(model, messages)
                thought = message_text(response).strip()
                calls = [dict(c) for c in response.tool_calls or []]
                invalid = [{"name": c.get("name") or "", "args": {"__invalid__": c.get("args")}, "id": c.get("id") or "",
                            "type": "tool_call", "error": c.get("error")} for c in response.invalid_tool_calls or []]
                if not calls and not invalid:
                    calls = tool_calls_from_content(thought, resolve)
                    if calls:
                        thought = ""  # the text *was* the call
                if not calls and not invalid:
                    result.trace.append(TraceStep(step=step, thought=thought, action="finish", action_input={},
                                                  observation="the model ended the search"))
                    break
                calls = calls + invalid
                for number, call in enumerate(calls):
                    call["id"] = call.get("id") or f"call_{step}_{number}"
                    call["name"] = resolve(call["name"]) or call["name"]
                messages.append(AIMessage(content=thought, tool_calls=[
                    {"name": c["name"], "args": c["args"] if isinstance(c["args"], dict) else {}, "id": c["id"],
                     "type": "tool_call"} for c in calls]))
                run, skipped = calls[: self.max_calls_per_step], calls[self.max_calls_per_step:]
                outcomes = await asyncio.gather(*(self._call(routes.get(c["name"]), c["name"], c["args"], known)
                                                  for c in run))
                for call, outcome in zip(run, outcomes):
                    route = routes.get(call["name"])
                    action = _action(call["name"], routes)
                    if route is not None and isinstance(call["args"], dict) and "__invalid__" not in call["args"]:
                        result.stats.tool_calls += 1
                        result.stats.tool_calls_by_tool[action] = result.stats.tool_calls_by_tool.get(action, 0) + 1
                    new_items = [e for e in evidence_from_outcome(outcome, self.clock()) if e.id not in seen_ids]
                    seen_ids.update(e.id for e in new_items)
                    new_items = await self.offline._score(claim, new_items)
                    result.evidence = (result.evidence + new_items)[:MAX_EVIDENCE]
                    arguments = call["args"] if isinstance(call["args"], dict) and "__invalid__" not in call["args"] \
                        else {"invalid_arguments": str(call["args"].get("__invalid__"))}
                    result.trace.append(TraceStep(step=step, thought=thought, action=action, action_input=arguments,
                                                  observation=_observation(outcome, new_items), new_evidence=len(new_items)))
                    messages.append(ToolMessage(content=_model_observation(outcome, self.observation_chars),
                                                tool_call_id=call["id"]))
                for call in skipped:
                    note = f"not run: at most {self.max_calls_per_step} tool calls per step"
                    result.trace.append(TraceStep(step=step, thought=thought, action=_action(call["name"], routes),
                                                  action_input=call["args"] if isinstance(call["args"], dict) else {},
                                                  observation=note))
                    messages.append(ToolMessage(content=note, tool_call_id=call["id"]))
                step += 1
        result.stats = add_usage(result.stats, usage, self.pricing)
        return result


class CascadeExecutor:
    """Offline first; the LLM executor only when the offline verdict would abstain."""

    def __init__(self, offline: OfflineExecutor, llm: LLMExecutor, judge_config: JudgeConfig,
                 reliability: ReliabilityConfig | None = None, clock: Callable[[], float] = time.time):
        self.offline = offline
        self.llm = llm
        self.judge_config = judge_config
        self.reliability = reliability or ReliabilityConfig()
        self.clock = clock

    async def run(self, claim: str, decomposition: Decomposition, remembered: list[Evidence],
                  previous: ExecutionResult | None = None) -> ExecutionResult:
        if previous is not None and previous.stats.backend == "llm":  # a reviewer asked the LLM path for more
            return await self.llm.run(claim, decomposition, remembered, previous=previous)
        result = await self.offline.run(claim, decomposition, remembered, previous=previous)
        verdict = decide(assess_trust(result.evidence, self.reliability, self.clock()), self.judge_config,
                         decomposition.entities, claim)
        if not verdict.abstained:
            result.stats.backend = "offline"
            return result
        result.trace.append(TraceStep(
            step=max((s.step for s in result.trace), default=0) + 1,
            thought="The offline verdict is not confident enough: hand the claim to the LLM executor and judge.",
            action="cascade.escalate",
            action_input={"offline_label": verdict.label.value, "offline_confidence": verdict.confidence},
            observation=f"offline verdict {verdict.label.value} at {verdict.confidence:.2f} abstained"))
        return await self.llm.run(claim, decomposition, remembered, previous=result)
