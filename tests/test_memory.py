"""Evidence memory behind BaseStore: one suite run on the default SQLite store and on InMemoryStore."""

import pytest

from mermaid_verifier.memory.evidence import ITEMS, EvidenceMemory, aliases_of, normalise_entity
from mermaid_verifier.models import Evidence, SourceKind

NOW = 1_800_000_000.0


@pytest.fixture
def memory(store):
    return EvidenceMemory(store, clock=lambda: NOW)


def evidence(i, title, text, page=None, supports=0.9, refutes=0.0, kind=SourceKind.LOCAL_CORPUS):
    return Evidence(
        id=f"c:{i}",
        source="local-corpus",
        source_kind=kind,
        title=title,
        text=text,
        page=page or title.replace(" ", "_"),
        line=i,
        stance_probabilities={"supports": supports, "refutes": refutes, "neutral": 1 - supports - refutes},
    )


def test_normalise_entity_and_aliases():
    assert normalise_entity("The_Beatles") == "beatles"
    assert normalise_entity("Soul_Food_-LRB-film-RRB-") == "soul food (film)"
    assert aliases_of("Soul Food (film)", "Soul_Food_-LRB-film-RRB-") == {"soul food (film)", "soul food"}
    # every FEVER escape folds, braces included (page ids, the corpus index and report links share the table)
    assert normalise_entity("2001-COLON-_-LSB-x-RSB-_-LCB-y-RCB-") == "2001: [x] {y}"


async def test_remember_then_recall_by_entity_title_and_alias(memory):
    item = evidence(0, "2001: A Space Odyssey (film)", "It was directed by Stanley Kubrick.")
    assert await memory.remember(["Stanley Kubrick", "Steven Spielberg"], [item]) == 1
    for key in [
        "stanley kubrick",
        "2001: A Space Odyssey (film)",
        "2001: A Space Odyssey",
        "2001:_A_Space_Odyssey_(film)",
    ]:
        recalled = (await memory.recall([key])).items
        assert [e.id for e in recalled] == ["c:0"], key
    only = (await memory.recall(["Stanley Kubrick"])).items[0]
    assert (
        only.from_memory and only.stance is None and only.stance_probabilities is None
    )  # claim-specific: rescored later
    assert only.veracity == pytest.approx(0.70)
    assert (await memory.recall(["Steven Spielberg"])).items == []  # the item does not mention him


async def test_initial_veracity_and_seen_again_update(memory):
    item = evidence(1, "Ada Lovelace", "Ada Lovelace was a mathematician.")
    await memory.remember(["Ada Lovelace"], [item])
    [record] = await memory.records(["c:1"])
    # reputation 0.70 (local corpus), stance confidence 0.90, consistency 0.5 (no other item):
    # 0.4*0.70 + 0.3*0.90 + 0.3*0.5 = 0.70
    assert record.veracity == pytest.approx(0.70) and record.schema_version == 1
    assert record.retrieved_at == NOW and record.entities == ["ada lovelace"]
    assert 0 <= record.uncertainty <= 1
    await memory.remember(["Ada Lovelace"], [item])
    [again] = await memory.records(["c:1"])
    assert again.veracity == pytest.approx(0.7 * 0.70 + 0.3 * 1.0)  # v <- a*v + (1-a)*v_hat, v_hat = 1
    assert [c.kind for c in again.history] == ["write", "seen-again"]


async def test_consistency_comes_from_the_other_gathered_items(memory):
    agreeing = evidence(2, "Mount Everest", "Mount Everest is in Nepal.", supports=0.9)
    contradicting = evidence(3, "Mount Everest", "Mount Everest is in Peru.", supports=0.0, refutes=0.9)
    await memory.remember(["Mount Everest"], [contradicting], gathered=[agreeing, contradicting])
    [record] = await memory.records(["c:3"])
    # consistency 0.0 (its only opinionated neighbour disagrees): 0.4*0.70 + 0.3*0.90 + 0.3*0.0 = 0.55
    assert record.veracity == pytest.approx(0.55)


