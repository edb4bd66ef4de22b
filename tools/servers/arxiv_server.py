"""``arxiv``: an MCP stdio server that searches arXiv and reads abstracts (export.arxiv.org API).

Two tools, both returning structured results:

* ``search(query, k)``        -> the ``k`` best-matching papers, each an evidence passage (its abstract)
* ``get_abstract(arxiv_id)``  -> one paper's abstract and metadata

How the ``arxiv`` package is used
    ``arxiv.Client(page_size=k, delay_seconds=0, num_retries=0)`` builds the query URL and parses
    the Atom feed; its ``requests.Session`` is replaced by our
    :class:`~mermaid_verifier.tools.servers.source_http.SourceSession`, so every request has a timeout,
    waits for the rate limiter (arXiv asks for at most one request every 3 seconds), is retried by
    our policy (the library's own retries are off) and must be an Atom feed -- the library would
    quietly read an HTML error page as "no results". ``page_size`` is ``k``, not the library's 100.
    Answers are cached on disk for 7 days, empty ones for an hour.

Run it as::

    mermaid-verifier-arxiv-server [--cache-dir DIR] [--timeout 8] [--log-level INFO]
    python -m mermaid_verifier.tools.servers.arxiv_server

stdout is the JSON-RPC channel: nothing in this module prints; logs go to stderr.
"""

import logging
import re
from typing import Annotated

import arxiv
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from mermaid_verifier.source_registry import BY_NAME
from mermaid_verifier.tools.passage_record import ToolResult
from mermaid_verifier.tools.servers.server_tools import tool
from mermaid_verifier.tools.servers.source_cache import ResponseCache, cached_call
from mermaid_verifier.tools.servers.source_errors import MalformedResponse
from mermaid_verifier.tools.servers.source_http import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    RateLimiter,
    RetryPolicy,
    SourceSession,
    parse_xml,
)
from mermaid_verifier.tools.servers.source_passages import EvidencePassage, collapse, rank_score, unix_time
from mermaid_verifier.tools.servers.source_server import argument_parser, serve_command_line, source_server

logger = logging.getLogger("mermaid_verifier.tools.servers.arxiv_server")  # also under -m

SOURCE = BY_NAME["arxiv"]  # its name, console script and host: mermaid_verifier.source_registry
SERVER_NAME = SOURCE.server
PROG = SOURCE.script
LABEL = "arXiv"
CORPUS = "arxiv"
HOST = str(SOURCE.host)
MAX_K = 50
MAX_QUERY_CHARS = 1000
DEFAULT_MIN_INTERVAL_S = 3.0  # arXiv API terms of use: no more than one request every three seconds
EMPTY_ANSWER_EXPIRE_S = 3600.0  # an empty feed may be one of arXiv's transient empty pages
ATOM = "{http://www.w3.org/2005/Atom}"
ATOM_FEED = f"{ATOM}feed"

