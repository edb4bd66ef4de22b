"""``wikipedia``: an MCP stdio server that reads the live English Wikipedia (MediaWiki API).

Three tools, all returning structured results:

* ``search_titles(query, k)``                    -> page titles matching a query (and a spelling suggestion)
* ``page_summary(title)``                        -> the page's introduction as one evidence passage
* ``page_sentences(title, max_sentences, ...)``  -> the page split into sentences, one passage each,
  numbered like FEVER lines (0, 1, 2, ...)

A disambiguation page is a normal result listing the pages the title may mean; a missing page is a
normal result with similar titles to try. A network or API failure is a ``ToolError`` of one line.

How the ``wikipedia`` package (1.4.0) is made safe to use here
    It calls ``requests.get(API_URL, params=...)`` with no timeout, does not look at the HTTP
    status, speaks plain ``http://`` and memoises ``search``/``summary`` in-process for ever.
    Rather than re-implement its page logic (redirects, disambiguation detection and option
    parsing, missing pages), this module replaces the one name it reaches the network through:
    ``wikipedia.wikipedia.requests`` becomes a shim whose ``get`` sends the request through the
    calling server's :class:`~mermaid_verifier.tools.servers.source_http.SourceSession` -- https URL,
    timeout, rate limit, retries, status check, JSON check. The patch touches only that module
    attribute (the real ``requests`` module is untouched), is idempotent, and picks the session
    from a thread-local set around each call, so several servers in one process keep their own
    settings; code that uses the package outside a call gets a default session, still with a
    timeout. Memoisation is bypassed (``wikipedia.search.fn``; ``summary()`` is not used):
    answers are cached on disk by :class:`ResponseCache` instead, for 7 days.

Run it as::

    mermaid-verifier-wikipedia-server [--lang en] [--cache-dir DIR] [--timeout 8] [--log-level INFO]
    python -m mermaid_verifier.tools.servers.wikipedia_server

stdout is the JSON-RPC channel: nothing in this module prints; logs go to stderr.
"""

import logging
import re
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated
from urllib.parse import quote

import wikipedia
import wikipedia.wikipedia as wikipedia_module
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from mermaid_verifier.source_registry import BY_NAME
from mermaid_verifier.tools.passage_record import ToolResult
from mermaid_verifier.tools.servers.server_tools import tool
from mermaid_verifier.tools.servers.source_cache import ResponseCache, cached_call
from mermaid_verifier.tools.servers.source_http import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    RateLimiter,
    RetryPolicy,
    SourceSession,
)
from mermaid_verifier.tools.servers.source_passages import EvidencePassage, collapse
from mermaid_verifier.tools.servers.source_server import argument_parser, serve_command_line, source_server
from mermaid_verifier.tools.servers.wikipedia_parsing import (
    disambiguation_options,
    mediawiki_error_detail,
    parsed_page_html,
    split_sentences,
    validate_mediawiki,
)

logger = logging.getLogger("mermaid_verifier.tools.servers.wikipedia_server")  # also under -m

SOURCE = BY_NAME[
    "wikipedia"
]  # its name and console script: mermaid_verifier.source_registry (the API host follows --lang)
SERVER_NAME = SOURCE.server
PROG = SOURCE.script
LABEL = "Wikipedia"
CORPUS = "wikipedia"
API_URL_FORMAT = "https://{lang}.wikipedia.org/w/api.php"
MAX_K = 20
MAX_SENTENCES = 200
MAX_QUERY_CHARS = 300  # MediaWiki's limit for srsearch
MAX_TITLE_CHARS = 255
MAX_OPTIONS = 40
SUGGESTION_LIMIT = 5
DEFAULT_MIN_INTERVAL_S = 0.1  # at most 10 requests/s: polite for an API without a hard limit
# MediaWiki titles cannot contain these
_INVALID_TITLE_CHARS = re.compile(r"[#<>\[\]|{}\x00-\x1f\x7f]")

INSTRUCTIONS = (
    "Reads the live English Wikipedia. Use `search_titles` to find page titles for a topic, then "
    "`page_summary` for a page's introduction or `page_sentences` for its text sentence by sentence "
    "(each sentence is an evidence passage with a line number). A title that is ambiguous returns "
    "the pages it may mean; pick one and call again."
)


# ----------------------------------------------------------------------------- result models


class TitleSearchResult(ToolResult):
    query: str = Field(description="The query as searched.")
    titles: list[str] = Field(description="Matching page titles, best first; empty when nothing matched.")
    suggestion: str | None = Field(default=None, description="Wikipedia's spelling suggestion for the query, if any.")
    message: str | None = Field(default=None, description="Advice when nothing matched.")


