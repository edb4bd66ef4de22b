"""`mermaid-verifier memory …` commands on a real on-disk memory."""

import asyncio
import json

import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.memory.evidence import EvidenceMemory
from mermaid_verifier.memory.store import open_local_store

from .conftest import WIKI_MINI
from .memory_kit import GONE, STILL_THERE, WIKI_MINI_ORIGIN  # noqa: F401

runner = CliRunner()


def seed(cache_dir, items, now=1_000_000.0):
    store = open_local_store(cache_dir / "evidence-memory")
    try:
        asyncio.run(EvidenceMemory(store, clock=lambda: now).remember(["Mount Everest", "Atlantis"], items))
    finally:
        store.close()


def invoke(*args):
    """What the command printed on stdout (its notes on stderr are not part of the data)."""
    result = runner.invoke(app, ["memory", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_stats_show_export_import_clear(tmp_path):
    seed(tmp_path / "a", [STILL_THERE, GONE])
    stats = json.loads(invoke("stats", "--cache-dir", tmp_path / "a"))
    assert stats["items"] == 2 and stats["by_source"] == {"local-corpus": 2}
    shown = json.loads(invoke("show", "Mount Everest", "--json", "--cache-dir", tmp_path / "a"))
    assert [r["id"] for r in shown] == [STILL_THERE.id]

    exported = tmp_path / "memory.jsonl"
    assert "exported 2 items" in invoke("export", exported, "--cache-dir", tmp_path / "a")
    first = invoke("import", exported, "--cache-dir", tmp_path / "b")
    assert "imported 2 items" in first and "replaced" not in first
    again = invoke("import", exported, "--cache-dir", tmp_path / "b")  # the same ids again: said, not silent
    assert "imported 2 items" in again and "(2 replaced the item with the same id already held)" in again
    assert json.loads(invoke("stats", "--cache-dir", tmp_path / "b"))["items"] == 2
    (moved,) = json.loads(invoke("show", "Atlantis", "--json", "--cache-dir", tmp_path / "b"))
    assert json.loads(invoke("show", "Nowhere", "--json", "--cache-dir", tmp_path / "b")) == []
    assert moved["text"] == GONE.text

    assert "removed 2 items" in invoke("clear", "--yes", "--cache-dir", tmp_path / "b")
    assert json.loads(invoke("stats", "--cache-dir", tmp_path / "b"))["items"] == 0


def test_import_rejects_a_bad_line_with_its_number(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    result = runner.invoke(app, ["memory", "import", str(bad), "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2 and "bad.jsonl:1: not a memory record" in result.output


def test_revalidate_checks_items_against_their_source(tmp_path):
    seed(tmp_path, [STILL_THERE, GONE])
    output = invoke("revalidate", "--top-k", 5, "--corpus", WIKI_MINI, "--json", "--cache-dir", tmp_path)
    rows = {row["id"]: row for row in json.loads(output)}
    v0 = rows[STILL_THERE.id]["before"]
    assert rows[STILL_THERE.id]["observed"] == 1.0
    assert rows[STILL_THERE.id]["after"] == pytest.approx(0.7 * v0 + 0.3 * 1.0)
    assert rows[GONE.id]["observed"] == 0.0 and rows[GONE.id]["after"] == pytest.approx(0.7 * rows[GONE.id]["before"])
    assert "gone" in rows[GONE.id]["note"]
    history = json.loads(invoke("show", "Atlantis", "--json", "--cache-dir", tmp_path))[0]["history"]
    assert [h["kind"] for h in history] == ["write", "revalidate"]


def test_revalidate_leaves_items_from_a_corpus_it_cannot_reach_alone(tmp_path):
    elsewhere = GONE.model_copy(update={"id": "other:Atlantis:0", "origin": "corpus:0123456789abcdef"})
    seed(tmp_path, [elsewhere, STILL_THERE])
    output = invoke("revalidate", "--top-k", 5, "--corpus", WIKI_MINI, "--json", "--cache-dir", tmp_path)
    assert [row["id"] for row in json.loads(output)] == [STILL_THERE.id]
    (untouched,) = json.loads(invoke("show", "Atlantis", "--json", "--cache-dir", tmp_path))
    assert [h["kind"] for h in untouched["history"]] == ["write"]  # not marked gone by a corpus it never came from


def test_revalidate_top_k_takes_the_oldest_first(tmp_path):
    seed(tmp_path, [GONE], now=1_000_000.0)
    seed(tmp_path, [STILL_THERE], now=2_000_000_000.0)  # far newer
    output = invoke("revalidate", "--top-k", 1, "--corpus", WIKI_MINI, "--json", "--cache-dir", tmp_path)
    assert [row["id"] for row in json.loads(output)] == [GONE.id]


def test_revalidate_folds_the_statistics_of_writers_long_quiet(tmp_path):
    seed(tmp_path, [GONE], now=1_000_000.0)
    seed(tmp_path, [STILL_THERE], now=1_000_100.0)  # two runs, two writers, both long finished
    args = ["memory", "revalidate", "--top-k", "1", "--corpus", str(WIKI_MINI), "--cache-dir", str(tmp_path), "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0 and "folded the statistics of 2 quiet writer(s) into one record" in first.stderr
    again = runner.invoke(app, args)  # the folded record is not folded again; the last run's writer is not quiet
    assert again.exit_code == 0 and "folded" not in again.stderr
