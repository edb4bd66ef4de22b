"""A claim that names nothing ("claim one", "It was released in 1999.") gets an explicit abstention
without a search, instead of a confident verdict from random sentences that share its words; a claim
whose subject no entity tagger knows ("Aspirin reduces …") is about its subject."""

from __future__ import annotations

import pytest

from mermaid_verifier.agents.decomposer import SpacyDecomposer
from mermaid_verifier.models import Label

from ..conftest import ScriptedStance
from ..test_graph import verify


@pytest.mark.parametrize("claim", ["claim one", "claim two", "It was released in 1999.", "They are."])
async def test_a_claim_that_names_nothing_abstains_without_searching(make_resources, claim):
    resources = make_resources(ScriptedStance({"": "supports"}), use_memory=False)  # every sentence "supports"
    try:
        out = await verify(resources, claim)
    finally:
        await resources.aclose()
    verdict = out["verdict"]
    assert verdict.label == Label.NOT_ENOUGH_INFO and verdict.abstained and verdict.confidence == 0.0
    assert "names nothing that can be looked up" in verdict.reason
    assert out["stats"].tool_calls == 0 and out["evidence"] == []


@pytest.mark.parametrize(
    "claim, topic",
    [
        ("Aspirin reduces the risk of heart attack.", "Aspirin"),
        ("The bridge opened in 1932.", "bridge"),
        ("Water boils at 100 degrees Celsius.", "Water"),
    ],
)
def test_without_a_named_entity_the_subject_is_the_topic(claim, topic):
    assert SpacyDecomposer().decompose(claim).entities == [topic]