class WikiPageResult(ToolResult):
    title: str = Field(description="The title as asked for.")
    found: bool = Field(description="True when the title is an article (not missing, not a disambiguation page).")
    resolved_title: str | None = Field(default=None, description="The article's title after redirects.")
    url: str | None = Field(default=None, description="The article's web address.")
    passages: list[EvidencePassage] = Field(description="Evidence passages, in page order; empty if not found.")
    total_passages: int = Field(description="How many passages the page has in all.")
    truncated: bool = Field(description="True when more passages follow the ones returned.")
    disambiguation: bool = Field(default=False, description="True when the title is a disambiguation page.")
    options: list[str] = Field(default_factory=list, description="Pages a disambiguation title may mean.")
    suggestions: list[str] = Field(default_factory=list, description="Similar titles when the title is missing.")
    message: str | None = Field(default=None, description="What to do next, when there is something to say.")


# ----------------------------------------------------------------------------- pure helpers


def page_key(title: str) -> str:
    """Wikipedia's page name for a title, as in its URLs: 'Stanley Kubrick' -> 'Stanley_Kubrick'."""
    return title.replace(" ", "_")


def page_url(title: str, lang: str = "en") -> str:
    return f"https://{lang}.wikipedia.org/wiki/{quote(page_key(title), safe='_(),:!$*;@~')}"


def https_url(url: str | None) -> str | None:
    """A page address as https: older MediaWiki answers give ``fullurl`` as http:// (or //host/...)."""
    if not url:
        return url
    if url.startswith("//"):
        return "https:" + url
    return re.sub(r"^http://", "https://", url)


def check_title(title: str) -> str:
    title = collapse(title.replace("_", " "))
    if not title:
        raise ToolError("the title is empty: pass a page title, e.g. one from search_titles")
    bad = _INVALID_TITLE_CHARS.search(title)
    if bad:
        raise ToolError(f"{title!r} is not a valid Wikipedia title: it contains {bad.group()!r}")
    if len(title) > MAX_TITLE_CHARS:
        raise ToolError(f"the title is too long ({len(title)} characters; Wikipedia allows {MAX_TITLE_CHARS})")
    return title


def _dedupe(items, limit: int) -> list[str]:
    out: list[str] = []
    for item in items:
        item = collapse(item)
        if item and item not in out:
            out.append(item)
        if len(out) >= limit:
            break
    return out


def search_titles_result(query: str, record: dict) -> TitleSearchResult:
    titles, suggestion = record["titles"], record.get("suggestion")
    message = None
    if not titles:
        message = f"No Wikipedia page matched {query!r}."
        message += (
            f" Wikipedia suggests searching for {suggestion!r}."
            if suggestion
            else " Try fewer or different keywords, or another spelling."
        )
    return TitleSearchResult(query=query, titles=titles, suggestion=suggestion, message=message)


def _not_an_article(title: str, record: dict, tool: str) -> WikiPageResult | None:
    if record["kind"] == "disambiguation":
        options = record["options"]
        listed = "; ".join(repr(o) for o in options[:10]) + ("; ..." if len(options) > 10 else "")
        message = (
            (
                f"{record['title']!r} is a disambiguation page: it may refer to {listed}. "
                f"Call {tool} again with one of the options."
            )
            if options
            else (f"{record['title']!r} is a disambiguation page. Use search_titles to find the page you mean.")
        )
        return WikiPageResult(
            title=title,
            found=False,
            resolved_title=record["title"],
            url=record.get("url"),
            passages=[],
            total_passages=0,
            truncated=False,
            disambiguation=True,
            options=options,
            message=message,
        )
    if record["kind"] == "missing":
        suggestions = record["suggestions"]
        if suggestions:
            listed = "; ".join(repr(t) for t in suggestions)
            message = f"No Wikipedia page titled {title!r}. Similar titles: {listed}. Call {tool} with one of them."
        else:
            message = (
                f"No Wikipedia page titled {title!r} and no similar titles. Use search_titles to find the right page."
            )
        return WikiPageResult(
            title=title,
            found=False,
            passages=[],
            total_passages=0,
            truncated=False,
            suggestions=suggestions,
            message=message,
        )
    return None


def summary_result(title: str, record: dict) -> WikiPageResult:
    other = _not_an_article(title, record, "page_summary")
    if other is not None:
        return other
    resolved, url = record["title"], record["url"]
    text = collapse(record["text"])
    passages = []
    if text:
        passages.append(
            EvidencePassage(
                id=f"{CORPUS}:{page_key(resolved)}",
                page=page_key(resolved),
                line=None,
                title=resolved,
                text=text,
                corpus=CORPUS,
                url=url,
            )
        )
    message = None if text else f"{resolved!r} has no introduction; try page_sentences."
    return WikiPageResult(
        title=title,
        found=True,
        resolved_title=resolved,
        url=url,
        passages=passages,
        total_passages=len(passages),
        truncated=False,
        message=message,
    )


