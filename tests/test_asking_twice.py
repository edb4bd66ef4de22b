"""Asking again changes nothing when nothing new was found: with the real stance model and the evidence
memory, a claim verified a second time takes the same steps (answered from the remembered lookups),
weighs the same evidence and gets the same verdict and confidence — remembered items never raise
confidence on their own. And a pair's stance reading does not depend on the pairs read beside it."""

from __future__ import annotations

import pytest

from mermaid_verifier.reader.stance import StanceModel

from .graph_kit import verify

CLAIMS = [
    "Stanley Kubrick directed 2001: A Space Odyssey.",
    "Stanley Kubrick was born in Paris.",
    "Mount Everest is in the Alps.",
    "Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.",
]


@pytest.mark.parametrize("claim", CLAIMS)
async def test_a_claim_asked_twice_gets_the_same_verdict_from_the_same_evidence(make_resources, tmp_path, claim):
    stance = StanceModel()
    outputs = []
    for _ in range(2):
        resources = make_resources(stance, memory_dir=tmp_path / "memory")
        try:
            outputs.append(await verify(resources, claim))
        finally:
            await resources.aclose()
    first, second = outputs
    assert second["stats"].tool_calls == 0 and second["stats"].memory_hits > 0  # nothing was looked up again
    assert second["verdict"] == first["verdict"]
    assert sorted(e.id for e in second["evidence"]) == sorted(e.id for e in first["evidence"])


def test_a_pair_reads_the_same_alone_and_beside_others():
    model = StanceModel()
    claim = "Stanley Kubrick directed 2001: A Space Odyssey."
    evidence = [
        ("Stanley Kubrick", "He directed 2001: A Space Odyssey, a science fiction film released in 1968."),
        ("Mount Everest", "Mount Everest is Earth's highest mountain above sea level, in the Himalayas."),
        ("Soul Food (film)", "Soul Food is a 1997 American comedy-drama film produced by Kenneth Edmonds."),
    ]
    together = model.probabilities(claim, evidence)
    alone = [model.probabilities(claim, [item])[0] for item in evidence]
    assert together == alone
