"""``local-corpus``: an MCP stdio server that searches local corpora: JSONL files with BM25, Kiwix ZIM files
through their own full-text and title indexes (:mod:`mermaid_verifier.tools.zim_corpus`).

Two tools, both returning structured results (``structuredContent`` plus the same JSON as text):

* ``search(query, k)``      -> the ``k`` best passages for a keyword query
* ``get_page(title, ...)``  -> every passage of one page, in line order

The corpus index is opened once per server (:func:`~mermaid_verifier.tools.corpora.open_corpus_index`), in a worker thread started when the server starts, and
shared by every call: in memory (:mod:`mermaid_verifier.tools.corpus_index`, bm25s) or on disk
(:mod:`mermaid_verifier.tools.tantivy_index`, tantivy), by ``--index-backend`` (``auto`` chooses by
corpus size). Run it as::

    mermaid-verifier-corpus-server --corpus wiki_sentences.jsonl [--corpus more.jsonl] [--index-backend auto]
    mermaid-verifier-corpus-server --corpus wikipedia_en_all_nopic.zim
    python -m mermaid_verifier.tools.servers.local_corpus_server --corpus wiki_sentences.jsonl

stdout is the JSON-RPC channel: nothing in this module prints; logs go to stderr.
"""

import argparse
import logging
import os
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from mermaid_verifier.config import INDEX_BACKENDS
from mermaid_verifier.errors import CORPUS_UNUSABLE, UsageError
from mermaid_verifier.process_end import exit_without_teardown
from mermaid_verifier.source_registry import BY_NAME
from mermaid_verifier.tools.corpora import MergedCorpus, open_corpus_index
from mermaid_verifier.tools.corpus_index import CorpusIndex, Passage
from mermaid_verifier.tools.passage_record import PassageRecord, ToolResult
from mermaid_verifier.tools.servers.server_logging import add_log_level_option, configure_logging
from mermaid_verifier.tools.servers.server_tools import tool
from mermaid_verifier.tools.tantivy_index import TantivyCorpusIndex
from mermaid_verifier.tools.zim_corpus import ZimCorpus

logger = logging.getLogger("mermaid_verifier.tools.servers.local_corpus_server")  # also under -m

SOURCE = BY_NAME["local"]  # its name and console script: mermaid_verifier.source_registry
SERVER_NAME = SOURCE.server
PROG = SOURCE.script
MAX_K = 50
MAX_PAGE_PASSAGES = 200
MAX_QUERY_CHARS = 1000
SUGGESTION_LIMIT = 5

INSTRUCTIONS = (
    "Searches a local, offline text corpus (Wikipedia sentences, scientific abstracts or other "
    "documents) with BM25 keyword ranking. Use `search` with a few distinctive keywords to find "
    "evidence passages, then `get_page` with a passage's title to read the whole page in order."
)


AnyCorpus = CorpusIndex | TantivyCorpusIndex | ZimCorpus | MergedCorpus

# ----------------------------------------------------------------------------- result models


class PagePassage(PassageRecord):
    """One passage of the corpus."""

    title: str = Field(description="Human-readable page title; pass it to get_page.")
    url: str | None = Field(default=None, description="Where the page can be read, when known (a ZIM's article).")

    @classmethod
    def of(cls, passage: Passage) -> "PagePassage":
        return cls(**passage.to_json())


class SearchHit(PagePassage):
    """A passage found by search, with its BM25 score (higher is better)."""

    score: float = Field(description="BM25 score; only comparable within one query.")

    @classmethod
    def scored(cls, passage: Passage, score: float) -> "SearchHit":
        return cls(**passage.to_json(), score=round(score, 4))


class SearchResult(ToolResult):
    query: str = Field(description="The query as searched.")
    passages: list[SearchHit] = Field(description="Best passages first; empty when nothing matched.")
    message: str | None = Field(default=None, description="Advice when nothing matched.")


