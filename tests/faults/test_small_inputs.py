"""Inputs at the edges: an over-long stdin line is skipped with its own line number, a claim record
without an id never takes a real claim's id, a negative --limit is a usage error, and `memory show
--json` on nothing prints an empty array."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from mermaid_verifier.claims import MAX_CLAIM_CHARS
from mermaid_verifier.cli import app
from mermaid_verifier.cli.verify import read_claims
from mermaid_verifier.evaluation.datasets import read_labelled_claims


def test_an_over_long_stdin_line_is_skipped_and_named_by_its_line():
    skipped: list[str] = []
    lines = [b"Paris is in France.\n", b"\n", b"x" * (MAX_CLAIM_CHARS + 1) + b"\n", b"Rome is in Italy.\n"]
    claims = read_claims(["-"], lines, skip=skipped.append)
    assert claims == ["Paris is in France.", "Rome is in Italy."]
    assert len(skipped) == 1 and skipped[0].startswith("<stdin>:3: ")


def test_a_record_without_an_id_does_not_collide_with_a_real_id(tmp_path):
    path = tmp_path / "claims.jsonl"
    path.write_text(
        json.dumps({"id": 2, "claim": "Paris is in France.", "label": "SUPPORTS"})
        + "\n"
        + json.dumps({"claim": "Rome is in Italy.", "label": "SUPPORTS"})
        + "\n"
    )
    claims, bad = read_labelled_claims(path, unique_ids=True)
    assert not bad and [c.id for c in claims] == ["2", "line-2"]


def test_calibrate_refuses_a_negative_limit(tmp_path):
    result = CliRunner().invoke(app, ["calibrate", "--from-results", str(tmp_path / "r.jsonl"), "--limit", "-5"])
    assert result.exit_code == 2 and "--limit" in result.output and "greater than or equal to 0" in result.output


def test_memory_show_json_on_nothing_prints_an_empty_array(tmp_path):
    result = CliRunner().invoke(app, ["memory", "show", "Nobody", "--json", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 0 and json.loads(result.stdout) == []