def sentences_result(title: str, record: dict, max_sentences: int, start_line: int = 0) -> WikiPageResult:
    other = _not_an_article(title, record, "page_sentences")
    if other is not None:
        return other
    resolved, url = record["title"], record["url"]
    sentences = split_sentences(record["text"])
    shown = sentences[start_line : start_line + max_sentences]
    passages = [
        EvidencePassage(
            id=f"{CORPUS}:{page_key(resolved)}:{line}",
            page=page_key(resolved),
            line=line,
            title=resolved,
            text=text,
            corpus=CORPUS,
            url=url,
        )
        for line, text in enumerate(shown, start=start_line)
    ]
    end = start_line + len(shown)
    truncated = end < len(sentences)
    message = None
    if not sentences:
        message = f"{resolved!r} has no text."
    elif not shown:
        message = f"{resolved!r} has {len(sentences)} sentences; start_line {start_line} is past the end."
    elif truncated or start_line:
        message = f"Showing sentences {start_line}-{end - 1} of {len(sentences)}"
        message += f"; call again with start_line={end} to read on." if truncated else "."
    return WikiPageResult(
        title=title,
        found=True,
        resolved_title=resolved,
        url=url,
        passages=passages,
        total_passages=len(sentences),
        truncated=truncated,
        message=message,
    )


# ----------------------------------------------------------------------------- the HTTP route


class _Active(threading.local):
    client: "WikipediaClient | None" = None
    parsed_html: str | None = None  # the last page HTML (rvparse) the package asked for in this thread


_ACTIVE = _Active()
_FALLBACK: "WikipediaClient | None" = None
_FALLBACK_LOCK = threading.Lock()


class _RequestsShim:
    """Stands in for the ``requests`` module inside ``wikipedia.wikipedia``, which calls only
    ``requests.get(API_URL, params=..., headers=...)``: the request goes through the session of the
    client active in this thread (or a default one), with our URL, timeout, retries and checks."""

    def get(self, url, params=None, headers=None, **_ignored):
        client = _ACTIVE.client or _fallback_client()
        response = client.session.get(client.api_url, params=params)
        if params and "rvparse" in params:  # the package reads disambiguation options from this HTML
            _ACTIVE.parsed_html = parsed_page_html(response.json())
        return response


def _fallback_client() -> "WikipediaClient":
    global _FALLBACK
    with _FALLBACK_LOCK:
        if _FALLBACK is None:
            _FALLBACK = WikipediaClient(cache=None)
        return _FALLBACK


def install_requests_shim() -> None:
    """Route the ``wikipedia`` package's HTTP through :class:`_RequestsShim` (idempotent)."""
    if not isinstance(wikipedia_module.requests, _RequestsShim):
        wikipedia_module.requests = _RequestsShim()
    # the package parses disambiguation pages with BeautifulSoup(html) and no parser named
    warnings.filterwarnings("ignore", message="No parser was explicitly specified", module=r"wikipedia\b")


class WikipediaClient:
    """Blocking Wikipedia look-ups through the ``wikipedia`` package, cached; JSON-able answers."""

    def __init__(
        self,
        *,
        lang: str = "en",
        cache: ResponseCache | None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        min_interval_s: float = DEFAULT_MIN_INTERVAL_S,
        user_agent: str | None = None,
    ):
        install_requests_shim()
        self.lang = lang
        self.api_url = API_URL_FORMAT.format(lang=lang)
        self.cache = cache
        self.source = f"wikipedia-{lang}"
        self.session = SourceSession(
            LABEL,
            timeout_s=timeout_s,
            retry=retry,
            limiter=RateLimiter(min_interval_s),
            validate=validate_mediawiki,
            error_detail=mediawiki_error_detail,
            user_agent=user_agent,
        )

    @contextmanager
    def _active(self) -> Iterator[None]:
        previous = _ACTIVE.client
        _ACTIVE.client = self
        try:
            yield
        finally:
            _ACTIVE.client = previous

    def search_titles(self, query: str, k: int) -> dict:
        def fetch():
            with self._active():
                titles, suggestion = wikipedia.search.fn(query, results=k, suggestion=True)
            return {"titles": _dedupe(titles, k), "suggestion": suggestion or None}

        return cached_call(self.cache, self.source, "search", {"query": query.casefold(), "k": k}, fetch)

    def summary(self, title: str) -> dict:
        return cached_call(self.cache, self.source, "summary", {"title": title}, lambda: self._page(title, "summary"))

    def content(self, title: str) -> dict:
        return cached_call(self.cache, self.source, "content", {"title": title}, lambda: self._page(title, "content"))

    def _page(self, title: str, part: str) -> dict:
        with self._active():
            _ACTIVE.parsed_html = None
            try:
                page = wikipedia.page(title, auto_suggest=False, redirect=True)
            except wikipedia.DisambiguationError as exc:
                html = _ACTIVE.parsed_html
                # the package reads each option's link text; the link targets are the page titles
                if html is None:
                    logger.warning("no page HTML seen for %r; its options are the package's link texts", exc.title)
                options = disambiguation_options(html) if html is not None else exc.options
                return {
                    "kind": "disambiguation",
                    "title": exc.title,
                    "url": page_url(exc.title, self.lang),
                    "options": _dedupe(options, MAX_OPTIONS),
                }
            except wikipedia.PageError:
                titles, _ = wikipedia.search.fn(title, results=SUGGESTION_LIMIT, suggestion=True)
                return {"kind": "missing", "title": title, "suggestions": _dedupe(titles, SUGGESTION_LIMIT)}
            text = page.summary if part == "summary" else page.content
        return {
            "kind": "page",
            "title": page.title,
            "url": https_url(page.url) or page_url(page.title, self.lang),
            "text": text or "",
        }


