"""The user's own documents as a corpus: ``--source PATH`` (a file or a folder of files).

``.jsonl`` files are corpora already and are used as they are. Every other supported file is read to
plain text — ``.txt`` as it is, ``.md`` through markdown-it-py (MIT), ``.html`` through Beautiful Soup
(MIT), ``.pdf`` through pypdf (BSD-3-Clause) — split into sentences (spaCy's rule-based sentencizer),
and written as one JSONL corpus (``{page, line, title, text}`` per sentence, ``page`` the file's name)
under the cache directory, named by a fingerprint of the files' contents: the same documents are
converted once. A file that cannot be read is named with the reason and left out; the rest are used.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from mermaid_verifier.errors import CorpusError

TEXT_SUFFIXES = {".txt", ".text"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
HTML_SUFFIXES = {".html", ".htm"}
PDF_SUFFIXES = {".pdf"}
CORPUS_SUFFIXES = {".jsonl"}
SUPPORTED = TEXT_SUFFIXES | MARKDOWN_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES | CORPUS_SUFFIXES
CONVERSION_VERSION = 1
MAX_SENTENCE_CHARS = 2_000


@dataclass(frozen=True)
class DocumentProblem:
    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True)
class Documents:
    """The corpus files a run searches for these sources, and the files left out (with why)."""

    corpora: tuple[Path, ...]
    problems: tuple[DocumentProblem, ...]
    documents: int  # files converted into the documents corpus


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
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES:
        return _pdf_text(path)
    raw = path.read_bytes()
    if b"\x00" in raw[:8192]:
        raise ValueError("looks binary, not text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
    if suffix in HTML_SUFFIXES:
        return _html_text(text, path)
    if suffix in MARKDOWN_SUFFIXES:
        return _markdown_text(text, path)
    return path.stem, text


def _pdf_text(path: Path) -> tuple[str, str]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            raise ValueError("the PDF is encrypted")
        text = "\n\n".join(page.extract_text() or "" for page in reader.pages)
        title = (reader.metadata.title if reader.metadata else None) or path.stem
    except PdfReadError as exc:
        raise ValueError(f"not a readable PDF ({exc})") from None
    if not text.strip():
        raise ValueError("the PDF holds no text (a scan needs OCR first)")
    return str(title), text


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


def sentences(text: str) -> list[str]:
    """The text's sentences (paragraph breaks always end one)."""
    nlp = _sentencizer()
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        for sentence in nlp(paragraph).sents:
            chunk = sentence.text.strip()
            while len(chunk) > MAX_SENTENCE_CHARS:  # a run-on without stops: cut where a reader would
                cut = chunk.rfind(" ", 0, MAX_SENTENCE_CHARS)
                out.append(chunk[: cut if cut > 0 else MAX_SENTENCE_CHARS])
                chunk = chunk[cut if cut > 0 else MAX_SENTENCE_CHARS :].strip()
            if chunk:
                out.append(chunk)
    return out


_NLP = None


def _sentencizer():
    global _NLP
    if _NLP is None:
        from spacy.lang.en import English

        _NLP = English()
        _NLP.add_pipe("sentencizer")
    return _NLP


def documents_fingerprint(files: list[Path]) -> str:
    digest = hashlib.sha256(f"documents v{CONVERSION_VERSION}".encode())
    for path in files:
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:24]


def prepare_documents(paths: list[Path], cache_dir: Path) -> Documents:
    """The corpus files for ``--source`` paths: ``.jsonl`` as they are, the other documents converted
    (once per content) into one corpus under ``cache_dir/documents``. A :class:`CorpusError` when no
    file is usable; otherwise the unusable ones are in ``problems``."""
    files, problems = source_files(paths)
    corpora = [f for f in files if f.suffix.lower() in CORPUS_SUFFIXES]
    documents = [f for f in files if f.suffix.lower() not in CORPUS_SUFFIXES]
    converted = 0
    if documents:
        readable: list[Path] = []
        for path in documents:
            try:
                path.read_bytes()
                readable.append(path)
            except OSError as exc:
                problems.append(DocumentProblem(path, f"cannot be read ({exc.strerror or exc})"))
        if readable:
            target = cache_dir / "documents" / documents_fingerprint(readable) / "documents.jsonl"
            if target.is_file():
                recorded = _recorded_problems(target)
                converted = len(readable) - len(recorded)
                problems += recorded
            else:
                converted, more = _convert(readable, target)
                problems += more
            if converted:
                corpora.append(target)
    if not corpora:
        detail = "; ".join(str(p) for p in problems) or "no file given"
        raise CorpusError(f"none of the --source files can be used ({detail})")
    return Documents(tuple(corpora), tuple(problems), converted)


def _convert(files: list[Path], target: Path) -> tuple[int, list[DocumentProblem]]:
    problems: list[DocumentProblem] = []
    lines: list[bytes] = []
    converted = 0
    for path in files:
        try:
            title, text = document_text(path)
        except (ValueError, OSError) as exc:
            problems.append(DocumentProblem(path, str(exc)))
            continue
        passages = sentences(text)
        if not passages:
            problems.append(DocumentProblem(path, "holds no text"))
            continue
        converted += 1
        for line, sentence in enumerate(passages):
            lines.append(orjson.dumps({"page": path.name, "line": line, "title": title, "text": sentence}) + b"\n")
    target.parent.mkdir(parents=True, exist_ok=True)
    (target.parent / "problems.json").write_bytes(orjson.dumps([[str(p.path), p.reason] for p in problems]))
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(b"".join(lines))
    tmp.replace(target)  # whole or not at all: a later run never reads half a conversion
    return converted, problems


def _recorded_problems(target: Path) -> list[DocumentProblem]:
    try:
        return [DocumentProblem(Path(p), r) for p, r in orjson.loads((target.parent / "problems.json").read_bytes())]
    except (OSError, ValueError):
        return []
