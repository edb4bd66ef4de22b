"""Checking whole texts: the text graph end to end (real decomposer and extractor, real MCP corpus server,
scripted stance model) and the ``check`` command."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.cli.check import read_text
from mermaid_verifier.config import Settings
from mermaid_verifier.errors import UsageError
from mermaid_verifier.memory.evidence import EvidenceMemory
from mermaid_verifier.memory.store import open_local_store
from mermaid_verifier.models import Label, TextSummary
from mermaid_verifier.texts import MAX_TEXT_CHARS, check_text
from mermaid_verifier.tools.toolbox import Toolbox
from mermaid_verifier.wiring import Overrides

from .conftest import MECHANICS_JUDGE, WIKI_MINI, ScriptedStance, in_process_corpus_server

TEXT = (
    "Stanley Kubrick directed 2001: A Space Odyssey. He was born in the Bronx. "
    "Mount Everest is located in the Andes. I hope this helps!"
)
RULES = {"directed by Stanley Kubrick": "supports", "located in the Himalayas": "refutes"}


def ready_made(tmp_path, decomposer, **more):
    settings = Settings.from_env({}, corpora=(WIKI_MINI,), cache_dir=tmp_path / "cache", use_memory=False)
    toolbox = Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path / "index")])
    return settings, Overrides(
        toolbox=toolbox, stance=ScriptedStance(RULES), decomposer=decomposer, judge_config=MECHANICS_JUDGE, **more
    )


async def test_every_claim_of_a_text_is_checked_once_and_summed_up(tmp_path, decomposer):
    settings, given = ready_made(tmp_path, decomposer)
    seen = []
    result = await check_text(
        TEXT, settings, concurrency=2, on_claim=lambda c, n: seen.append((c.index, n)), overrides=given
    )

    assert [c.claim.text for c in result.claims] == [
        "Stanley Kubrick directed 2001: A Space Odyssey.",
        "Stanley Kubrick was born in the Bronx.",
        "Mount Everest is located in the Andes.",
    ]
    assert sorted(seen) == [(0, 3), (1, 3), (2, 3)]  # each claim reported once, as it was decided
    verdicts = [(c.result.verdict, c.result.abstained) for c in result.claims]
    assert verdicts[0] == (Label.SUPPORTS, False) and verdicts[2][0] == Label.REFUTES
    for checked in result.claims:
        assert TEXT[checked.claim.start : checked.claim.end] == checked.claim.sentence
    assert [d.sentence for d in result.dropped] == ["I hope this helps!"]
    summary = result.summary
    assert summary == TextSummary.of(result.claims, 1)
    decided = [c for c in result.claims if not c.result.abstained]
    assert summary.supported_share == pytest.approx(
        sum(c.result.verdict == Label.SUPPORTS for c in decided) / len(decided), abs=1e-4
    )
    assert summary.claims == 3 and summary.sentences_without_claims == 1


async def test_the_claims_of_a_text_share_one_memory_even_without_the_persistent_one(tmp_path, decomposer):
    """One at a time, the second claim about Kubrick recalls what the first one found and remembered."""
    settings, given = ready_made(tmp_path, decomposer)
    text = "Stanley Kubrick directed 2001: A Space Odyssey. Stanley Kubrick directed The Shining."
    result = await check_text(text, settings, concurrency=1, overrides=given)
    assert result.claims[0].result.stats.memory_hits == 0
    assert result.claims[1].result.stats.memory_hits > 0
    assert not (tmp_path / "cache" / "memory").exists()  # --no-memory: nothing written to disk


async def test_with_memory_the_texts_claims_go_to_the_persistent_store(tmp_path, decomposer):
    store = open_local_store(tmp_path / "memory")
    try:
        settings, given = ready_made(tmp_path, decomposer, memory=EvidenceMemory(store))
        await check_text("Stanley Kubrick directed 2001: A Space Odyssey.", settings, overrides=given)
        remembered = store.list_namespaces(prefix=("mermaid", "entity"))
        assert remembered, "the evidence that bore on the verdict is in the persistent store, under its entities"
    finally:
        store.close()


async def test_a_text_with_nothing_to_check_gives_an_empty_summary(tmp_path, decomposer):
    settings, given = ready_made(tmp_path, decomposer)
    result = await check_text("Hello! What is the capital of France?", settings, overrides=given)
    assert result.claims == [] and len(result.dropped) == 2
    assert result.summary.claims == 0 and result.summary.supported_share is None


async def test_a_text_that_is_not_a_string_is_refused_before_the_graph_runs(tmp_path, decomposer):
    settings, given = ready_made(tmp_path, decomposer)
    with pytest.raises(UsageError, match="the text to check must be a string, got NoneType"):
        await check_text(None, settings, overrides=given)  # e.g. an answer published without its text


def test_read_text_names_what_is_wrong_with_the_input(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        read_text(str(tmp_path / "missing.txt"))
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(UsageError, match=r"latin1.txt: not UTF-8 text \(byte 3\)"):
        read_text(str(tmp_path / "latin1.txt"))
    (tmp_path / "blank.txt").write_text(" \n\n")
    with pytest.raises(UsageError, match="blank.txt: the text is empty"):
        read_text(str(tmp_path / "blank.txt"))
    with pytest.raises(UsageError, match="not UTF-8"):
        read_text("-", stdin=b"\x00\xff binary")
    with pytest.raises(UsageError, match="looks binary"):
        read_text("-", stdin=b"text\x00with NUL")
    with pytest.raises(UsageError, match=f"the limit is {MAX_TEXT_CHARS:,}"):
        read_text("-", stdin=b"a" * (MAX_TEXT_CHARS + 1))
    assert read_text("-", stdin=b"Paris is in France.") == "Paris is in France."


def test_the_check_command_prints_json_and_one_line_errors(tmp_path):
    text = tmp_path / "answer.txt"
    text.write_text("Mount Everest is located in the Himalayas. Thanks for asking!")
    runner = CliRunner()
    env = {"MERMAID_CACHE_DIR": str(tmp_path / "cache")}
    done = runner.invoke(app, ["check", str(text), "--corpus", str(WIKI_MINI), "--no-memory", "--json"], env=env)
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert [c["claim"]["text"] for c in payload["claims"]] == ["Mount Everest is located in the Himalayas."]
    assert payload["claims"][0]["result"]["evidence"][0]["title"] == "Mount Everest"
    assert payload["dropped"][0]["reason"].startswith("a greeting")
    assert payload["summary"]["claims"] == 1

    missing = runner.invoke(app, ["check", str(tmp_path / "nope.txt")], env=env)
    assert missing.exit_code == 2
    assert missing.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nope.txt'}: no such file (give a text file, or '-' to read stdin)"
    ]