class PageResult(ToolResult):
    title: str = Field(description="The title as asked for.")
    passages: list[PagePassage] = Field(description="The page's passages in line order; empty if unknown.")
    total_passages: int = Field(description="How many passages the page has in all.")
    truncated: bool = Field(description="True when only the first max_passages are returned.")
    suggestions: list[str] = Field(default_factory=list, description="Similar titles when the title is unknown.")
    same_name: list[str] = Field(
        default_factory=list,
        description="When the title is unknown: the pages of that name with a disambiguator in brackets.",
    )
    message: str | None = Field(default=None, description="What to do next, when there is something to say.")


# ----------------------------------------------------------------------------- pure helpers


def search_result(index: AnyCorpus, query: str, k: int) -> SearchResult:
    hits = [SearchHit.scored(p, s) for p, s in index.search(query, k)]
    message = None
    if not hits:
        message = (
            f"Nothing in the corpus matched {query!r}. Try fewer or different keywords "
            "(names, distinctive nouns), or another spelling."
        )
        problem = getattr(index, "problem", None)  # a ZIM without a full-text index is searched by title only
        if problem:
            message += f" ({problem}.)"
    return SearchResult(query=query, passages=hits, message=message)


def similar_titles(index: AnyCorpus, title: str, limit: int = SUGGESTION_LIMIT) -> list[str]:
    """Titles containing ``title``; failing that, the titles of the best BM25 hits for it."""
    found = index.titles_like(title, limit=limit)
    if not found:
        for passage, _ in index.search(title, k=4 * limit):
            if passage.title not in found:
                found.append(passage.title)
            if len(found) >= limit:
                break
    return found


def page_result(index: AnyCorpus, title: str, max_passages: int) -> PageResult:
    passages = index.get_page(title)
    if not passages:
        suggestions = similar_titles(index, title)
        same_name = index.pages_named(title)
        if same_name:
            listed = "; ".join(repr(t) for t in same_name)
            message = f"No page titled {title!r}, but pages of that name: {listed}. Call get_page with the one the claim means."
        elif suggestions:
            listed = "; ".join(repr(t) for t in suggestions)
            message = f"No page titled {title!r}. Similar titles: {listed}. Call get_page with one of them."
        else:
            message = f"No page titled {title!r} and no similar titles. Use search to find the right page."
        return PageResult(
            title=title,
            passages=[],
            total_passages=0,
            truncated=False,
            suggestions=suggestions,
            same_name=same_name,
            message=message,
        )
    shown = passages[:max_passages]
    truncated = len(passages) > len(shown)
    more: str | None = None
    if truncated:
        more = (
            f"Showing the first {len(shown)} of {len(passages)} passages; "
            f"call again with a larger max_passages (up to {MAX_PAGE_PASSAGES}) to see more."
        )
    return PageResult(
        title=title,
        passages=[PagePassage.of(p) for p in shown],
        total_passages=len(passages),
        truncated=truncated,
        message=more,
    )


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


# ----------------------------------------------------------------------------- the shared index


