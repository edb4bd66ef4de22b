"""The LLM claim extractor with a scripted chat model: claims per numbered sentence with exact spans, one
repair of a bad answer, and the offline rules for the whole text when the model fails, saying so."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
from mermaid_verifier.agents.llm_claim_extractor import LLMClaimExtractor
from mermaid_verifier.wiring import wire_agents

from .conftest import ScriptedStance
from .fake_chat import ScriptedChatModel, answer

TEXT = "Barack Obama was born in Honolulu and raised in Chicago. He was president. Thanks for asking!"


@pytest.fixture(scope="module")
def offline():
    return SpacyClaimExtractor()


def reply(*entries) -> str:
    return json.dumps({"sentences": [{"number": n, "claims": c, "not_checkworthy": r} for n, c, r in entries]})


GOOD = reply(
    (1, ["Barack Obama was born in Honolulu.", "Barack Obama was raised in Chicago."], None),
    (2, ["Barack Obama was president."], None),
    (3, [], "a greeting"),
)


async def test_the_models_claims_keep_their_sentences_spans(offline):
    model = ScriptedChatModel(script=[answer(GOOD)])
    result = await LLMClaimExtractor(model, offline=offline).aextract(TEXT)
    assert result.extractor == "llm" and result.fallback is None
    assert [c.text for c in result.claims] == [
        "Barack Obama was born in Honolulu.",
        "Barack Obama was raised in Chicago.",
        "Barack Obama was president.",
    ]
    for claim in result.claims:
        assert TEXT[claim.start : claim.end] == claim.sentence
    assert [(d.sentence, d.reason) for d in result.dropped] == [("Thanks for asking!", "a greeting")]
    numbered = model.received[0][1].content
    assert numbered.splitlines() == [
        "1. Barack Obama was born in Honolulu and raised in Chicago.",
        "2. He was president.",
        "3. Thanks for asking!",
    ]


async def test_an_answer_that_skips_a_sentence_is_repaired_once(offline):
    partial = reply((1, ["Barack Obama was born in Honolulu."], None))
    model = ScriptedChatModel(script=[answer(partial), answer(GOOD)])
    result = await LLMClaimExtractor(model, offline=offline).aextract(TEXT)
    assert result.extractor == "llm" and len(result.claims) == 3
    assert "exactly once (missing [2, 3]" in model.received[1][-1].content


@pytest.mark.parametrize(
    "failure",
    [
        "two bad answers",
        openai.InternalServerError(
            "Internal Server Error",
            response=httpx2.Response(500, request=httpx2.Request("POST", "http://127.0.0.1:8765/v1")),
            body=None,
        ),
    ],
    ids=["unusable-answers", "server-error"],
)
async def test_a_failing_model_leaves_the_text_to_the_offline_rules_and_says_so(offline, failure):
    # a 500 also moves the caller through its output modes (llama.cpp answers 500 to json_schema): fail each
    script = [answer("not json"), answer("still not json")] if failure == "two bad answers" else [failure] * 3
    model = ScriptedChatModel(script=script)
    result = await LLMClaimExtractor(model, offline=offline).aextract(TEXT)
    assert result.extractor == "offline"
    assert result.fallback.startswith("the LLM claim extraction failed (")
    assert result.fallback.endswith("the offline rules extracted the claims")
    assert [c.text for c in result.claims] == [c.text for c in offline.extract(TEXT).claims]


def test_the_llm_backend_extracts_with_the_llm_and_the_cascade_offline(llm_resources):
    models = {role: ScriptedChatModel() for role in ("decomposer", "executor", "judge")}
    llm = wire_agents(llm_resources(ScriptedStance({}), models)).claim_extractor
    assert isinstance(llm, LLMClaimExtractor) and llm.offline is not None
    cascade = wire_agents(llm_resources(ScriptedStance({}), models, backend="cascade")).claim_extractor
    assert isinstance(cascade, SpacyClaimExtractor)
