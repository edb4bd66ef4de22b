"""Memory of lookups: a tool call already made (same source, within its TTL) is answered from memory.

Graph runs use the real decomposer and an in-process corpus server over the fixture corpus; the
store-level tests run on the default SQLite store and on InMemoryStore."""

from __future__ import annotations

import asyncio
import json
import shutil
import time

import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.graph import build_graph
from mermaid_verifier.memory.evidence import DAY, LOOKUPS, EvidenceMemory, LookupPolicy
from mermaid_verifier.memory.store import open_local_store
from mermaid_verifier.models import Label

from .conftest import WIKI_MINI, ScriptedStance

NOW = 1_800_000_000.0
NEI_CLAIM = "Stanley Kubrick was born in the Bronx in 1928."
NOBODY_CLAIM = "Zorblax Quintavius founded the Moonlight Society."  # nothing in the corpus is about him
SUPPORTED = "Mount Everest is the highest mountain on Earth."
RESULT = {
    "query": "tilda swinton is a vegan.",
    "passages": [
        {"id": "wiki:Tilda_Swinton:0", "title": "Tilda Swinton", "text": "Tilda Swinton is a British actress."}
    ],
}


class LeaningStance(ScriptedStance):
    """Like ScriptedStance, but a matching phrase only leans (P = 0.75): the judge decides on it,
    the executor does not stop at it."""

    def probabilities(self, claim, evidence):
        return [
            {"supports": 0.75, "refutes": 0.05, "neutral": 0.2} if p["supports"] > 0.5 else p
            for p in super().probabilities(claim, evidence)
        ]


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


async def verify_twice(
    make_resources, stance, claim, memory_dir, clocks=(None, None), corpora=(WIKI_MINI,), before=None
):
    """Verify ``claim`` once per clock (so twice by default) with one memory; ``before(run)`` runs first."""
    outs = []
    for run, clock in enumerate(clocks):
        if before is not None:
            before(run)
        resources = make_resources(stance, memory_dir=memory_dir, clock=clock, corpora=corpora)
        try:
            outs.append(await build_graph(resources).ainvoke({"claim": claim}))
        finally:
            await resources.aclose()
    return outs


# ---------------------------------------------------------------- the graph


async def test_a_not_enough_info_claim_verified_again_is_answered_from_memory(make_resources, tmp_path):
    cold, warm = await verify_twice(make_resources, ScriptedStance({}), NEI_CLAIM, tmp_path / "mem")
    assert cold["verdict"].label == Label.NOT_ENOUGH_INFO and cold["stats"].tool_calls == 5
    assert cold["stats"].memory_hits == 0
    assert warm["stats"].tool_calls == 0 < cold["stats"].tool_calls
    assert warm["stats"].memory_hits == 5 and warm["stats"].tool_calls_by_tool == {}
    # the same lookups in the same order, each answered from memory: the same evidence, the same verdict
    assert [(s.action, s.action_input) for s in warm["trace"]] == [(s.action, s.action_input) for s in cold["trace"]]
    assert all(s.observation.startswith("answered from memory: local-corpus.") for s in warm["trace"])
    assert [e.id for e in warm["evidence"]] == [e.id for e in cold["evidence"]]
    assert all(e.from_memory and e.source == "local-corpus" for e in warm["evidence"])
    assert [e.stance for e in warm["evidence"]] == [e.stance for e in cold["evidence"]]
    assert warm["verdict"].label == cold["verdict"].label
    assert warm["verdict"].confidence == pytest.approx(cold["verdict"].confidence, abs=1e-3)


async def test_a_lookup_that_found_nothing_is_a_known_negative(make_resources, tmp_path):
    cold, warm = await verify_twice(make_resources, ScriptedStance({}), NOBODY_CLAIM, tmp_path / "mem")
    assert cold["verdict"].label == warm["verdict"].label == Label.NOT_ENOUGH_INFO
    assert warm["stats"].tool_calls < cold["stats"].tool_calls
    negative = next(s for s in warm["trace"] if s.action == "local-corpus.get_page")
    assert negative.action_input["title"] == "Zorblax Quintavius"
    assert negative.observation.startswith('answered from memory: local-corpus.get_page("zorblax quintavius")')
    assert "found nothing" in negative.observation and negative.new_evidence == 0