class IndexLoader:
    """Opens the corpus index once, in a worker thread, and hands it to every caller.

    The build runs in the server's task group (started by the lifespan), never in a caller's own
    scope, so a caller that times out stops waiting without abandoning or restarting the build.
    """

    def __init__(self, corpus_paths: list[Path], cache_dir: Path, index_backend: str = "auto"):
        self.corpus_paths = [Path(p) for p in corpus_paths]
        self.cache_dir = Path(cache_dir)
        self.index_backend = index_backend
        self.index: AnyCorpus | None = None
        self.error: str | None = None
        self.started_at: float | None = None
        self._lock = anyio.Lock()
        self._ready: anyio.Event | None = None
        self._task_group: TaskGroup | None = None

    async def start(self, task_group: TaskGroup | None = None) -> None:
        """Start opening the index (at most once) in ``task_group`` or, without one, right here."""
        async with self._lock:  # concurrent first calls must not build twice
            if task_group is not None:
                self._task_group = task_group
            if self._ready is not None:
                return
            self._ready = anyio.Event()
            self.started_at = time.monotonic()
            if self._task_group is not None:
                self._task_group.start_soon(self._open, name="open corpus index")
                return
        await self._open()  # no server task group (called outside server.run): open inline

    async def get(self) -> AnyCorpus:
        while True:
            await self.start()
            ready = self._ready
            if ready is not None:
                await ready.wait()
            if self.index is not None:
                return self.index
            if self.error is not None:
                raise ToolError(self.error)
            # the build was cancelled before it finished (its owner went away): start it again

    def detach(self) -> None:
        """The server's task group is closing: later builds (if any) run in their caller."""
        self._task_group = None

    async def _open(self) -> None:
        assert self._ready is not None
        try:
            index = await anyio.to_thread.run_sync(
                open_corpus_index, self.corpus_paths, self.cache_dir, self.index_backend, abandon_on_cancel=True
            )
            self.index = index
            logger.info(
                "corpus index ready (%s): %d passages (%.1fs)",
                type(index).__name__,
                len(index),
                time.monotonic() - (self.started_at or 0),
            )
        except UsageError as exc:  # a corpus that cannot be read, a backend that is not installed
            self.error = f"{CORPUS_UNUSABLE} {one_line(exc)}"
            logger.error("%s", self.error)
        except anyio.get_cancelled_exc_class():
            ready, self._ready = self._ready, None  # cancelled mid-build: a later start tries again
            if ready is not None:
                ready.set()
            raise
        except Exception as exc:  # an unexpected failure still becomes a readable tool error
            self.error = f"cannot open the corpus index: {one_line(exc)}"
            logger.exception("cannot open the corpus index")
        if self._ready is not None:
            self._ready.set()


# ----------------------------------------------------------------------------- the server


def create_server(
    corpus_paths: list[Path],
    cache_dir: Path,
    *,
    timeout_s: float = 10.0,
    index_timeout_s: float = 300.0,
    index_backend: str = "auto",
) -> FastMCP:
    """A FastMCP server named ``local-corpus`` over ``corpus_paths`` (JSONL files).

    ``timeout_s`` bounds each search or page lookup; ``index_timeout_s`` bounds how long a call
    waits for the index to finish opening (a first build of a large corpus takes a while).
    ``index_backend`` is ``memory``, ``tantivy`` (on disk) or ``auto`` (by corpus size).
    """
    loader = IndexLoader(corpus_paths, cache_dir, index_backend)
    query_lock = threading.Lock()  # PyStemmer stemmers must not be used by two threads at once

    @asynccontextmanager
    async def lifespan(_: FastMCP) -> AsyncIterator[IndexLoader]:
        async with anyio.create_task_group() as task_group:
            await loader.start(task_group)  # open the index while the client initialises
            try:
                yield loader
            finally:
                loader.detach()
                task_group.cancel_scope.cancel()

    server = FastMCP(SERVER_NAME, instructions=INSTRUCTIONS, lifespan=lifespan, log_level="WARNING")

    async def ready_index(what: str) -> AnyCorpus:
        try:
            with anyio.fail_after(index_timeout_s):
                return await loader.get()
        except TimeoutError:
            raise ToolError(
                f"{what} timed out after {index_timeout_s:g}s waiting for the corpus index "
                "to be built; try again shortly"
            ) from None

    async def run_blocking(what: str, func, *args):
        def locked():
            with query_lock:
                return func(*args)

        try:
            with anyio.fail_after(timeout_s):
                return await anyio.to_thread.run_sync(locked, abandon_on_cancel=True)
        except TimeoutError:
            logger.warning("%s timed out after %gs", what, timeout_s)
            raise ToolError(f"{what} timed out after {timeout_s:g}s") from None

    @tool(server)
    async def search(
        query: Annotated[
            str,
            Field(
                description="Keywords to look for: the names, titles and distinctive words of the "
                "claim. Word order does not matter.",
                max_length=MAX_QUERY_CHARS,
            ),
        ],
        k: Annotated[int, Field(ge=1, le=MAX_K, description=f"How many passages to return (1-{MAX_K}).")] = 5,
    ) -> SearchResult:
        """Search the local corpus for passages relevant to a claim or question (BM25 keyword ranking).

        Returns up to k passages, best first, each with its page title, line number, text and score.
        An empty list with a message means nothing matched: try other keywords. To read the whole
        page a passage comes from, call get_page with its title.
        """
        query = " ".join(query.split())
        if not query:
            raise ToolError("the query is empty: pass a few keywords, e.g. the names and facts the claim mentions")
        index = await ready_index("search")
        return await run_blocking("search", search_result, index, query, k)

    @tool(server)
    async def get_page(
        title: Annotated[
            str,
            Field(
                description="Page title exactly as a search result shows it.",
                max_length=MAX_QUERY_CHARS,
            ),
        ],
        max_passages: Annotated[
            int,
            Field(
                ge=1, le=MAX_PAGE_PASSAGES, description=f"Return at most this many passages (1-{MAX_PAGE_PASSAGES})."
            ),
        ] = 20,
    ) -> PageResult:
        """Read one page of the local corpus: all its passages in line order.

        Use it after search to see a passage in context. If the title is unknown the result has no
        passages and lists similar titles (suggestions) to try instead; if the page is longer than
        max_passages, truncated is true.
        """
        title = " ".join(title.split())
        if not title:
            raise ToolError("the title is empty: pass a page title from a search result")
        index = await ready_index("get_page")
        return await run_blocking("get_page", page_result, index, title, max_passages)

    return server


