"""The `verify` console script as a user runs it: exit codes, one clear error line, JSON shape."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from .conftest import CLI, VERIFY, WIKI_MINI

EVIDENCE_KEYS = {"id", "source", "title", "text", "page", "line", "url", "stance", "score"}


def run(args, tmp_path, stdin=None, **env):
    environment = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local", **env}
    environment.pop("MERMAID_DEBUG", None)
    environment.update(env)
    return subprocess.run(VERIFY + args, input=stdin, capture_output=True, text=True, env=environment, timeout=120)


@pytest.fixture(scope="module")
def two_claims(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("cli")
    stdin = "Stanley Kubrick directed 2001: A Space Odyssey.\n\nMount Everest is in the Himalayas.\n"
    return run(["--json", "--corpus", str(WIKI_MINI), "-"], tmp_path, stdin=stdin)


def test_json_mode_prints_one_object_per_stdin_claim(two_claims):
    assert two_claims.returncode == 0, two_claims.stderr
    lines = two_claims.stdout.strip().splitlines()
    assert len(lines) == 2  # the blank line is not a claim
    results = [json.loads(line) for line in lines]
    assert [r["claim"] for r in results] == [
        "Stanley Kubrick directed 2001: A Space Odyssey.",
        "Mount Everest is in the Himalayas.",
    ]


def test_json_shape(two_claims):
    result = json.loads(two_claims.stdout.splitlines()[0])
    assert {"claim", "verdict", "abstained", "confidence", "triplets", "keywords", "evidence", "trace", "stats"} <= set(
        result
    )
    assert result["verdict"] in {"SUPPORTS", "REFUTES", "NOT ENOUGH INFO"}
    assert isinstance(result["abstained"], bool) and 0.0 <= result["confidence"] <= 1.0
    assert {"subject": "Stanley Kubrick", "relation": "directed", "object": "2001: A Space Odyssey"} in result[
        "triplets"
    ]
    assert result["evidence"], "the fixture corpus has evidence for this claim"
    for item in result["evidence"]:
        assert EVIDENCE_KEYS <= set(item)
        assert item["source"] == "local-corpus" and item["stance"] in {"supports", "refutes", "neutral"}
        assert item["page"] and item["line"] is not None
    assert {"step", "thought", "action", "action_input", "observation"} <= set(result["trace"][0])
    assert set(result["stats"]) >= {"tool_calls", "memory_hits", "seconds"}
    assert result["stats"]["tool_calls"] == sum(1 for s in result["trace"] if s["action"].startswith("local-corpus."))


def test_readable_panel_by_default(tmp_path):
    done = run(["--corpus", str(WIKI_MINI), "Stanley Kubrick directed 2001: A Space Odyssey."], tmp_path, COLUMNS="120")
    assert done.returncode == 0, done.stderr
    for expected in (
        "confidence",
        "triplets",
        "evidence",
        "Stanley Kubrick",
        "local-corpus",
        "tool call",
        "reliability 0.",
        "source 0.70",
        "s verifying this claim",  # the panel's time is the claim's own, and says so
    ):
        assert expected in done.stdout
    # the run's whole time, and how much of it went to starting up, on stderr
    assert "1 claim(s) in " in done.stderr and "starting the tool servers and loading" in done.stderr


def test_why_an_item_was_trusted_names_the_terms_and_a_topicality_discount():
    from mermaid_verifier.cli.render import why_trusted
    from mermaid_verifier.models import Evidence, Trust

    trust = Trust(source_credibility=0.7, recency=1.0, consensus=0.5, reliability=0.79, topicality=0.0)
    item = Evidence(id="e", source="local-corpus", title="Tim Hill (director)", text="…", trust=trust)
    assert why_trusted(item) == (
        "reliability 0.79 (source 0.70 · recency 1.00 · consensus 0.50); names nothing the claim names, not counted"
    )
    assert why_trusted(item.model_copy(update={"trust": trust.model_copy(update={"topicality": 1.0})})).endswith(
        "0.50)"
    )
    assert why_trusted(item.model_copy(update={"trust": None})) == ""


@pytest.mark.parametrize(
    "args, env, message",
    [
        ([""], {}, "error: empty claim"),
        (
            ["--corpus", "/nonexistent/corpus.jsonl", "A claim."],
            {},
            "error: corpus file not found: /nonexistent/corpus.jsonl",
        ),
        (["A claim."], {"MERMAID_MAX_STEPS": "many"}, "error: MERMAID_MAX_STEPS"),
    ],
)
def test_usage_errors_exit_2_with_one_line(tmp_path, args, env, message):
    done = run(args, tmp_path, **env)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(message)
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_unreadable_corpus_file_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not json\n")
    done = run(["--corpus", str(bad), "A claim."], tmp_path)
    assert done.returncode == 2
    assert "bad.jsonl:1" in done.stderr and "Traceback" not in done.stderr


def test_runtime_failure_exits_1_with_one_line_and_debug_shows_traceback(tmp_path):
    done = run(["--corpus", str(WIKI_MINI), "A claim."], tmp_path, MERMAID_STANCE_MODEL=str(tmp_path / "no-model"))
    assert done.returncode == 1
    assert done.stderr.strip().startswith("error: stance model not found")
    assert len(done.stderr.strip().splitlines()) == 1
    debug = run(
        ["--corpus", str(WIKI_MINI), "A claim."],
        tmp_path,
        MERMAID_STANCE_MODEL=str(tmp_path / "no-model"),
        MERMAID_DEBUG="1",
    )
    assert debug.returncode != 0 and "Traceback" in debug.stderr


def test_mermaid_verifier_has_a_verify_subcommand(tmp_path):
    done = subprocess.run(CLI + ["verify", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--corpus" in done.stdout and "--json" in done.stdout