async def test_recall_keeps_only_items_above_tau(memory):
    items = [evidence(10 + i, f"Page {i}", f"Topic X fact {i}.") for i in range(6)]
    await memory.remember(["Topic X"], items)
    records = await memory.records([e.id for e in items])
    for record, v in zip(records, [0.9, 0.9, 0.9, 0.9, 0.9, 0.1]):
        await memory.replace(record.model_copy(update={"veracity": v}))
    # mean 0.7667, population sigma 0.2981 -> tau = 0.4685
    assert await memory.threshold() == pytest.approx(0.4685, abs=1e-4)
    result = await memory.recall(["Topic X"], claim="Topic X fact")
    assert result.candidates == 6 and result.rejected_low_veracity == 1
    assert "c:15" not in {e.id for e in result.items}


async def test_recall_counts_accesses_and_ranks_by_overlap_with_the_claim(memory, store):
    await memory.remember(
        ["Mount Everest"],
        [
            evidence(20, "Mount Everest", "Mount Everest is in the Himalayas."),
            evidence(21, "Mount Everest", "Its peak is 8,848 metres above sea level."),
        ],
    )
    result = await memory.recall(["Mount Everest"], claim="How high is the peak above sea level?")
    assert [e.id for e in result.items] == ["c:21", "c:20"]
    assert store.get(ITEMS, "c:21").value["access_count"] == 1
    assert store.get(ITEMS, "c:21").value["last_access"] == NOW


async def test_statistics_of_quiet_writers_are_folded_into_one_record_and_the_sums_stay_exact(store):
    clock = {"now": NOW}
    writers = [EvidenceMemory(store, clock=lambda: clock["now"]) for _ in range(3)]
    for n, writer in enumerate(writers):
        await writer.remember(
            ["Ada Lovelace"], [evidence(n, f"Page {n}", f"Ada Lovelace fact {n}.", supports=0.6 + n / 10)]
        )

    async def stats_records():
        return {item.key for item in await store.asearch(("mermaid", "stats"), limit=100)}

    async def exact_sums():
        values = [r.veracity for r in await writers[0].all_records()]
        return len(values), sum(values), sum(v * v for v in values)

    assert len(await stats_records()) == 3
    clock["now"] = NOW + 600  # ten minutes on: every writer may still be running
    upkeep = EvidenceMemory(store, clock=lambda: clock["now"])
    assert await upkeep.compact_stats() == 0
    clock["now"] = NOW + 2 * 3600
    await writers[2].remember(["Ada Lovelace"], [evidence(9, "Page 9", "Ada Lovelace fact 9.")])  # still busy
    assert await upkeep.compact_stats() == 2  # the two quiet writers' records, not the busy one's
    assert len(await stats_records()) == 2
    count, total, squares = await upkeep._veracity_sums()
    assert (count, total, squares) == pytest.approx(await exact_sums())
    # a folded writer that writes again starts a record of its own: nothing lost, nothing counted twice
    await writers[0].remember(["Ada Lovelace"], [evidence(10, "Page 10", "Ada Lovelace fact 10.")])
    assert await upkeep._veracity_sums() == pytest.approx(await exact_sums())


async def test_folding_recounts_from_the_items_so_drift_in_the_statistics_is_corrected(store):
    clock = {"now": NOW}
    writer = EvidenceMemory(store, clock=lambda: clock["now"])
    await writer.remember(["Ada Lovelace"], [evidence(n, f"Page {n}", f"Ada Lovelace fact {n}.") for n in range(3)])
    # what two writers updating one item at once leave behind: its old veracity subtracted twice
    await store.aput(("mermaid", "stats"), "veracity-lost-update", {"count": -1, "sum": -0.7, "sum_squares": -0.49})
    values = [r.veracity for r in await writer.all_records()]
    assert (await writer._veracity_sums())[0] == len(values) - 1  # drifted
    clock["now"] = NOW + 2 * 3600
    assert await EvidenceMemory(store, clock=lambda: clock["now"]).compact_stats() == 2
    assert await writer._veracity_sums() == pytest.approx((len(values), sum(values), sum(v * v for v in values)))
