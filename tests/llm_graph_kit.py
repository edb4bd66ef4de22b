"""Scripted LLM answers and runs of the LLM graph, for its tests."""

from __future__ import annotations

import json
import re

from langchain_core.messages import HumanMessage

from mermaid_verifier.graph import build_graph

from .fake_chat import ScriptedChatModel, answer

KUBRICK = "Stanley Kubrick directed 2001: A Space Odyssey."

KUBRICK_RULES = {"directed by Stanley Kubrick": "supports"}

DECOMPOSITION = json.dumps(
    {
        "triplets": [
            {
                "subject": "Stanley Kubrick",
                "relation": "directed",
                "object": "2001: A Space Odyssey",
                "attribution": None,
            }
        ],
        "keywords": ["Stanley Kubrick", "2001: A Space Odyssey", "directed"],
        "entities": ["Stanley Kubrick", "2001: A Space Odyssey"],
    }
)


def verdict_json(label: str, confidence: float, cited: list[str], reasoning: str = "The passages decide it.") -> str:
    return json.dumps({"reasoning": reasoning, "label": label, "confidence": confidence, "cited": cited})


def cite(title_start: str, label: str = "SUPPORTS", confidence: float = 0.9, tokens=(200, 40)):
    """A judge reply citing the listed passage whose line starts with ``title_start`` (ids are positional)."""

    def reply(messages, kwargs):
        listing = next(m.content for m in messages if isinstance(m, HumanMessage))
        alias = re.search(rf"^\[(E\d+)\] {re.escape(title_start)}", listing, re.MULTILINE).group(1)
        return answer(verdict_json(label, confidence, [alias]), tokens)

    return reply


def models(decomposer=(), executor=(), judge=()) -> dict[str, ScriptedChatModel]:
    return {
        "decomposer": ScriptedChatModel(script=list(decomposer)),
        "executor": ScriptedChatModel(script=list(executor)),
        "judge": ScriptedChatModel(script=list(judge)),
    }


async def run(resources, claim, **kwargs):
    try:
        return await build_graph(resources, **kwargs).ainvoke({"claim": claim})
    finally:
        await resources.aclose()