# ----------------------------------------------------------------------------- the server


def create_server(
    cache: ResponseCache | None,
    *,
    lang: str = "en",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    retry: RetryPolicy | None = None,
    min_interval_s: float = DEFAULT_MIN_INTERVAL_S,
) -> FastMCP:
    """A FastMCP server named ``wikipedia``. ``timeout_s`` bounds each HTTP request,
    ``call_timeout_s`` each tool call (retries included); ``cache`` None disables caching."""
    client = WikipediaClient(lang=lang, cache=cache, timeout_s=timeout_s, retry=retry, min_interval_s=min_interval_s)
    host = f"{lang}.wikipedia.org"

    server, run = source_server(SERVER_NAME, INSTRUCTIONS, cache, LABEL, host, call_timeout_s, timeout_s, logger)

    Title = Annotated[
        str,
        Field(
            description="Page title, e.g. 'Stanley Kubrick' or 'Mercury (planet)' (as search_titles "
            "returns it; underscores work too).",
            max_length=MAX_TITLE_CHARS * 2,
        ),
    ]

    @tool(server)
    async def search_titles(
        query: Annotated[
            str,
            Field(
                description="What to look for, e.g. 'Kubrick 2001 Space Odyssey'. Names and distinctive "
                "nouns work best.",
                max_length=MAX_QUERY_CHARS,
            ),
        ],
        k: Annotated[int, Field(ge=1, le=MAX_K, description=f"How many titles to return (1-{MAX_K}).")] = 5,
    ) -> TitleSearchResult:
        """Search Wikipedia for page titles (full-text search, best match first).

        Returns titles only; read a page with page_summary or page_sentences. An empty list with a
        message means nothing matched (the message carries Wikipedia's spelling suggestion, if any).
        """
        query = collapse(query)
        if not query:
            raise ToolError("the query is empty: pass a few keywords, e.g. the names the claim mentions")
        record = await run("search_titles", client.search_titles, query, k)
        return search_titles_result(query, record)

    @tool(server)
    async def page_summary(title: Title) -> WikiPageResult:
        """Read a Wikipedia page's introduction (its lead section) as one evidence passage.

        Redirects are followed. If the title is a disambiguation page, found is false and options
        lists the pages it may mean; if there is no such page, suggestions lists similar titles.
        """
        title = check_title(title)
        record = await run("page_summary", client.summary, title)
        return summary_result(title, record)

    @tool(server)
    async def page_sentences(
        title: Title,
        max_sentences: Annotated[
            int, Field(ge=1, le=MAX_SENTENCES, description=f"Return at most this many sentences (1-{MAX_SENTENCES}).")
        ] = 20,
        start_line: Annotated[
            int, Field(ge=0, description="First sentence (line number) to return; use it to read on.")
        ] = 0,
    ) -> WikiPageResult:
        """Read a Wikipedia page sentence by sentence: each sentence is a passage with its line number.

        Section headings and back matter (See also, References, External links) are left out.
        truncated is true when more sentences follow: call again with start_line to read on.
        Disambiguation pages and missing pages are handled as in page_summary.
        """
        title = check_title(title)
        record = await run("page_sentences", client.content, title)
        return sentences_result(title, record, max_sentences, start_line)

    return server


# ----------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> None:
    parser = argument_parser(PROG, "MCP stdio server 'wikipedia': search and read the live Wikipedia.")
    parser.add_argument("--lang", default="en", help="Wikipedia language edition, e.g. 'en', 'de' (default en).")
    serve_command_line(
        parser,
        argv,
        create_server,
        logger,
        check=lambda args: (
            None
            if re.fullmatch(r"[a-z][a-z0-9-]{1,15}", args.lang)
            else f"--lang {args.lang!r} is not a Wikipedia language code"
        ),
        options=lambda args: {"lang": args.lang},
    )


if __name__ == "__main__":
    main()
