"""The user's own documents (tools/documents.py, ``check --source``): each format read to text, unusable files
named while the rest are used, and a text checked against them (grounding) from the command line."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess

import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.errors import CorpusError
from mermaid_verifier.tools.documents import (
    document_text,
    file_offsets,
    file_span,
    given_documents,
    uploaded_document,
    uploaded_text,
)

from .conftest import CLI, FIXTURES, WIKI_MINI

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


def test_the_documents_are_read_one_per_file(tmp_path):
    documents, problems = given_documents([DOCUMENTS])
    assert problems == []
    assert {d.name for d in documents} == {"lighthouse.html", "ferry.md", "harbour.pdf", "museum.txt"}
    lighthouse = next(d for d in documents if d.name == "lighthouse.html")
    assert lighthouse.title == "The Brightwater Lighthouse" and "first lit in 1887" in lighthouse.text
    museum = next(d for d in documents if d.name == "museum.txt")
    assert museum.title == "" and museum.text == (DOCUMENTS / "museum.txt").read_text()


def test_unusable_files_are_named_and_the_rest_are_used(tmp_path):
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (tmp_path / "slides.pptx").write_bytes(b"PK\x03\x04")
    (tmp_path / "empty.md").write_text("\n\n")
    documents, problems = given_documents(
        [
            DOCUMENTS / "museum.txt",
            tmp_path / "scan.pdf",
            tmp_path / "latin1.txt",
            tmp_path / "slides.pptx",
            tmp_path / "empty.md",
            tmp_path / "missing.html",
        ]
    )
    reasons = {problem.path.name: problem.reason for problem in problems}
    assert reasons["scan.pdf"].startswith("not a readable PDF")
    assert reasons["latin1.txt"] == "not UTF-8 text (byte 3)"
    assert reasons["slides.pptx"].startswith("not a supported document")
    assert reasons["empty.md"] == "holds no text"
    assert reasons["missing.html"] == "no such file or folder"
    assert [d.name for d in documents] == ["museum.txt"]


BROKEN_PDFS = {"header.pdf": b"this is no pdf at all\n", "tail.pdf": b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n"}


def test_a_broken_pdf_is_our_reason_alone_and_pypdf_says_nothing(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    for name, content in BROKEN_PDFS.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError, match="not a readable PDF"):
            document_text(tmp_path / name)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("pypdf")] == []
    assert logging.getLogger("pypdf").level == logging.NOTSET  # held back while reading, not for good


def test_check_with_a_broken_pdf_prints_one_line(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("The harbour of Holm Island was rebuilt in 1923.")
    for name, content in BROKEN_PDFS.items():
        (tmp_path / name).write_bytes(content)
        done = subprocess.run(
            [*CLI, "check", str(answer), "--source", str(tmp_path / name)],
            env=os.environ | {"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_MEMORY": "0"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and done.stdout == ""
        (line,) = done.stderr.splitlines()  # nothing of pypdf's own before it
        assert line.startswith(f"error: none of the --source files can be used ({tmp_path / name}: not a readable PDF")


def test_nothing_usable_is_one_corpus_error_naming_the_files(tmp_path):
    (tmp_path / "slides.pptx").write_bytes(b"PK")
    with pytest.raises(CorpusError, match="none of the --source files can be used") as raised:
        given_documents([tmp_path / "slides.pptx", tmp_path / "gone.txt"])
    assert "slides.pptx" in str(raised.value) and "gone.txt" in str(raised.value)


def test_a_jsonl_corpus_gives_one_document_per_page():
    documents, _ = given_documents([WIKI_MINI])
    assert len(documents) > 1 and all(d.name.startswith(f"{WIKI_MINI.name}#") for d in documents)
    assert all(d.text.strip() for d in documents)


def test_an_uploaded_document_is_read_by_its_name():
    assert uploaded_text("notes.md", "# Ferry\n\nIt sails **four** times a day.") == (
        "Ferry",
        "Ferry\n\nIt sails four times a day.",
    )
    assert uploaded_text("page.html", "<title>T</title><p>Hello <b>there</b></p>")[1] == "Hello there"
    assert uploaded_text("plain.txt", "as it is") == ("plain", "as it is")


def test_check_against_your_documents_says_which_sentences_they_back(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text(
        "The harbour of Holm Island was rebuilt in 1923. Its lamp was electrified in 1975. Thank you for reading!"
    )
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
    harbour, lamp, thanks = payload["sentences"]
    assert harbour["label"] == "supported"
    assert harbour["passage"]["name"] == "harbour.pdf" and "rebuilt in 1923" in harbour["passage"]["text"]
    # the lighthouse page says 1952: the same slot (when the lamp was electrified) with another date, shown
    assert lamp["label"] == "contradicted" and lamp["passage"]["name"] == "lighthouse.html"
    assert "1952" in lamp["passage"]["text"] and lamp["contradicted"] == lamp["unsupported"]
    assert thanks["label"] == "nothing to check"
    lighthouse = (DOCUMENTS / "lighthouse.html").read_text()
    assert "1952" in document_text(DOCUMENTS / "lighthouse.html")[1] and "1952" in lighthouse


def test_the_passage_span_points_into_the_document(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("The Holm Island museum opened in 1975.")
    source = tmp_path / "museum.txt"
    source.write_text("Opening hours vary.\n\nThe Holm Island museum opened in 1975 in the old school.\n")
    done = CliRunner().invoke(app, ["check", str(answer), "--source", str(source), "--json"])
    assert done.exit_code == 0, done.output
    (sentence,) = json.loads(done.stdout)["sentences"]
    passage = sentence["passage"]
    assert sentence["label"] == "supported"
    assert (
        source.read_text()[passage["start"] : passage["end"]]
        == "The Holm Island museum opened in 1975 in the old school."
    )


def test_check_quotes_the_sentence_that_decided_with_its_own_span(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("The Great Wall of China is in Mongolia.")
    notes = tmp_path / "notes.txt"
    notes.write_text(
        "Albert Einstein was born on 14 March 1879 in Ulm, in the Kingdom of Württemberg. The Great Wall of China is "
        "a series of fortifications built across the historical northern borders of ancient Chinese states. It lies "
        "entirely in northern China.\n"
    )
    done = CliRunner().invoke(
        app,
        ["check", str(answer), "--source", str(notes)],
        env={"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_MEMORY": "0", "COLUMNS": "300"},
    )
    assert done.exit_code == 0, done.output
    start = notes.read_text().index("It lies")
    quoted = f"contradicted by notes.txt [{start}:{start + len('It lies entirely in northern China.')}]: It lies"
    assert quoted in done.stdout and "Ulm" not in done.stdout.split("read in the passage")[1]


def _plain(markup: str) -> str:
    """The words and marks of a stretch of markup, its markup characters and tags left out."""
    return " ".join(re.findall(r"\w+|[.,;:!?]", re.sub(r"<[^>]*>|&\w+;", " ", markup)))


def test_text_read_out_of_markup_maps_back_into_the_file():
    source = "# The ferry\n\nIt sails **four times** a day from *Holm* &amp; Tern.\n\n- It takes `40` minutes.\n"
    text = "The ferry\n\nIt sails four times a day from Holm & Tern.\n\nIt takes 40 minutes."
    offsets = file_offsets(text, source)
    for sentence in ("The ferry", "It sails four times a day from Holm & Tern.", "It takes 40 minutes."):
        start = text.index(sentence)
        file_start, file_end = file_span(offsets, start, start + len(sentence))
        assert _plain(source[file_start:file_end]) == _plain(sentence)
    start = text.index("Holm & Tern.")  # the entity maps nowhere; the words around it do
    assert source[slice(*file_span(offsets, start, start + len("Holm & Tern.")))] == "Holm* &amp; Tern."
    assert file_span([], 3, 9) == (3, 9)  # nothing maps: the span stays as it was


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("ferry.md", "The Holm Island ferry crosses the Sound four times a day. The crossing takes forty minutes."),
        ("lighthouse.html", "The Brightwater Lighthouse was first lit in 1887. The tower is 34 metres tall."),
    ],
)
def test_spans_in_a_markdown_or_html_source_index_the_file_as_written(tmp_path, name, answer):
    (tmp_path / "answer.txt").write_text(answer)
    done = CliRunner().invoke(
        app,
        ["check", str(tmp_path / "answer.txt"), "--source", str(DOCUMENTS / name), "--json"],
        env={"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_MEMORY": "0"},
    )
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert payload["spans"] == {name: "file"} and payload["extracted_texts"] == {}
    written = (DOCUMENTS / name).read_text()
    assert len(payload["sentences"]) == 2
    for sentence in payload["sentences"]:
        assert sentence["label"] == "supported"
        for decided in sentence["deciding"]:
            assert _plain(written[decided["start"] : decided["end"]]) == _plain(decided["text"])
        passage = sentence["passage"]
        assert _plain(written[passage["start"] : passage["end"]]) == _plain(passage["text"])
    printed = CliRunner().invoke(
        app,
        ["check", str(tmp_path / "answer.txt"), "--source", str(DOCUMENTS / name)],
        env={"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_MEMORY": "0", "COLUMNS": "300"},
    )
    said = " ".join(printed.stdout.split())  # as one line, however wide the terminal the console measured
    assert f"spans in {name} count characters of the file as written, markup included" in said


def test_spans_in_a_pdf_index_the_text_read_from_it_which_the_result_carries(tmp_path):
    (tmp_path / "answer.txt").write_text("The harbour of Holm Island was rebuilt in 1923.")
    done = CliRunner().invoke(
        app,
        ["check", str(tmp_path / "answer.txt"), "--source", str(DOCUMENTS / "harbour.pdf"), "--json"],
        env={"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_MEMORY": "0"},
    )
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert payload["spans"] == {"harbour.pdf": "extracted text"}
    read = payload["extracted_texts"]["harbour.pdf"]
    (sentence,) = payload["sentences"]
    assert sentence["label"] == "supported"
    for decided in sentence["deciding"]:
        assert read[decided["start"] : decided["end"]] == decided["text"]


def test_an_uploaded_pdf_is_read_from_its_bytes_as_the_file_is():
    pdf = DOCUMENTS / "harbour.pdf"
    uploaded = uploaded_document("harbour.pdf", pdf.read_bytes())
    assert (uploaded.title, uploaded.text) == document_text(pdf) and uploaded.extracted
    with pytest.raises(ValueError, match="a PDF is sent as its bytes"):
        uploaded_document("harbour.pdf", "%PDF-1.4")
    with pytest.raises(ValueError, match="only a PDF is sent as bytes"):
        uploaded_document("notes.md", b"# Notes")
    with pytest.raises(ValueError, match="not a readable PDF"):
        uploaded_document("scan.pdf", b"%PDF-1.4 not really a pdf")
