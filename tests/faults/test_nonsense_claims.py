"""A claim that names nothing ("claim one", "It was released in 1999.") gets an explicit abstention
without a search, instead of a confident verdict from random sentences that share its words; a claim
whose subject no entity tagger knows ("Aspirin reduces …") is about its subject."""

from __future__ import annotations

import pytest

from mermaid_verifier.agents.decomposer import SpacyDecomposer
from mermaid_verifier.models import Label

from ..conftest import ScriptedStance
from ..test_graph import verify


async def verified_alone(make_resources, claim: str) -> dict:
    """The graph's output for ``claim`` where every sentence would read "supports": anything found would decide."""
    resources = make_resources(ScriptedStance({"": "supports"}), use_memory=False)
    try:
        return await verify(resources, claim)
    finally:
        await resources.aclose()


@pytest.mark.parametrize("claim", ["claim one", "claim two", "It was released in 1999.", "They are."])
async def test_a_claim_that_names_nothing_abstains_without_searching(make_resources, claim):
    out = await verified_alone(make_resources, claim)
    verdict = out["verdict"]
    assert verdict.label == Label.NOT_ENOUGH_INFO and verdict.abstained and verdict.confidence == 0.0
    # "claim one" reads as an instruction by check's rule ("claim" as a verb), the others name nothing
    assert "names nothing that can be looked up" in verdict.reason or verdict.not_checkworthy is not None
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


@pytest.mark.parametrize(
    "claim, why",
    [
        ("Pizza is the best food.", "an opinion, not a checkable fact"),
        ("I think Paris is lovely.", "the speaker's own view, not a checkable fact"),
        ("Is Paris the capital of France?", "a question, not a statement"),
    ],
)
async def test_a_claim_that_states_nothing_to_check_abstains_by_checks_rule(make_resources, claim, why):
    """verify (and so the API and MCP, which run the same graph) says what check says of such a sentence."""
    from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
    from mermaid_verifier.models import result_from_output

    assert [d.reason for d in SpacyClaimExtractor().extract(claim).dropped] == [why]
    out = await verified_alone(make_resources, claim)
    verdict = out["verdict"]
    assert verdict.abstained and verdict.label == Label.NOT_ENOUGH_INFO and verdict.not_checkworthy == why
    assert why in verdict.reason and out["stats"].tool_calls == 0 and out["evidence"] == []
    assert result_from_output(claim, out).not_checkworthy == why
