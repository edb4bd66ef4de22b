"""The user's own documents: ``check --source PATH`` (a file or a folder of files) and the service's uploads.

Every supported file is read to plain text — ``.txt`` as it is, ``.md`` through markdown-it-py (MIT), ``.html``
through Beautiful Soup (MIT), ``.pdf`` through pypdf (BSD-3-Clause) — and becomes one document the text is
checked against (:mod:`mermaid_verifier.texts.grounding`); a ``.jsonl`` corpus gives one document per page. A file
that cannot be read is named with the reason and left out; the rest are used.
"""

from __future__ import annotations

import bisect
import io
import logging
import re
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

from mermaid_verifier.errors import CorpusError

TEXT_SUFFIXES = {".txt", ".text"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
HTML_SUFFIXES = {".html", ".htm"}
PDF_SUFFIXES = {".pdf"}
CORPUS_SUFFIXES = {".jsonl"}
SUPPORTED = TEXT_SUFFIXES | MARKDOWN_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES | CORPUS_SUFFIXES


@dataclass(frozen=True)
class DocumentProblem:
    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def source_files(paths: list[Path]) -> tuple[list[Path], list[DocumentProblem]]:
    """The supported files named or inside the folders named (sorted, hidden files skipped)."""
    files: list[Path] = []
    problems: list[DocumentProblem] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in SUPPORTED and not any(part.startswith(".") for part in p.parts)
            )
            if not found:
                problems.append(DocumentProblem(path, f"no {', '.join(sorted(SUPPORTED))} file in this folder"))
            files += found
        elif path.is_file():
            if path.suffix.lower() in SUPPORTED:
                files.append(path)
            else:
                problems.append(DocumentProblem(path, f"not a supported document (use {', '.join(sorted(SUPPORTED))})"))
        else:
            problems.append(DocumentProblem(path, "no such file or folder"))
    return list(dict.fromkeys(files)), problems


def document_text(path: Path) -> tuple[str, str]:
    """(title, plain text) of one document; ``ValueError`` saying what is wrong with it."""
    title, text, _ = _read(path)
    return title, text


def _read(path: Path) -> tuple[str, str, str | None]:
    """(title, plain text, the file's own text where the plain text was read out of its markup)."""
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES:
        return (*_pdf_text(path, path.stem), None)
    raw = path.read_bytes()
    if b"\x00" in raw[:8192]:
        raise ValueError("looks binary, not text")
    try:
        source = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
    if suffix in HTML_SUFFIXES:
        return (*_html_text(source, path), source)
    if suffix in MARKDOWN_SUFFIXES:
        return (*_markdown_text(source, path), source)
    return path.stem, source, None


def uploaded_text(name: str, content: str) -> tuple[str, str]:
    """(title, plain text) of an uploaded document's content, read by its name's suffix (.txt, .md, .html)."""
    suffix = Path(name).suffix.lower()
    if suffix in HTML_SUFFIXES:
        return _html_text(content, Path(name))
    if suffix in MARKDOWN_SUFFIXES:
        return _markdown_text(content, Path(name))
    return Path(name).stem, content


def uploaded_document(name: str, content: str | bytes):
    """An uploaded document as a :class:`~mermaid_verifier.models.GivenDocument` whose spans index the upload as
    written (its markup included); a ``.pdf`` comes as its bytes, and its spans index the text read out of it.
    ``ValueError`` saying what is wrong with it."""
    if Path(name).suffix.lower() in PDF_SUFFIXES:
        if not isinstance(content, bytes):
            raise ValueError("a PDF is sent as its bytes, not as text")
        title, text = _pdf_text(io.BytesIO(content), Path(name).stem)
        return given_document(name, title, text, extracted=True)
    if isinstance(content, bytes):
        raise ValueError("only a PDF is sent as bytes; a text, Markdown or HTML file is sent as its text")
    title, text = uploaded_text(name, content)
    return given_document(name, title, text, content)