async def test_a_supported_claim_verified_again_makes_fewer_tool_calls(make_resources, tmp_path):
    stance = LeaningStance({"highest mountain": "supports"})
    cold, warm = await verify_twice(make_resources, stance, SUPPORTED, tmp_path / "mem")
    assert cold["verdict"].label == Label.SUPPORTS and cold["stats"].tool_calls == 5  # leaning, never decisive
    # the same steps as before, every one answered from the remembered lookups
    assert warm["stats"].tool_calls == 0 < cold["stats"].tool_calls
    assert warm["trace"][0].action == "memory.recall"
    assert [s.action_input for s in warm["trace"][1:]] == [s.action_input for s in cold["trace"]]
    assert all(s.observation.startswith("answered from memory: ") for s in warm["trace"][1:])
    assert warm["verdict"] == cold["verdict"]  # asking again changes nothing when nothing new was found
    assert sorted(e.id for e in warm["evidence"]) == sorted(e.id for e in cold["evidence"])


async def test_an_expired_lookup_is_not_served(make_resources, tmp_path):
    clocks = (Clock(NOW), Clock(NOW + 29 * DAY), Clock(NOW + 31 * DAY))  # the default TTL for a local corpus: 30 days
    cold, within, expired = await verify_twice(
        make_resources, ScriptedStance({}), NEI_CLAIM, tmp_path / "mem", clocks=clocks
    )
    assert cold["stats"].tool_calls == 5 and within["stats"].tool_calls == 0 and within["stats"].memory_hits == 5
    assert expired["stats"].tool_calls == 5 and expired["stats"].memory_hits == 0
    assert not any("answered from memory" in s.observation for s in expired["trace"])
    assert cold["verdict"].label == within["verdict"].label == expired["verdict"].label


async def test_a_changed_corpus_is_not_served_from_lookups_of_the_old_one(make_resources, tmp_path):
    corpus = tmp_path / "corpus" / "wiki_mini.jsonl"
    corpus.parent.mkdir()
    shutil.copy(WIKI_MINI, corpus)

    def edit_corpus_before_the_third_run(run):  # the corpus changes: another fingerprint
        if run == 2:
            with corpus.open("a") as handle:
                handle.write(json.dumps({"id": "new", "title": "Stanley Kubrick", "text": "He liked chess."}) + "\n")

    cold, same, changed = await verify_twice(
        make_resources,
        ScriptedStance({}),
        NEI_CLAIM,
        tmp_path / "mem",
        clocks=(None,) * 3,
        corpora=(corpus,),
        before=edit_corpus_before_the_third_run,
    )
    assert cold["stats"].tool_calls == 5 and same["stats"].tool_calls == 0  # the same corpus: served from memory
    assert changed["stats"].tool_calls == 5 and changed["stats"].memory_hits == 0
    assert not any(e.from_memory for e in changed["evidence"])


# ---------------------------------------------------------------- the store


async def test_lookups_are_keyed_by_normalised_arguments_and_source(store):
    clock = Clock(NOW)
    memory = EvidenceMemory(store, clock=clock)
    written = await memory.remember_lookup(
        "local-corpus", "search", {"query": "Tilda  Swinton is a vegan.", "k": 5}, "corpus:aaa", RESULT
    )
    assert written.passage_ids == ["wiki:Tilda_Swinton:0"] and not written.found_nothing
    assert written.describe() == 'local-corpus.search("tilda swinton is a vegan.")'
    assert written.expires_at == NOW + 30 * DAY
    found = await memory.recall_lookup(
        "local-corpus", "search", {"k": 5, "query": "tilda swinton is a VEGAN."}, "corpus:aaa"
    )
    assert found is not None and found.result == RESULT and found.looked_up_at == NOW
    assert (
        await memory.recall_lookup(
            "local-corpus", "search", {"query": "tilda swinton is a vegan.", "k": 5}, "corpus:bbb"
        )
        is None
    )
    assert (
        await memory.recall_lookup(
            "local-corpus", "search", {"query": "tilda swinton is a vegan.", "k": 10}, "corpus:aaa"
        )
        is None
    )
    assert (
        await memory.recall_lookup(
            "local-corpus", "get_page", {"query": "tilda swinton is a vegan.", "k": 5}, "corpus:aaa"
        )
        is None
    )
    assert (
        await memory.recall_lookup("local-corpus", "search", {"query": "tilda swinton is a vegan.", "k": 5}, None)
        is None
    )
    # JSON only: what the store holds reads back as plain JSON
    stored = (await store.asearch(LOOKUPS))[0].value
    assert json.loads(json.dumps(stored)) == stored and stored["source"] == "corpus:aaa"


