"""The user's own documents as a corpus (tools/documents.py, ``check --source``): each format read to text,
converted once per content, unusable files named while the rest are used."""

from __future__ import annotations

import json
import shutil

import orjson
import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.errors import CorpusError
from mermaid_verifier.tools.corpus_index import read_corpus
from mermaid_verifier.tools.documents import document_text, prepare_documents, sentences

from .conftest import FIXTURES, WIKI_MINI

DOCUMENTS = FIXTURES / "documents"


def test_each_format_gives_its_title_and_its_text_without_markup():
    title, text = document_text(DOCUMENTS / "lighthouse.html")
    assert title == "The Brightwater Lighthouse"
    assert "first lit in 1887" in text and "script text" not in text and "color: red" not in text
    title, text = document_text(DOCUMENTS / "ferry.md")
    assert title == "The Holm Island ferry"
    assert "four times a day" in text and "**" not in text and "`" not in text
    title, text = document_text(DOCUMENTS / "harbour.pdf")
    assert title == "Holm Island harbour" and "rebuilt in 1923" in text
    assert document_text(DOCUMENTS / "museum.txt") == ("museum", (DOCUMENTS / "museum.txt").read_text())


def test_sentences_split_at_stops_and_paragraphs():
    assert sentences("A first one. A second one.\n\nA heading\n\nThe last one") == [
        "A first one.",
        "A second one.",
        "A heading",
        "The last one",
    ]


def test_documents_are_converted_once_per_content(tmp_path):
    source = tmp_path / "docs"
    shutil.copytree(DOCUMENTS, source)
    first = prepare_documents([source], tmp_path / "cache")
    assert first.documents == 4 and first.problems == ()
    (corpus,) = first.corpora
    passages = list(read_corpus(corpus))
    assert {p.page for p in passages} == {"lighthouse.html", "ferry.md", "harbour.pdf", "museum.txt"}
    assert any(p.text == "Its lamp was electrified in 1952 and automated in 1991." for p in passages)
    assert prepare_documents([source], tmp_path / "cache").corpora == (corpus,)  # same content: same corpus

    (source / "museum.txt").write_text("The Holm Island museum opened in 1975.\n")
    changed = prepare_documents([source], tmp_path / "cache")
    assert changed.corpora != (corpus,)
    assert any("1975" in p.text for p in read_corpus(changed.corpora[0]))


def test_unusable_files_are_named_and_the_rest_are_used(tmp_path):
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (tmp_path / "slides.pptx").write_bytes(b"PK\x03\x04")
    (tmp_path / "empty.md").write_text("\n\n")
    result = prepare_documents(
        [
            DOCUMENTS / "museum.txt",
            tmp_path / "scan.pdf",
            tmp_path / "latin1.txt",
            tmp_path / "slides.pptx",
            tmp_path / "empty.md",
            tmp_path / "missing.html",
        ],
        tmp_path / "cache",
    )
    reasons = {problem.path.name: problem.reason for problem in result.problems}
    assert reasons["scan.pdf"].startswith("not a readable PDF")
    assert reasons["latin1.txt"] == "not UTF-8 text (byte 3)"
    assert reasons["slides.pptx"].startswith("not a supported document")
    assert reasons["empty.md"] == "holds no text"
    assert reasons["missing.html"] == "no such file or folder"
    assert result.documents == 1 and [p.page for p in read_corpus(result.corpora[0])] == ["museum.txt", "museum.txt"]


def test_nothing_usable_is_one_corpus_error_naming_the_files(tmp_path):
    (tmp_path / "slides.pptx").write_bytes(b"PK")
    with pytest.raises(CorpusError, match="none of the --source files can be used") as raised:
        prepare_documents([tmp_path / "slides.pptx", tmp_path / "gone.txt"], tmp_path / "cache")
    assert "slides.pptx" in str(raised.value) and "gone.txt" in str(raised.value)


def test_a_jsonl_source_is_a_corpus_used_as_it_is(tmp_path):
    result = prepare_documents([WIKI_MINI, DOCUMENTS / "museum.txt"], tmp_path / "cache")
    assert result.corpora[0] == WIKI_MINI and len(result.corpora) == 2


def test_check_against_your_documents_finds_the_evidence_in_them(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("Its lamp was electrified in 1975. The harbour of Holm Island was rebuilt in 1923.")
    (tmp_path / "notes.docx").write_bytes(b"PK")
    runner = CliRunner()
    done = runner.invoke(
        app,
        ["check", str(answer), "--source", str(DOCUMENTS), "--source", str(tmp_path / "notes.docx"), "--json"],
        env={"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_MEMORY": "0"},
    )
    assert done.exit_code == 0, done.output
    assert done.stderr.strip().splitlines() == [
        f"warning: not using {tmp_path / 'notes.docx'}: not a supported document "
        "(use .htm, .html, .jsonl, .markdown, .md, .pdf, .text, .txt)"
    ]
    payload = json.loads(done.stdout)
    (first,) = (c["result"] for c in payload["claims"])
    # "Its" has no antecedent in the answer: the sentence is dropped, saying so
    assert [d["reason"] for d in payload["dropped"]] == ["refers to 'Its', whom the text before it does not name"]
    assert len(payload["claims"]) == 1 and first["evidence"][0]["page"] == "harbour.pdf"
    assert {e["source"] for e in first["evidence"]} == {"local-corpus"}  # no live source was asked


def test_the_converted_corpus_is_plain_jsonl(tmp_path):
    (corpus,) = prepare_documents([DOCUMENTS / "ferry.md"], tmp_path / "cache").corpora
    rows = [orjson.loads(line) for line in corpus.read_bytes().splitlines()]
    assert rows[0] == {"page": "ferry.md", "line": 0, "title": "The Holm Island ferry", "text": "The Holm Island ferry"}