def given_document(name: str, title: str, text: str, source: str | None = None, *, extracted: bool = False):
    """A :class:`~mermaid_verifier.models.GivenDocument` named by its file name; a title that is only the file's
    stem (what a plain text or a page without one gets) is left out, as it says nothing the name does not.
    ``source``: the file's own text where ``text`` was read out of its markup (.md, .html), so that spans index the
    file (:func:`file_offsets`); ``extracted``: ``text`` came out of a PDF, whose spans can only index that text."""
    from mermaid_verifier.models import GivenDocument

    offsets = None
    if source is not None and source != text:
        body = re.search(r"<body[\s>]", source, re.IGNORECASE) if Path(name).suffix.lower() in HTML_SUFFIXES else None
        offsets = file_offsets(text, source, body.start() if body else 0)
    return GivenDocument(
        name=name,
        title=title if title != Path(name).stem else "",
        text=text,
        file_offsets=offsets,
        extracted=extracted,
    )


SEARCH_AHEAD = 5000  # characters of markup (tags, link targets) a word of the text may lie beyond the last one
_TOKEN = re.compile(r"\w+|[^\w\s]")  # a word, or one mark: "minutes." may be written "*minutes*."


def file_offsets(text: str, source: str, begin: int = 0) -> list[tuple[int, int, int]]:
    """Where the words and marks of ``text`` (read out of the markup of ``source``) lie in ``source``, as stretches
    (offset in text, offset in source, length) in order, each the longest run that is the same in both.

    They are found in order from ``begin`` (an HTML file's ``<body>``), each within :data:`SEARCH_AHEAD` characters
    of the last one found; one the markup wrote otherwise (an entity: ``&amp;``) is not found and maps nowhere,
    and those after it go on."""
    stretches: list[list[int]] = []
    cursor = begin
    for match in _TOKEN.finditer(text):
        word = match.group()
        at = source.find(word, cursor, cursor + SEARCH_AHEAD + len(word))
        if at < 0:
            continue
        start = match.start()
        if stretches:
            last = stretches[-1]
            gap_text, gap_source = start - (last[0] + last[2]), at - (last[1] + last[2])
            if gap_text == gap_source and text[last[0] + last[2] : start] == source[last[1] + last[2] : at]:
                last[2] = start + len(word) - last[0]
                cursor = at + len(word)
                continue
        stretches.append([start, at, len(word)])
        cursor = at + len(word)
    return [(a, b, c) for a, b, c in stretches]


def file_span(offsets: list[tuple[int, int, int]], start: int, end: int) -> tuple[int, int]:
    """The span of the file that holds ``text[start:end]``: from the first mapped character at or after ``start``
    to just past the last mapped one before ``end`` (``(start, end)`` unchanged where nothing in it maps)."""
    starts = [stretch[0] for stretch in offsets]
    first = bisect.bisect_right(starts, start) - 1
    if first < 0 or offsets[first][0] + offsets[first][2] <= start:
        first += 1  # start falls between stretches: the next one begins the span
    last = bisect.bisect_left(starts, end) - 1
    if first >= len(offsets) or last < first:
        return start, end
    text_at, file_at, _ = offsets[first]
    file_start = file_at + max(0, start - text_at)
    text_at, file_at, length = offsets[last]
    file_end = file_at + min(length, end - text_at)
    return file_start, max(file_start, file_end)


