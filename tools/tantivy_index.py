"""The on-disk corpus index: tantivy (Rust, MIT), for corpora too large to hold in memory.

:class:`TantivyCorpusIndex` answers like :class:`~mermaid_verifier.tools.corpus_index.CorpusIndex`
(the same :class:`Passage` records, BM25 search over title and text, page lookup, "did you mean"
titles) but keeps passages, postings and title keys on disk, memory-mapped.

Layout under the cache directory: one index directory per set of corpus files,
``tantivy-<corpus_fingerprint>``, holding tantivy's files and ``manifest.json`` (each file's path,
size, modification time and passage count). The manifest is written last, so a directory without
one is an interrupted build and is built again. An index is built in a temporary directory and
renamed into place. When a set extends an indexed set by new files (same files unchanged, plus
more), the indexed set's segments are linked into the new directory and only the new files are
read; a changed or removed file means a full build.

:func:`open_index` chooses between this index and the in-memory one (``index_backend``: ``memory``,
``tantivy``, or ``auto``: tantivy for corpora above :data:`AUTO_ONDISK_MIN_BYTES`). This module imports
tantivy only when an index is opened or built, so choosing works without it installed.
"""

from __future__ import annotations

import gc
import logging
import os
import re
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

import orjson

from mermaid_verifier.config import INDEX_BACKENDS
from mermaid_verifier.errors import ConfigError, CorpusError
from mermaid_verifier.names import disambiguator, normalise_entity, without_disambiguator
from mermaid_verifier.tools.corpus_index import (
    INDEX_FORMAT_VERSION,
    CorpusIndex,
    Passage,
    corpus_fingerprint,
    indexed_paths,
    normalise_title,
    read_corpus,
    remove_stale_versions,
)

logger = logging.getLogger(__name__)

AUTO_ONDISK_MIN_BYTES = 500_000_000  # index_backend "auto": corpora larger than this (in all) go to tantivy, on disk
TANTIVY_FORMAT_VERSION = 2  # 2: title lookups on head_key / head_name (text fields, not a numeric flag)
MANIFEST = "manifest.json"
WRITER_HEAP_BYTES = 256_000_000  # tantivy's indexing buffer, shared by its threads
WRITER_THREADS = 1  # the machines this runs on share few cores; one thread keeps the build predictable
COMMIT_EVERY = 200_000  # passages per commit: each commit flushes a segment, bounding the writer's memory
ANALYZER = "mermaid_en"
SEARCH_FIELDS = ["body"]
_ALL_TITLES = 1_000_000
_TITLE_BATCH = 256
_REGEX_META = set("\\.+*?()|[]{}^$#&-~\"'<>@")
_QUERY_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits, as tantivy's simple tokenizer splits
_MAX_WORD_BYTES = 64  # longer tokens are dropped by the analyzer (remove_long)


def require_tantivy():
    """The tantivy module, or a :class:`ConfigError` that says how to install it."""
    try:
        import tantivy
    except ImportError as exc:
        raise ConfigError(
            "the tantivy index backend needs the 'tantivy' package: pip install 'mermaid-verifier[ondisk]' "
            "(or choose MERMAID_INDEX_BACKEND=memory)"
        ) from exc
    return tantivy


def tantivy_available() -> bool:
    try:
        require_tantivy()
    except ConfigError:
        return False
    return True


