"""Belief scenarios (text-only, in the spirit of MMA-Bench): what the verifier should believe when
remembered evidence is planted, outdated, stale, or missing. Real graph, real MCP corpus server,
scripted stance model, the default reliability configuration."""

import json

import pytest

from mermaid_verifier.graph import build_graph
from mermaid_verifier.memory.evidence import MemoryRecord
from mermaid_verifier.models import Label, SourceKind
from mermaid_verifier.tools.toolbox import corpus_source
from mermaid_verifier.weighing.scoring import SECONDS_PER_DAY

from .conftest import ScriptedStance

NOW = 1_900_000_000.0
DAY = SECONDS_PER_DAY


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "beliefs.jsonl"
    rows = [
        {
            "id": "everest",
            "title": "Mount Everest",
            "text": "Mount Everest is located in the Himalayas, on the border of Nepal and China.",
        },
        {
            "id": "pluto",
            "title": "Pluto",
            "text": "In 2006 the International Astronomical Union reclassified Pluto as a dwarf planet.",
        },
        {"id": "kubrick", "title": "Stanley Kubrick", "text": "Stanley Kubrick was an American film director."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def record(i, title, text, kind, age_days, veracity, origin):
    """A remembered item as the corpus in use (``origin``) would have served it."""
    return MemoryRecord(
        id=f"planted:{i}",
        text=text,
        title=title,
        source="memory-import",
        source_kind=kind,
        origin=origin,
        entities=[title.casefold()],
        retrieved_at=NOW - age_days * DAY,
        veracity=veracity,
        uncertainty=0.5,
    )


async def verify(resources, claim):
    try:
        return await build_graph(resources).ainvoke({"claim": claim})
    finally:
        await resources.aclose()


async def test_planted_low_credibility_contradictions_do_not_flip_a_supported_verdict(make_resources, corpus):
    resources = make_resources(
        ScriptedStance({"Himalayas": "supports", "Andes": "refutes"}), corpora=(corpus,), clock=lambda: NOW
    )
    planted = [
        record(
            i,
            "Mount Everest",
            f"Mount Everest stands in the Andes ({i}).",
            SourceKind.MODEL_INFERENCE,
            90,
            0.3,
            corpus_source([corpus]),
        )
        for i in range(3)
    ]
    await resources.memory.import_records(planted)
    out = await verify(resources, "Mount Everest is in the Himalayas.")
    assert out["verdict"].label == Label.SUPPORTS and not out["verdict"].abstained
    assert out["stats"].memory_hits == 3 and out["stats"].tool_calls >= 1  # planted items did not end the search
    planted_trust = [e.trust.reliability for e in out["evidence"] if e.id.startswith("planted:")]
    real = next(e for e in out["evidence"] if e.title == "Mount Everest" and not e.from_memory)
    assert max(planted_trust) < 0.35 and real.trust.reliability > 0.6


async def test_newer_credible_evidence_revises_an_outdated_belief(make_resources, corpus):
    resources = make_resources(
        ScriptedStance({"ninth planet": "supports", "dwarf planet": "refutes"}), corpora=(corpus,), clock=lambda: NOW
    )
    await resources.memory.import_records(
        [
            record(
                0,
                "Pluto",
                "Pluto is the ninth planet from the Sun.",
                SourceKind.ENCYCLOPEDIA,
                2 * 365,
                0.8,
                corpus_source([corpus]),
            )
        ]
    )
    out = await verify(resources, "Pluto is the ninth planet of the Solar System.")
    assert out["verdict"].label == Label.REFUTES
    old = next(e for e in out["evidence"] if e.from_memory)
    assert old.trust.recency < 0.001  # two years at a 30-day half-life


@pytest.mark.parametrize("days_later, searches", [(1, False), (120, True)])
async def test_stale_memory_decays_until_it_no_longer_settles_a_claim(
    make_resources, corpus, tmp_path, days_later, searches
):
    stance = ScriptedStance({"film director": "supports"})
    first = make_resources(stance, corpora=(corpus,), memory_dir=tmp_path / "mem", clock=lambda: NOW)
    cold = await verify(first, "Stanley Kubrick was a film director.")
    assert cold["stats"].tool_calls >= 1
    later = make_resources(stance, corpora=(corpus,), memory_dir=tmp_path / "mem", clock=lambda: NOW + days_later * DAY)
    warm = await verify(later, "Stanley Kubrick was a film director.")
    remembered = next(e for e in warm["evidence"] if e.from_memory)
    assert remembered.trust.recency == pytest.approx(0.5 ** (days_later / 30), abs=1e-3)
    assert (warm["stats"].tool_calls > 0) is searches
    assert warm["verdict"].label == Label.SUPPORTS


async def test_an_unknowable_claim_abstains(make_resources, corpus):
    resources = make_resources(ScriptedStance({}), corpora=(corpus,), clock=lambda: NOW)
    out = await verify(resources, "Zorblax the Unseen keeps a red bicycle in his attic.")
    assert out["verdict"].abstained
    assert out["verdict"].label == Label.NOT_ENOUGH_INFO
    assert out["stats"].tool_calls >= 1


async def test_remembered_evidence_is_reused_only_with_the_corpus_that_served_it(make_resources, corpus, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(
        json.dumps({"id": "alps", "title": "Alps", "text": "The Alps are a mountain range in Europe."}) + "\n"
    )
    memory_dir = tmp_path / "shared-memory"
    stance = ScriptedStance({"Himalayas": "supports"})
    claim = "Mount Everest is in the Himalayas."

    first = await verify(make_resources(stance, corpora=(corpus,), memory_dir=memory_dir, clock=lambda: NOW), claim)
    assert first["verdict"].label == Label.SUPPORTS and not any(e.from_memory for e in first["evidence"])

    elsewhere = await verify(make_resources(stance, corpora=(other,), memory_dir=memory_dir, clock=lambda: NOW), claim)
    assert not any(e.from_memory for e in elsewhere["evidence"]), "another corpus never reuses this one's evidence"

    again = await verify(make_resources(stance, corpora=(corpus,), memory_dir=memory_dir, clock=lambda: NOW), claim)
    remembered = [e for e in again["evidence"] if e.from_memory]
    assert remembered and remembered[0].origin == corpus_source([corpus])