async def test_a_lookup_expires_after_its_ttl_and_upkeep_removes_it(store):
    clock = Clock(NOW)
    memory = EvidenceMemory(store, clock=clock, lookups=LookupPolicy(local_days=2, live_days=0.5))
    await memory.remember_lookup(
        "local-corpus",
        "get_page",
        {"title": "Nobody", "max_passages": 10},
        "corpus:aaa",
        {"title": "Nobody", "passages": []},
    )
    await memory.remember_lookup("wikipedia", "page_sentences", {"title": "Tilda Swinton"}, "wikipedia", RESULT)
    clock.now = NOW + 1 * DAY  # the live lookup (half a day) has expired, the local one (two days) has not
    negative = await memory.recall_lookup(
        "local-corpus", "get_page", {"title": "nobody", "max_passages": 10}, "corpus:aaa"
    )
    assert negative is not None and negative.found_nothing
    assert await memory.recall_lookup("wikipedia", "page_sentences", {"title": "Tilda Swinton"}, "wikipedia") is None
    assert (await memory.summary())["lookups"] == 1
    assert await memory.prune_lookups() == 1 and len(await memory.all_lookups()) == 1
    clock.now = NOW + 3 * DAY
    assert (
        await memory.recall_lookup("local-corpus", "get_page", {"title": "Nobody", "max_passages": 10}, "corpus:aaa")
        is None
    )
    assert await memory.prune_lookups() == 1 and await memory.all_lookups() == []


async def test_a_ttl_of_zero_remembers_no_lookups(store):
    memory = EvidenceMemory(store, clock=Clock(NOW), lookups=LookupPolicy(local_days=0))
    assert await memory.remember_lookup("local-corpus", "search", {"query": "x", "k": 5}, "corpus:aaa", RESULT) is None
    assert await memory.all_lookups() == []


# ---------------------------------------------------------------- the command line


def test_verify_remembers_lookups_and_no_memory_writes_nothing(tmp_path):
    runner = CliRunner()
    args = ["verify", "--json", "--corpus", str(WIKI_MINI), NEI_CLAIM]
    off = runner.invoke(app, [*args, "--no-memory", "--cache-dir", str(tmp_path / "off")])
    assert off.exit_code == 0, off.output
    assert not (tmp_path / "off" / "evidence-memory").exists()
    for _ in range(2):
        again = runner.invoke(app, [*args, "--no-memory", "--cache-dir", str(tmp_path / "off")])
        assert json.loads(again.output.splitlines()[-1])["stats"]["memory_hits"] == 0
    assert not (tmp_path / "off" / "evidence-memory").exists()

    outs = [runner.invoke(app, [*args, "--cache-dir", str(tmp_path / "on")]) for _ in range(2)]
    cold, warm = (json.loads(out.output.splitlines()[-1]) for out in outs)
    assert warm["stats"]["tool_calls"] < cold["stats"]["tool_calls"] and warm["verdict"] == cold["verdict"]
    stats = runner.invoke(app, ["memory", "stats", "--cache-dir", str(tmp_path / "on")])
    assert json.loads(stats.output)["lookups"] == cold["stats"]["tool_calls"]


def test_memory_revalidate_removes_expired_lookups(tmp_path):
    async def seed_and_count(clock_now, seed):
        store = open_local_store(tmp_path / "evidence-memory")
        try:
            memory = EvidenceMemory(store, clock=Clock(clock_now))
            if seed:
                await memory.remember_lookup("local-corpus", "search", {"query": "old", "k": 5}, "corpus:aaa", RESULT)
                await memory.remember_lookup("local-corpus", "search", {"query": "new", "k": 5}, "corpus:aaa", RESULT)
                # the first was made 40 days ago: rewrite its times as if so
                [old] = [r for r in await memory.all_lookups() if r.arguments["query"] == "old"]
                await store.aput(
                    LOOKUPS,
                    old.key,
                    old.model_copy(
                        update={"looked_up_at": clock_now - 40 * DAY, "expires_at": clock_now - 10 * DAY}
                    ).model_dump(),
                )
            return sorted(r.arguments["query"] for r in await memory.all_lookups())
        finally:
            store.close()

    assert asyncio.run(seed_and_count(time.time(), seed=True)) == ["new", "old"]
    result = CliRunner().invoke(
        app, ["memory", "revalidate", "--json", "--corpus", str(WIKI_MINI), "--cache-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "removed 1 expired lookup(s)" in result.output
    assert asyncio.run(seed_and_count(time.time(), seed=False)) == ["new"]