def _analyzer(tantivy):
    # Like the in-memory index's tokenizer: words, lower-cased, bm25s's English stop words, Snowball stems.
    from bm25s.stopwords import STOPWORDS_EN

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(_MAX_WORD_BYTES))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.custom_stopword(list(STOPWORDS_EN)))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema(tantivy):
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("page", stored=True, tokenizer_name="raw")
    builder.add_integer_field("line", stored=True)  # -1: the passage has no line number
    builder.add_text_field("title", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("corpus", stored=True, tokenizer_name="raw")
    # what search ranks: the title and the text, as the in-memory index does ("He directed ..." needs its title)
    builder.add_text_field("body", stored=False, tokenizer_name=ANALYZER)
    # exact page lookup: normalise_title of the title and of the page id (multi-valued)
    builder.add_text_field("key", stored=False, tokenizer_name="raw", index_option="basic")
    # the same keys and their names (without disambiguator or leading article) on the first passage of each
    # run of a page only: titles_like and pages_named visit one passage per page
    builder.add_text_field("head_key", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("head_name", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("title_len", fast=True)
    return builder.build()


def sanitize_query(query: str) -> str:
    """The searchable words of a user query, lower-cased and space-separated: no character or word of it
    is query syntax (quotes, colons, brackets, +/-, ``AND``/``OR``/``NOT``), so parsing it cannot fail.
    Stop words are left out here: a query of stop words only is empty, not one that matches everything."""
    from bm25s.stopwords import STOPWORDS_EN

    words = (word.lower() for word in _QUERY_WORD.findall(query))
    return " ".join(w for w in words if w not in STOPWORDS_EN and len(w.encode()) < _MAX_WORD_BYTES)


def _regex_literal(text: str) -> str:
    return "".join("\\" + c if c in _REGEX_META else c for c in text)


def _keys(passage: Passage) -> list[str]:
    keys = [normalise_title(passage.title)]
    page_key = normalise_title(passage.page)
    if page_key != keys[0]:
        keys.append(page_key)
    return keys


def _file_entry(path: Path) -> dict:
    stat = path.stat()
    return {"path": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _same_file(entry: dict, current: dict) -> bool:
    return all(entry.get(k) == current[k] for k in ("path", "size", "mtime_ns"))


def _read_manifest(index_dir: Path) -> dict | None:
    try:
        manifest = orjson.loads((index_dir / MANIFEST).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != [INDEX_FORMAT_VERSION, TANTIVY_FORMAT_VERSION]:
        return None
    return manifest


def _manifest_paths(index_dir: Path) -> list[str] | None:
    """The corpus files a complete index was built from (None for an incomplete or unknown one)."""
    manifest = _read_manifest(index_dir)
    return None if manifest is None else sorted(f.get("path", "") for f in manifest.get("files", []))


def _write_manifest(index_dir: Path, files: list[dict]) -> None:
    manifest = {
        "format": [INDEX_FORMAT_VERSION, TANTIVY_FORMAT_VERSION],
        "files": files,
        "passages": sum(f["passages"] for f in files),
    }
    tmp = index_dir / (MANIFEST + ".tmp")
    tmp.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    os.replace(tmp, index_dir / MANIFEST)


def _copy_index_dir(source: Path, target: Path) -> None:
    """Copy an index directory, linking tantivy's segment files (never modified once written)."""
    target.mkdir(parents=True)
    for child in source.iterdir():
        if not child.is_file() or child.name.endswith(".lock"):
            continue
        if child.suffix == ".json" or child.name.startswith("."):
            shutil.copy2(child, target / child.name)  # meta.json, .managed.json, manifest.json: rewritten in place
            continue
        try:
            os.link(child, target / child.name)
        except OSError:
            shutil.copy2(child, target / child.name)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but is not ours to signal
        return True
    return True


def _temporary_name(index_dir: Path) -> Path:
    """A name beside ``index_dir`` for a build under way or an index set aside, naming this process (the name
    :func:`_remove_abandoned_builds` reads the process from)."""
    return index_dir.with_name(index_dir.name + f".tmp{os.getpid()}-{time.time_ns()}")


def _remove_abandoned_builds(cache_dir: Path) -> None:
    """Delete the temporary directories of builds whose process is gone (killed mid-build)."""
    for candidate in cache_dir.glob("tantivy-*.tmp*"):
        match = re.search(r"\.tmp(\d+)-\d+$", candidate.name)
        if candidate.is_dir() and match and not _process_alive(int(match.group(1))):
            logger.info("removing the interrupted build %s", candidate)
            shutil.rmtree(candidate, ignore_errors=True)


def _discard_build(tmp_dir: Path, attempts: int = 5) -> None:
    """Remove a build's temporary directory, retrying while a closing writer still touches it."""
    for attempt in range(attempts):
        if not tmp_dir.exists():
            return
        try:
            shutil.rmtree(tmp_dir)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if attempt == attempts - 1:
                logger.warning(
                    "could not remove the unfinished build %s (%s); a later build removes it once this process has exited",
                    tmp_dir,
                    exc,
                )
                return
            time.sleep(0.05 * (attempt + 1))


def _set_aside(index_dir: Path) -> None:
    """Move a stale or unfinished index out of the way, then remove it.

    The rename is atomic and does not depend on the directory's contents, so the rebuilt index can always take the
    name even when removing the old files fails part way (an index still open in this process, a file another
    process holds); what cannot be removed now carries a build's temporary name and goes with a later build."""
    aside = _temporary_name(index_dir)
    try:
        index_dir.rename(aside)
    except FileNotFoundError:  # another process removed it first
        return
    except OSError as exc:
        raise CorpusError(
            f"cannot move the stale tantivy index {index_dir} aside ({exc}); delete that directory and run again"
        ) from exc
    _discard_build(aside)


class TantivyCorpusIndex:
    """BM25 (tantivy) over the passages of one or more JSONL corpora, with title lookup, on disk."""

    def __init__(self, index_dir: Path, manifest: dict):
        tantivy = require_tantivy()
        self._tantivy = tantivy
        self.index_dir = Path(index_dir)
        self.manifest = manifest
        self._index = tantivy.Index.open(str(self.index_dir))
        self._index.register_tokenizer(ANALYZER, _analyzer(tantivy))
        self._schema = self._index.schema
        self._searcher = self._index.searcher()
        if self._searcher.num_docs != manifest["passages"]:
            raise ValueError(f"index holds {self._searcher.num_docs} passages, manifest says {manifest['passages']}")

    def __len__(self) -> int:
        return self._searcher.num_docs

    # ------------------------------------------------------------------------- opening and building

    @classmethod
    def open(cls, paths: list[Path], cache_dir: Path) -> TantivyCorpusIndex:
        """Open the index for these files, building it (or only its new files) when absent or stale."""
        require_tantivy()
        paths = [Path(p) for p in paths]
        for path in paths:
            if not path.is_file():
                raise CorpusError(f"corpus file not found: {path}")
        cache_dir = Path(cache_dir)
        index_dir = cache_dir / f"tantivy-{corpus_fingerprint(paths)}"
        current = [_file_entry(p.resolve()) for p in sorted(set(p.resolve() for p in paths))]
        if index_dir.is_dir():
            manifest = _read_manifest(index_dir)
            if manifest is not None and cls._matches(manifest, current):
                try:
                    return cls(index_dir, manifest)
                except (OSError, ValueError) as exc:
                    logger.warning("tantivy index at %s unreadable (%s); rebuilding", index_dir, exc)
            else:
                logger.warning(
                    "tantivy index at %s is incomplete (no manifest: an interrupted build); rebuilding", index_dir
                )
            _set_aside(index_dir)
        started = time.perf_counter()
        base = cls._base_for(cache_dir, current)
        manifest = cls._build(index_dir, current, base)
        logger.info("indexed %d passages with tantivy in %.1fs", manifest["passages"], time.perf_counter() - started)
        remove_stale_versions(cache_dir, "tantivy-*", index_dir, indexed_paths(paths), _manifest_paths)
        return cls(index_dir, manifest)

    @staticmethod
    def _matches(manifest: dict, current: list[dict]) -> bool:
        files = manifest.get("files", [])
        return len(files) == len(current) and all(_same_file(f, c) for f, c in zip(files, current))

    @staticmethod
    def _base_for(cache_dir: Path, current: list[dict]) -> tuple[Path, dict] | None:
        """The largest complete index whose files are a strict subset of ``current``, all unchanged."""
        by_path = {c["path"]: c for c in current}
        best = None
        for candidate in cache_dir.glob("tantivy-*"):
            if not candidate.is_dir() or ".tmp" in candidate.name:
                continue
            manifest = _read_manifest(candidate)
            if manifest is None:
                continue
            files = manifest.get("files", [])
            if not files or len(files) >= len(current):
                continue
            if all(f.get("path") in by_path and _same_file(f, by_path[f["path"]]) for f in files):
                if best is None or manifest["passages"] > best[1]["passages"]:
                    best = (candidate, manifest)
        return best

    @classmethod
    def _build(cls, index_dir: Path, current: list[dict], base: tuple[Path, dict] | None) -> dict:
        tantivy = require_tantivy()
        _remove_abandoned_builds(index_dir.parent)
        tmp_dir = _temporary_name(index_dir)
        try:
            if base is not None:
                _copy_index_dir(base[0], tmp_dir)
                index = tantivy.Index.open(str(tmp_dir))
                done = {f["path"]: f for f in base[1]["files"]}
                logger.info("extending the tantivy index at %s: %d file(s) already indexed", base[0], len(done))
            else:
                tmp_dir.mkdir(parents=True)
                index = tantivy.Index(_schema(tantivy), path=str(tmp_dir))
                done = {}
            index.register_tokenizer(ANALYZER, _analyzer(tantivy))
            files = []
            writer = index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=WRITER_THREADS)
            try:
                pending = 0
                for entry in current:
                    if entry["path"] in done:
                        files.append(done[entry["path"]])
                        continue
                    count = 0
                    previous_key = None
                    for passage in read_corpus(Path(entry["path"])):
                        keys = _keys(passage)
                        writer.add_document(cls._document(tantivy, passage, keys, head=keys[0] != previous_key))
                        previous_key = keys[0]
                        count += 1
                        pending += 1
                        if pending >= COMMIT_EVERY:
                            writer.commit()
                            pending = 0
                    files.append({**entry, "passages": count})
                if not sum(f["passages"] for f in files):
                    raise CorpusError("the corpus holds no passages")
                writer.commit()
                writer.wait_merging_threads()
            except BaseException:
                writer.rollback()
                raise
            del writer, index
            _write_manifest(tmp_dir, files)  # last: a directory without a manifest is an interrupted build
            try:
                tmp_dir.rename(index_dir)
            except OSError:  # another process built it first; its index is as good as ours
                _discard_build(tmp_dir)
            manifest = _read_manifest(index_dir)
            if manifest is None:
                raise CorpusError(f"the tantivy index at {index_dir} has no manifest after building it")
            return manifest
        except BaseException:
            # the writer and the index hold files and background threads in the directory: drop them first, or a
            # thread of theirs can write into it while it is being removed
            writer = index = None  # noqa: F841 (releases them)
            gc.collect()
            _discard_build(tmp_dir)
            raise

    @staticmethod
    def _document(tantivy, passage: Passage, keys: list[str], head: bool):
        doc = tantivy.Document()
        doc.add_text("id", passage.id)
        doc.add_text("page", passage.page)
        doc.add_integer("line", -1 if passage.line is None else int(passage.line))
        doc.add_text("title", passage.title)
        doc.add_text("text", passage.text)
        doc.add_text("corpus", passage.corpus)
        doc.add_text("body", f"{passage.title} . {passage.text}")
        for key in keys:
            doc.add_text("key", key)
            if head:
                doc.add_text("head_key", key)
                doc.add_text("head_name", normalise_entity(without_disambiguator(key)))
        doc.add_unsigned("title_len", len(passage.title))
        return doc

    # ------------------------------------------------------------------------- reading

    def _passage(self, address) -> Passage:
        doc = self._searcher.doc(address)
        line = doc.get_first("line")
        return Passage(
            id=doc.get_first("id"),
            page=doc.get_first("page"),
            line=None if line is None or line < 0 else int(line),
            title=doc.get_first("title"),
            text=doc.get_first("text"),
            corpus=doc.get_first("corpus"),
        )

    def _title(self, address) -> str:
        return self._searcher.doc(address).get_first("title")

    def search(self, query: str, k: int = 5) -> list[tuple[Passage, float]]:
        """The ``k`` best passages for ``query`` with their BM25 scores (score > 0 only)."""
        words = sanitize_query(query)
        if not words or k <= 0:
            return []
        try:
            parsed = self._index.parse_query(words, SEARCH_FIELDS)
        except ValueError:  # cannot happen for plain words; never let a query take the server down
            parsed, _errors = self._index.parse_query_lenient(words, SEARCH_FIELDS)
        hits = self._searcher.search(parsed, limit=k, count=False).hits
        return [(self._passage(address), float(score)) for score, address in hits if score > 0]

    def _term(self, field: str, value: str):
        return self._tantivy.Query.term_query(self._schema, field, value, index_option="basic")

    def get_page(self, title: str) -> list[Passage]:
        """All passages of the page whose title (or FEVER page id) matches, in line order."""
        key = normalise_title(title)
        if not key:
            return []
        query = self._term("key", key)
        count = self._searcher.search(query, limit=1, count=True).count
        if not count:
            return []
        hits = self._searcher.search(query, limit=count, count=False).hits
        return sorted((self._passage(address) for _, address in hits), key=lambda p: (p.page, p.line or 0))

    def _titles(self, heads, limit: int) -> list[str]:
        """Distinct titles of the page-head passages query ``heads`` matches: the ``limit`` shortest (then
        alphabetical), and every title as short as the last of them."""
        found: dict[str, int] = {}
        offset = 0
        while True:
            hits = self._searcher.search(
                heads,
                limit=_TITLE_BATCH,
                count=False,
                order_by_field="title_len",
                offset=offset,
                order=self._tantivy.Order.Asc,
            ).hits
            for _, address in hits:
                title = self._title(address)
                if len(found) >= limit and len(title) > max(map(len, found)):
                    return sorted(found, key=lambda t: (len(t), t))
                found.setdefault(title, len(title))
            if len(hits) < _TITLE_BATCH:
                return sorted(found, key=lambda t: (len(t), t))
            offset += len(hits)

    def titles_like(self, title: str, limit: int = 5) -> list[str]:
        """Titles for 'did you mean' answers, ranked as :meth:`CorpusIndex.titles_like` ranks them: pages
        of the same name, then titles starting with the query, then titles containing it."""
        key = normalise_title(title)
        if not key:
            return []
        ranked = {shown: (0, len(shown)) for shown in self.pages_named(title)}
        regex = self._tantivy.Query.regex_query
        literal = _regex_literal(key)
        for rank, pattern in ((1, f"{literal}.*"), (2, f".*{literal}.*")):
            # titles found at a better rank come back here too: ask for enough to fill the rest
            for shown in self._titles(regex(self._schema, "head_key", pattern), limit + len(ranked)):
                ranked[shown] = min(ranked.get(shown, (rank, len(shown))), (rank, len(shown)))
        return sorted(ranked, key=lambda t: (*ranked[t], t))[:limit]

    def pages_named(self, title: str) -> list[str]:
        """Titles of the pages whose name (title without disambiguator and leading article) is the name
        asked for; none for a title with a disambiguator. See :meth:`CorpusIndex.pages_named`."""
        key = normalise_title(title)
        if disambiguator(key):
            return []
        name = normalise_entity(key)
        if not name:
            return []
        return self._titles(self._term("head_name", name), limit=_ALL_TITLES)


# ----------------------------------------------------------------------------- choosing the backend


def choose_index_backend(paths: Iterable[Path], backend: str = "auto") -> str:
    """``"memory"`` or ``"tantivy"`` for these files: ``backend`` when it names one, else (``"auto"``)
    tantivy for corpora above :data:`AUTO_ONDISK_MIN_BYTES` when it is installed, memory otherwise."""
    if backend not in INDEX_BACKENDS:
        raise ConfigError(f"unknown index backend {backend!r}; choose from {', '.join(INDEX_BACKENDS)}")
    if backend != "auto":
        return backend
    total = sum(Path(p).stat().st_size for p in paths if Path(p).is_file())
    if total <= AUTO_ONDISK_MIN_BYTES:
        return "memory"
    if not tantivy_available():
        logger.warning(
            "the corpus is %.1f GB: the on-disk index would suit it better than memory "
            "(pip install 'mermaid-verifier[ondisk]')",
            total / 1e9,
        )
        return "memory"
    return "tantivy"


def open_index(paths: list[Path], cache_dir: Path, backend: str = "auto") -> CorpusIndex | TantivyCorpusIndex:
    """The corpus index for these files with the chosen backend (:func:`choose_index_backend`)."""
    if choose_index_backend(paths, backend) == "tantivy":
        return TantivyCorpusIndex.open(paths, cache_dir)
    return CorpusIndex.open(paths, cache_dir)