# ----------------------------------------------------------------------------- command line


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("mermaid-verifier")) / "corpus-index"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="MCP stdio server 'local-corpus': search over local JSONL corpora (BM25) and Kiwix ZIM files.",
    )
    parser.add_argument(
        "--corpus",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help=f"JSONL corpus or Kiwix ZIM file (repeatable). Default: $MERMAID_CORPUS, several paths separated by {os.pathsep!r}.",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="Where the BM25 index is cached. Default: $MERMAID_CACHE_DIR or "
        "<user cache dir>/mermaid-verifier/corpus-index.",
    )
    parser.add_argument(
        "--index-backend",
        default=None,
        type=str.lower,
        choices=list(INDEX_BACKENDS),
        help="memory (bm25s), tantivy (on disk; the ondisk extra) or auto (tantivy for large corpora). "
        "Default: $MERMAID_INDEX_BACKEND or auto.",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="Seconds allowed per tool call.")
    add_log_level_option(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    configure_logging(args.log_level)
    logging.getLogger("bm25s").setLevel(args.log_level)  # bm25s sets its own logger to DEBUG
    corpus_paths: list[Path] = list(args.corpus)
    if not corpus_paths:
        env = os.environ.get("MERMAID_CORPUS", "")
        corpus_paths = [Path(p) for p in env.split(os.pathsep) if p.strip()]
    for path in corpus_paths:
        if not path.is_file():
            _fail(f"corpus file not found: {path}")

    cache_dir = args.cache_dir
    if cache_dir is None:
        env_cache = os.environ.get("MERMAID_CACHE_DIR", "").strip()
        cache_dir = Path(env_cache) if env_cache else default_cache_dir()
    if not corpus_paths:  # as for `verify`: the default corpus (the default-corpus extra), converted once
        from mermaid_verifier.tools.corpora import default_corpus

        try:
            corpus_paths = [default_corpus(cache_dir)]
        except UsageError as exc:
            _fail(str(exc))

    index_backend = args.index_backend or os.environ.get("MERMAID_INDEX_BACKEND", "").strip().lower() or "auto"
    if index_backend not in INDEX_BACKENDS:
        _fail(f"MERMAID_INDEX_BACKEND must be one of {', '.join(INDEX_BACKENDS)}, got {index_backend!r}")
    if index_backend == "tantivy":
        from mermaid_verifier.tools.tantivy_index import tantivy_available

        if not tantivy_available():
            _fail("--index-backend tantivy needs the 'tantivy' package: pip install 'mermaid-verifier[ondisk]'")

    server = create_server(corpus_paths, cache_dir, timeout_s=args.timeout, index_backend=index_backend)
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    exit_without_teardown(0)  # the index is freed by the process's end, not object by object


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    raise SystemExit(2)


if __name__ == "__main__":
    main()