# new-style ids (2007 on): 0704.0001, 2101.00001; old style: hep-th/9901001, math.GT/0309136
_NEW_ID = r"\d{4}\.\d{4,5}"
_OLD_ID = r"[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7}"
ARXIV_ID = re.compile(rf"^(?:{_NEW_ID}|{_OLD_ID})(?:v\d+)?$")
_ID_PREFIX = re.compile(r"^(?:arxiv:|https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)

INSTRUCTIONS = (
    "Searches arXiv preprints. Use `search` with keywords (arXiv query syntax such as ti:, au:, "
    "abs:, AND, OR also works) to find papers; each result is an evidence passage holding the "
    "abstract. Use `get_abstract` with an arXiv id (e.g. 1706.03762) to read one paper."
)


# ----------------------------------------------------------------------------- result models


class ArxivPassage(EvidencePassage):
    """A paper's abstract as an evidence passage, with its arXiv metadata."""

    arxiv_id: str = Field(description="arXiv id with version, e.g. '1706.03762v7'.")
    published: str = Field(description="When the first version was submitted (ISO 8601, UTC).")
    updated: str = Field(description="When this version was submitted (ISO 8601, UTC).")
    updated_at: float | None = Field(default=None, description="updated as Unix time (seconds).")
    primary_category: str | None = Field(default=None, description="Primary arXiv category, e.g. 'cs.CL'.")
    categories: list[str] = Field(default_factory=list, description="All arXiv categories.")
    doi: str | None = Field(default=None, description="DOI of the published version, if any.")
    journal_ref: str | None = Field(default=None, description="Journal reference, if any.")
    pdf_url: str | None = Field(default=None, description="Link to the PDF.")


class ArxivSearchResult(ToolResult):
    query: str = Field(description="The query as searched.")
    passages: list[ArxivPassage] = Field(description="Best-matching papers first; empty when nothing matched.")
    message: str | None = Field(default=None, description="Advice when nothing matched.")


class ArxivAbstractResult(ToolResult):
    arxiv_id: str = Field(description="The id as asked for (normalised).")
    found: bool = Field(description="True when arXiv has the paper.")
    passages: list[ArxivPassage] = Field(description="The paper's abstract as one passage; empty if not found.")
    message: str | None = Field(default=None, description="What to do next, when there is something to say.")


# ----------------------------------------------------------------------------- pure helpers


def normalise_arxiv_id(raw: str) -> str:
    """'arXiv:1706.03762', 'https://arxiv.org/abs/1706.03762v2', '.../pdf/1706.03762.pdf' -> the bare id."""
    text = _ID_PREFIX.sub("", collapse(raw))
    text = re.sub(r"\.pdf$", "", text, flags=re.IGNORECASE).strip("/ ")
    if not ARXIV_ID.match(text):
        raise ToolError(
            f"{collapse(raw)!r} is not an arXiv id: expected e.g. '1706.03762', '1706.03762v2' or 'hep-th/9901001'"
        )
    return text


def validate_feed(body: bytes) -> None:
    parse_xml(body, root_tags=(ATOM_FEED,))


def error_detail(body: bytes) -> str:
    """The reason an arXiv API error answer gives: its feed's one entry is titled 'Error' and says why
    in its summary ('incorrect id format for abc'); '' when the body is no such feed."""
    try:
        feed = parse_xml(body, root_tags=(ATOM_FEED,))
    except MalformedResponse:
        return ""
    for entry in feed.findall(f"{ATOM}entry"):
        if collapse(entry.findtext(f"{ATOM}title") or "") == "Error":
            return collapse(entry.findtext(f"{ATOM}summary") or "")
    return ""


def _https(url: str | None) -> str | None:
    return re.sub(r"^http://", "https://", url) if url else url


def empty_answer_life(papers: list[dict]) -> float | None:
    """How long an answer is cached: an empty feed for an hour only -- arXiv's API now and then answers
    a query that has results with an empty page (the ``arxiv`` package's ``UnexpectedEmptyPageError``)."""
    return EMPTY_ANSWER_EXPIRE_S if not papers else None


def paper_record(result: arxiv.Result) -> dict:
    """The JSON-able facts of one arXiv result (what the cache stores)."""
    return {
        "arxiv_id": result.get_short_id(),
        "title": collapse(result.title),
        "authors": [collapse(a.name) for a in result.authors],
        "abstract": collapse(result.summary),
        "published": result.published.isoformat(),
        "updated": result.updated.isoformat(),
        "published_at": unix_time(result.published),
        "updated_at": unix_time(result.updated),
        "url": _https(result.entry_id),
        "pdf_url": _https(result.pdf_url),
        "primary_category": result.primary_category or None,
        "categories": list(result.categories),
        "doi": result.doi or None,
        "journal_ref": collapse(result.journal_ref) or None,
    }


def paper_passage(record: dict, score: float | None) -> ArxivPassage:
    arxiv_id = record["arxiv_id"]
    return ArxivPassage(
        id=f"{CORPUS}:{arxiv_id}",
        page=arxiv_id,
        line=None,
        title=record["title"],
        text=record["abstract"],
        corpus=CORPUS,
        score=score,
        url=record["url"] or f"https://arxiv.org/abs/{arxiv_id}",
        published_at=record["published_at"],
        authors=record["authors"],
        arxiv_id=arxiv_id,
        published=record["published"],
        updated=record["updated"],
        updated_at=record["updated_at"],
        primary_category=record["primary_category"],
        categories=record["categories"],
        doi=record["doi"],
        journal_ref=record["journal_ref"],
        pdf_url=record["pdf_url"],
    )


def search_result(query: str, papers: list[dict]) -> ArxivSearchResult:
    passages = [paper_passage(p, rank_score(rank)) for rank, p in enumerate(papers)]
    message = None
    if not passages:
        message = (
            f"No arXiv paper matched {query!r}. Try fewer or different keywords, or field "
            "prefixes such as ti: (title), au: (author), abs: (abstract)."
        )
    return ArxivSearchResult(query=query, passages=passages, message=message)


def _base_id(arxiv_id: str) -> str:
    return re.sub(r"v\d+$", "", arxiv_id)


def abstract_result(arxiv_id: str, papers: list[dict]) -> ArxivAbstractResult:
    matching = [p for p in papers if _base_id(p["arxiv_id"]) == _base_id(arxiv_id)]
    if not matching:
        return ArxivAbstractResult(
            arxiv_id=arxiv_id,
            found=False,
            passages=[],
            message=f"arXiv has no paper {arxiv_id!r}. Check the id, or use search to find the paper.",
        )
    return ArxivAbstractResult(arxiv_id=arxiv_id, found=True, passages=[paper_passage(matching[0], None)])


# ----------------------------------------------------------------------------- the client


class ArxivClient:
    """Blocking arXiv look-ups through the ``arxiv`` package and our session, cached."""

    def __init__(
        self,
        *,
        cache: ResponseCache | None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        min_interval_s: float = DEFAULT_MIN_INTERVAL_S,
        user_agent: str | None = None,
    ):
        self.cache = cache
        self.session = SourceSession(
            LABEL,
            timeout_s=timeout_s,
            retry=retry,
            limiter=RateLimiter(min_interval_s),
            validate=validate_feed,
            error_detail=error_detail,
            user_agent=user_agent,
        )

    def _papers(self, search: arxiv.Search, page_size: int) -> list[dict]:
        # one Client per call: page_size differs per call, and a Client is not meant to be shared
        client = arxiv.Client(page_size=page_size, delay_seconds=0.0, num_retries=0)
        client._session.close()
        client._session = self.session  # timeouts, rate limit, retries and checks are ours
        return [paper_record(r) for r in client.results(search)]

    def search(self, query: str, k: int) -> list[dict]:
        return cached_call(
            self.cache,
            "arxiv",
            "search",
            {"query": query, "k": k},
            lambda: self._papers(arxiv.Search(query=query, max_results=k), page_size=k),
            expire_s_for=empty_answer_life,
        )

    def abstract(self, arxiv_id: str) -> list[dict]:
        return cached_call(
            self.cache,
            "arxiv",
            "abstract",
            {"id": arxiv_id},
            lambda: self._papers(arxiv.Search(id_list=[arxiv_id], max_results=1), page_size=1),
            expire_s_for=empty_answer_life,
        )


# ----------------------------------------------------------------------------- the server


def create_server(
    cache: ResponseCache | None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    retry: RetryPolicy | None = None,
    min_interval_s: float = DEFAULT_MIN_INTERVAL_S,
) -> FastMCP:
    """A FastMCP server named ``arxiv``. ``timeout_s`` bounds each HTTP request, ``call_timeout_s``
    each tool call (retries and rate-limit waits included); ``cache`` None disables caching."""
    client = ArxivClient(cache=cache, timeout_s=timeout_s, retry=retry, min_interval_s=min_interval_s)

    server, run = source_server(SERVER_NAME, INSTRUCTIONS, cache, LABEL, HOST, call_timeout_s, timeout_s, logger)

    @tool(server)
    async def search(
        query: Annotated[
            str,
            Field(
                description="Keywords: the method, topic and names the claim mentions; arXiv syntax "
                "works too (ti: title, au: author, AND / OR).",
                max_length=MAX_QUERY_CHARS,
            ),
        ],
        k: Annotated[int, Field(ge=1, le=MAX_K, description=f"How many papers to return (1-{MAX_K}).")] = 5,
    ) -> ArxivSearchResult:
        """Search arXiv preprints by relevance.

        Returns up to k papers, best first, each an evidence passage holding the abstract, with
        title, authors, submission dates (published_at is Unix time), categories and URL. An empty
        list with a message means nothing matched.
        """
        query = collapse(query)
        if not query:
            raise ToolError("the query is empty: pass a few keywords, e.g. the method or topic the claim names")
        papers = await run("search", client.search, query, k)
        return search_result(query, papers)

    @tool(server)
    async def get_abstract(
        arxiv_id: Annotated[
            str,
            Field(
                description="arXiv id, e.g. '1706.03762', '1706.03762v2', 'hep-th/9901001'; "
                "'arXiv:...' and arxiv.org URLs work too.",
                max_length=200,
            ),
        ],
    ) -> ArxivAbstractResult:
        """Read one arXiv paper: its abstract as an evidence passage, with title, authors, dates and URL.

        Without a version the latest version is returned. found is false when arXiv has no such paper.
        """
        arxiv_id = normalise_arxiv_id(arxiv_id)
        papers = await run("get_abstract", client.abstract, arxiv_id)
        return abstract_result(arxiv_id, papers)

    return server


# ----------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> None:
    parser = argument_parser(PROG, "MCP stdio server 'arxiv': search arXiv and read abstracts.")
    parser.add_argument(
        "--min-interval",
        type=float,
        default=DEFAULT_MIN_INTERVAL_S,
        help="Seconds between two requests to arXiv (default 3, as its terms of use ask).",
    )
    serve_command_line(
        parser,
        argv,
        create_server,
        logger,
        check=lambda args: "--min-interval must not be negative" if args.min_interval < 0 else None,
        options=lambda args: {"min_interval_s": args.min_interval},
    )


if __name__ == "__main__":
    main()
