"""Evidence memory: entity keys, JSON storage, recall of what was remembered."""

import json
import sqlite3
import zlib

from mermaid_verifier.memory import EvidenceMemory, normalise_entity
from mermaid_verifier.models import Evidence, Stance


def evidence(i, title, text):
    return Evidence(id=f"c:{i}", source="local-corpus", title=title, text=text, page=title.replace(" ", "_"), line=i,
                    stance=Stance.SUPPORTS, stance_probabilities={"supports": 0.9, "refutes": 0.0, "neutral": 0.1}, score=0.9)


def test_normalise_entity_folds_case_underscores_and_articles():
    assert normalise_entity("The_Beatles") == "beatles"
    assert normalise_entity("  Stanley   Kubrick ") == "stanley kubrick"


def test_recall_returns_what_was_remembered_without_claim_specific_fields(tmp_path):
    with EvidenceMemory(tmp_path) as memory:
        item = evidence(0, "2001: A Space Odyssey (film)", "It was directed by Stanley Kubrick.")
        memory.remember(["Stanley Kubrick", "Steven Spielberg"], [item])
        recalled = memory.recall(["stanley kubrick"])
    assert [e.id for e in recalled] == ["c:0"]
    assert recalled[0].from_memory
    # the stance belonged to the old claim; a new claim must be scored afresh
    assert recalled[0].stance is None and recalled[0].stance_probabilities is None
    with EvidenceMemory(tmp_path) as memory:  # persisted on disk
        assert memory.recall(["2001: A Space Odyssey (film)"])[0].text == "It was directed by Stanley Kubrick."
        assert memory.recall(["Steven Spielberg"]) == []  # not mentioned by the item


def test_values_are_stored_as_json_not_pickle(tmp_path):
    with EvidenceMemory(tmp_path) as memory:
        memory.remember(["Ada Lovelace"], [evidence(1, "Ada Lovelace", "Ada Lovelace was a mathematician.")])
    rows = sqlite3.connect(tmp_path / "cache.db").execute("SELECT key, value FROM Cache").fetchall()
    assert rows
    for key, value in rows:
        record = json.loads(zlib.decompress(value))  # JSONDisk: zlib-compressed JSON text
        assert record["schema"] == 1
        assert record["items"]["c:1"]["evidence"]["title"] == "Ada Lovelace"
