"""Local JSONL corpora and their BM25 index: pure helpers, no MCP.

Three record layouts are understood, one passage per sentence where the source splits them:

* wiki sentences  ``{"page", "line", "title", "text"}``   -> one passage per record
* SciFact         ``{"doc_id", "title", "abstract": [..]}`` -> one passage per abstract sentence
* generic         ``{"id", "title", "text"}``               -> one passage per record

The BM25 index (bm25s, Snowball stemming) is saved under a cache directory keyed by the corpus
files' paths, sizes and modification times, so a second start loads instead of rebuilding.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import orjson

from mermaid_verifier.errors import CorpusError
from mermaid_verifier.names import disambiguator, normalise_entity, unescape_fever, without_disambiguator

if TYPE_CHECKING:
    import bm25s

logger = logging.getLogger(__name__)

INDEX_FORMAT_VERSION = 2  # 2: title-less wiki records get FEVER-unescaped titles
_TOKEN_PATTERN = r"(?u)\b\w+\b"


@dataclass(frozen=True, slots=True)
class Passage:
    """One retrievable unit of a corpus (a sentence, an abstract sentence or a record)."""

    id: str
    page: str
    line: int | None
    title: str
    text: str
    corpus: str
    url: str | None = None  # where a reader can open the page (a ZIM's Wikipedia article), when known

    def to_json(self) -> dict:
        record = {
            "id": self.id,
            "page": self.page,
            "line": self.line,
            "title": self.title,
            "text": self.text,
            "corpus": self.corpus,
        }
        if self.url is not None:
            record["url"] = self.url
        return record


def normalise_title(title: str) -> str:
    """Fold a page title or FEVER page id to one lookup key: ``Soul_Food_-LRB-film-RRB-`` -> ``soul food (film)``."""
    title = unescape_fever(title).replace("_", " ")
    return re.sub(r"\s+", " ", title).strip().casefold()


def title_from_page_id(page: str) -> str:
    """A readable title for a FEVER page id: ``Soul_Food_-LRB-film-RRB-`` -> ``Soul Food (film)``."""
    return re.sub(r"\s+", " ", unescape_fever(page).replace("_", " ")).strip()


def clean_fever_text(text: str) -> str:
    """Undo FEVER's PTB tokenisation artefacts so the text reads (and tokenises) like prose."""
    text = unescape_fever(text).replace("``", '"').replace("''", '"')
    text = re.sub(r"\s+([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$])\s+", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _passages_from_record(record: dict, corpus: str, line_number: int) -> list[Passage]:
    if "abstract" in record and isinstance(record["abstract"], list):
        doc_id = str(record.get("doc_id", record.get("id", line_number)))
        title = str(record.get("title", doc_id))
        return [
            Passage(f"{corpus}:{doc_id}:{i}", doc_id, i, title, str(sentence), corpus)
            for i, sentence in enumerate(record["abstract"])
            if str(sentence).strip()
        ]
    if "page" in record and "text" in record:
        page = str(record["page"])
        line = record.get("line")
        title = str(record.get("title") or title_from_page_id(page))
        text = clean_fever_text(str(record["text"]))
        return [Passage(f"{corpus}:{page}:{line}", page, line, title, text, corpus)] if text else []
    if "text" in record:
        record_id = str(record.get("id", line_number))
        title = str(record.get("title", record_id))
        text = str(record["text"]).strip()
        return [Passage(f"{corpus}:{record_id}", record_id, None, title, text, corpus)] if text else []
    raise ValueError("record has neither 'text' nor 'abstract'")


def read_corpus(path: Path) -> Iterator[Passage]:
    """Yield the passages of one JSONL corpus file; a malformed line is a :class:`CorpusError`."""
    corpus = path.stem
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise CorpusError(f"cannot read corpus {path}: {exc.strerror or exc}") from exc
    with handle:
        for line_number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                record = orjson.loads(raw)
                if not isinstance(record, dict):
                    raise ValueError("line is not a JSON object")
                yield from _passages_from_record(record, corpus, line_number)
            except (orjson.JSONDecodeError, ValueError) as exc:
                raise CorpusError(f"{path}:{line_number}: not a corpus record ({exc})") from exc


def corpus_fingerprint(paths: Iterable[Path]) -> str:
    """A key that changes whenever a corpus file is replaced or edited."""
    digest = hashlib.sha256(f"v{INDEX_FORMAT_VERSION}".encode())
    for path in sorted(Path(p).resolve() for p in paths):
        stat = path.stat()
        digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


@functools.cache
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def tokenize(texts: list[str]) -> list[list[str]]:
    """Lower-cased, stop-word-free, stemmed tokens (the same for passages and queries). bm25s and the stemmer are
    imported here, on first use: a process that only resolves corpora (``verify``'s, before it starts the corpus
    server) never pays for them."""
    import bm25s

    return bm25s.tokenize(
        texts,
        token_pattern=_TOKEN_PATTERN,
        stopwords="en",
        stemmer=_stemmer(),
        return_ids=False,
        show_progress=False,
    )


def bm25_top(retriever: bm25s.BM25, vocab: dict, query: str, k: int, size: int) -> list[tuple[int, float]]:
    """(position, BM25 score) of the ``k`` best of ``size`` indexed passages for ``query``, score > 0 only; the
    query's words the index never saw are left out (bm25s refuses them)."""
    tokens = [t for t in tokenize([query])[0] if t in vocab]
    if not tokens or k <= 0:
        return []
    ids, scores = retriever.retrieve([tokens], k=min(k, size), show_progress=False, n_threads=1)
    return [(int(i), float(s)) for i, s in zip(np.asarray(ids[0]), np.asarray(scores[0])) if s > 0]


def _indexable_text(passage: Passage) -> str:
    # The title is part of what a sentence is about: FEVER sentences often say "He" or "It".
    return f"{passage.title} . {passage.text}"


SOURCES_FILE = "sources.json"  # the corpus files an index directory was built from


def indexed_paths(paths: Iterable[Path]) -> list[str]:
    """The corpus files as an index records them: resolved, sorted, de-duplicated."""
    return sorted({str(Path(p).resolve()) for p in paths})


def remove_stale_versions(cache_dir: Path, pattern: str, keep: Path, paths: list[str], paths_of) -> None:
    """Delete the index directories matching ``pattern`` built from exactly these files in an earlier
    version (a file since edited or replaced gets a new fingerprint, so its old index would otherwise
    stay on disk for ever); ``paths_of(dir)`` reads a directory's file list (None: unknown, kept).
    An index of a different set of files is another corpus's and stays."""
    for candidate in Path(cache_dir).glob(pattern):
        if candidate == keep or not candidate.is_dir() or ".tmp" in candidate.name:
            continue
        if paths_of(candidate) == paths:
            logger.info("removing %s, the index of an earlier version of the same corpus files", candidate)
            shutil.rmtree(candidate, ignore_errors=True)


def _bm25_sources(index_dir: Path) -> list[str] | None:
    try:
        recorded = orjson.loads((index_dir / SOURCES_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return recorded.get("paths") if isinstance(recorded, dict) else None


class CorpusIndex:
    """BM25 over the passages of one or more JSONL corpora, with title lookup."""

    def __init__(self, passages: list[Passage], retriever: bm25s.BM25):
        self.passages = passages
        self._retriever = retriever
        self._vocab = retriever.vocab_dict
        self._by_title: dict[str, list[int]] = {}
        fold = functools.cache(normalise_title)  # each page's passages share its title and page id: fold each once
        for position, passage in enumerate(passages):
            title_key = fold(passage.title)
            self._by_title.setdefault(title_key, []).append(position)
            page_key = fold(passage.page)
            if page_key != title_key:
                self._by_title.setdefault(page_key, []).append(position)
        self._titles_by_name: dict[str, set[str]] = {}  # "house" -> {"House (TV series)", ...}
        for key, positions in self._by_title.items():
            self._titles_by_name.setdefault(normalise_entity(without_disambiguator(key)), set()).add(
                self.passages[positions[0]].title
            )

    def __len__(self) -> int:
        return len(self.passages)

    @classmethod
    def build(cls, passages: list[Passage]) -> CorpusIndex:
        if not passages:
            raise CorpusError("the corpus holds no passages")
        import bm25s

        retriever = bm25s.BM25()
        retriever.index(tokenize([_indexable_text(p) for p in passages]), show_progress=False)
        return cls(passages, retriever)

    @classmethod
    def open(cls, paths: list[Path], cache_dir: Path) -> CorpusIndex:
        """Load the cached index for these files, building and saving it when absent or stale."""
        paths = [Path(p) for p in paths]
        for path in paths:
            if not path.is_file():
                raise CorpusError(f"corpus file not found: {path}")
        index_dir = Path(cache_dir) / f"bm25-{corpus_fingerprint(paths)}"
        if (index_dir / "passages.json").is_file():
            try:
                return cls._load(index_dir)
            except (OSError, ValueError, KeyError) as exc:
                logger.warning("index cache at %s unreadable (%s); rebuilding", index_dir, exc)
        started = time.perf_counter()
        passages = [p for path in paths for p in read_corpus(path)]
        index = cls.build(passages)
        try:
            index._save(index_dir, indexed_paths(paths))
        except OSError as exc:  # a read-only or odd cache dir costs the next start a rebuild, no more
            logger.warning("cannot cache the index at %s (%s); using it uncached", index_dir, exc)
        else:
            remove_stale_versions(Path(cache_dir), "bm25-*", index_dir, indexed_paths(paths), _bm25_sources)
        logger.info("indexed %d passages in %.1fs", len(passages), time.perf_counter() - started)
        return index

    def _save(self, index_dir: Path, paths: list[str]) -> None:
        tmp_dir = index_dir.with_name(index_dir.name + f".tmp{time.time_ns()}")
        tmp_dir.mkdir(parents=True)
        self._retriever.save(tmp_dir, show_progress=False)
        (tmp_dir / SOURCES_FILE).write_bytes(orjson.dumps({"paths": paths}))
        (tmp_dir / "passages.json").write_bytes(orjson.dumps([p.to_json() for p in self.passages]))
        try:
            tmp_dir.rename(index_dir)  # atomic: a crash never leaves a half-written index behind
        except OSError:  # another process won the race; its index is as good as ours
            shutil.rmtree(tmp_dir, ignore_errors=True)

    @classmethod
    def _load(cls, index_dir: Path) -> CorpusIndex:
        import bm25s

        retriever = bm25s.BM25.load(index_dir, show_progress=False, mmap=False)
        records = orjson.loads((index_dir / "passages.json").read_bytes())
        return cls([Passage(**r) for r in records], retriever)

    def search(self, query: str, k: int = 5) -> list[tuple[Passage, float]]:
        """The ``k`` best passages for ``query`` with their BM25 scores (score > 0 only)."""
        return [(self.passages[i], s) for i, s in bm25_top(self._retriever, self._vocab, query, k, len(self.passages))]

    def get_page(self, title: str) -> list[Passage]:
        """All passages of the page whose title (or FEVER page id) matches, in line order."""
        positions = self._by_title.get(normalise_title(title), [])
        return sorted((self.passages[i] for i in positions), key=lambda p: (p.page, p.line or 0))

    def titles_like(self, title: str, limit: int = 5) -> list[str]:
        """Titles for 'did you mean' answers, best first: pages of the same name with a disambiguator
        ("House (TV series)" for "House", "The Gifted (TV series)" for "Gifted"), then titles that
        start with the query, then titles that contain it; shorter titles first within each."""
        key = normalise_title(title)
        if not key:
            return []
        ranked = {shown: (0, len(shown)) for shown in self.pages_named(title)}
        for candidate, positions in self._by_title.items():
            if candidate.startswith(key):
                rank = 1
            elif key in candidate:
                rank = 2
            else:
                continue
            shown = self.passages[positions[0]].title
            ranked[shown] = min(ranked.get(shown, (rank, len(shown))), (rank, len(shown)))
        return sorted(ranked, key=lambda t: (*ranked[t], t))[:limit]

    def pages_named(self, title: str) -> list[str]:
        """Titles of the pages whose name — the title without its disambiguator and a leading
        article — is the name asked for: the candidates when ``title`` has no page of its own. None
        for a title with a disambiguator: "Paris (Paris Hilton album)" does not mean "Paris"."""
        key = normalise_title(title)
        if disambiguator(key):
            return []
        name = normalise_entity(key)
        return sorted(self._titles_by_name.get(name, ()), key=lambda t: (len(t), t)) if name else []