def _pdf_text(source: Path | BinaryIO, stem: str) -> tuple[str, str]:
    """(title, text) of a PDF file or of its bytes; ``stem`` is the title where the PDF names none."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        with _pypdf_quiet():
            reader = PdfReader(source)
            if reader.is_encrypted:
                raise ValueError("the PDF is encrypted")
            text = "\n\n".join(page.extract_text() or "" for page in reader.pages)
            title = (reader.metadata.title if reader.metadata else None) or stem
    except PdfReadError as exc:
        raise ValueError(f"not a readable PDF ({exc})") from None
    if not text.strip():
        raise ValueError("the PDF holds no text (a scan needs OCR first)")
    return str(title), text


_PYPDF_LOCK = threading.Lock()


@contextmanager
def _pypdf_quiet() -> Iterator[None]:
    """pypdf's own log lines and warnings ("invalid pdf header", "EOF marker not found") are held back while a
    file is read: what is wrong with a file is said once, in the reason it is left out. The logger's level is
    process-wide, so one PDF is read at a time (the reading holds the interpreter lock anyway)."""
    logger = logging.getLogger("pypdf")  # its modules log to children of this logger
    with _PYPDF_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        level = logger.level
        logger.setLevel(logging.CRITICAL + 1)
        try:
            yield
        finally:
            logger.setLevel(level)


def _html_text(html: str, path: Path) -> tuple[str, str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup(["script", "style", "noscript", "template", "head"]):
        if hidden.name != "head":
            hidden.decompose()
    title = soup.title.get_text(strip=True) if soup.title else ""
    if soup.head:
        soup.head.decompose()
    blocks = [
        block.get_text(" ", strip=True)
        for block in soup.find_all(["p", "li", "h1", "h2", "h3", "h4", "td", "blockquote"])
    ]
    text = "\n\n".join(b for b in blocks if b) or soup.get_text("\n", strip=True)
    return title or path.stem, text


def _markdown_text(markdown: str, path: Path) -> tuple[str, str]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt().parse(markdown)
    blocks: list[str] = []
    title = ""
    for i, token in enumerate(tokens):
        if token.type == "inline":
            text = "".join(
                " " if child.type in {"softbreak", "hardbreak"} else child.content
                for child in token.children or []
                if child.type in {"text", "code_inline", "softbreak", "hardbreak"}
            )
            text = text or token.content
            if i > 0 and tokens[i - 1].type == "heading_open" and not title:
                title = text
            blocks.append(text)
    return title or path.stem, "\n\n".join(b for b in blocks if b.strip())


def given_documents(paths: list[Path]) -> tuple[list, list[DocumentProblem]]:
    """The documents a text is checked against (grounding), read from ``--source`` paths: each file as one
    :class:`~mermaid_verifier.models.GivenDocument` named by its file name (a ``.jsonl`` corpus gives one per
    page). A :class:`CorpusError` when no file is usable; otherwise the unusable ones are in ``problems``."""
    from mermaid_verifier.models import GivenDocument

    files, problems = source_files(paths)
    documents: list[GivenDocument] = []
    for path in files:
        try:
            if path.suffix.lower() in CORPUS_SUFFIXES:
                documents += _corpus_documents(path)
                continue
            title, text, source = _read(path)
        except (ValueError, OSError) as exc:
            problems.append(DocumentProblem(path, str(getattr(exc, "strerror", None) or exc)))
            continue
        if not text.strip():
            problems.append(DocumentProblem(path, "holds no text"))
            continue
        extracted = path.suffix.lower() in PDF_SUFFIXES
        documents.append(given_document(path.name, title, text, source, extracted=extracted))
    if not documents:
        detail = "; ".join(str(p) for p in problems) or "no file given"
        raise CorpusError(f"none of the --source files can be used ({detail})")
    return documents, problems


def _corpus_documents(path: Path) -> list:
    """A JSONL corpus as documents: its records grouped by page, one line a sentence, in file order."""
    from mermaid_verifier.models import GivenDocument

    pages: dict[str, tuple[str, list[str]]] = {}
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise ValueError(f"line {number} is not JSON") from None
            text = record.get("text") or " ".join(record.get("abstract") or [])
            page = str(record.get("page") or record.get("title") or record.get("doc_id") or record.get("id") or "")
            title, sentences = pages.setdefault(page, (str(record.get("title") or page), []))
            if text:
                sentences.append(str(text))
    if not pages:
        raise ValueError("the corpus holds no records")
    return [
        GivenDocument(name=f"{path.name}#{page}" if page else path.name, title=title, text="\n".join(sentences))
        for page, (title, sentences) in pages.items()
        if sentences
    ]
