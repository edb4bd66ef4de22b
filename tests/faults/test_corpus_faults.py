"""A corpus that cannot be read past its first line, and a damaged cached default corpus: no run may
answer "no evidence was found" for every claim and exit 0. `verify` and `fever` stop with one line
naming the file and line; `fever` writes no metrics or report for a run that could not check a claim."""

from __future__ import annotations

import json

import pytest

from mermaid_verifier.tools import corpora

from ..conftest import CLI, VERIFY, WIKI_MINI
from .fault_kit import one_error_line, run

CLAIM = "Mount Everest is in the Himalayas."


def corpus_with_bad_line(tmp_path, line_number: int = 9):
    lines = WIKI_MINI.read_text().splitlines()
    assert len(lines) > line_number
    lines[line_number - 1] = '{"page": "Cut_off", "line": 0, "title": "Cut'  # a record torn mid-write
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_verify_names_the_malformed_corpus_line(tmp_path):
    corpus = corpus_with_bad_line(tmp_path)
    done = run(VERIFY, tmp_path, "--corpus", str(corpus), CLAIM)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    one_error_line(done, f"{corpus}:9", "not a corpus record")


def test_fever_stops_at_a_malformed_corpus_and_writes_no_metrics(tmp_path):
    corpus = corpus_with_bad_line(tmp_path)
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "".join(json.dumps({"id": f"c{i}", "claim": CLAIM, "label": "SUPPORTS"}) + "\n" for i in range(4))
    )
    out = tmp_path / "out"
    done = run(CLI, tmp_path, "fever", str(claims), "--corpus", str(corpus), "--no-memory", "--out", str(out))
    assert done.returncode == 2, done.stderr
    one_error_line(done, f"{corpus}:9")
    assert not (out / "metrics.json").exists() and not (out / "report.html").exists()
    results = out / "results.jsonl"
    assert not results.exists() or results.read_text() == ""


@pytest.mark.skipif(corpora.default_summaries_file() is None, reason="the default-corpus extra is not installed")
@pytest.mark.parametrize("damage", ["truncated", "garbage-line"])
def test_a_damaged_cached_default_corpus_is_converted_again(tmp_path, damage):
    cache = tmp_path / "cache"
    path = corpora.default_corpus(cache)
    good = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(good[: len(good) // 2])
    else:
        path.write_bytes(good + b"not json\n")
    assert corpora.default_corpus(cache) == path
    assert path.read_bytes() == good
