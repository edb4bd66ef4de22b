"""``pubmed``: an MCP stdio server that searches PubMed and reads abstracts (NCBI E-utilities).

Two tools, both returning structured results:

* ``search(query, k)``          -> ESearch for the ``k`` most relevant PMIDs, then EFetch their abstracts
* ``fetch_abstracts(pmids)``    -> EFetch the abstracts of the given PMIDs

Each article is one evidence passage: its abstract (structured abstracts keep their labels,
"BACKGROUND: ..."), title, authors, journal, DOI, publication date and PubMed URL.

How ``Bio.Entrez`` is used
    ``Entrez.esearch`` / ``Entrez.efetch`` build the requests (with ``tool``, ``email`` and
    ``api_key`` passed per call, never set as module globals). ``Entrez.max_tries = 1`` and
    ``sleep_between_tries = 0``: retries are ours (backoff on 429/5xx/resets, ``Retry-After``
    honoured) instead of Biopython's three tries 15 s apart. Entrez opens URLs with ``urlopen`` and
    no timeout; ``Bio.Entrez.urlopen`` is replaced (that module attribute only, idempotently) by a
    wrapper that adds the calling server's timeout, read from a thread-local. Our
    :class:`~mermaid_verifier.tools.servers.source_http.RateLimiter` keeps to NCBI's 3 requests/s
    (10/s with ``NCBI_API_KEY``); Entrez's own throttle stays on as well.

The answers are read by :mod:`.pubmed_xml` (with ElementTree, not ``Entrez.read``: it says why).

Environment: ``NCBI_API_KEY`` (optional), ``NCBI_EMAIL`` or ``ENTREZ_EMAIL`` (NCBI asks for a
contact address). Run it as::

    mermaid-verifier-pubmed-server [--cache-dir DIR] [--timeout 8] [--log-level INFO]
    python -m mermaid_verifier.tools.servers.pubmed_server

stdout is the JSON-RPC channel: nothing in this module prints; logs go to stderr.
"""

import logging
import os
import re
import threading
import urllib.error
import urllib.request
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from typing import Annotated, TypeVar

from Bio import Entrez
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from mermaid_verifier.source_registry import BY_NAME
from mermaid_verifier.tools.passage_record import ToolResult
from mermaid_verifier.tools.servers.pubmed_xml import error_body_text, parse_efetch, parse_esearch, says_busy
from mermaid_verifier.tools.servers.server_tools import tool
from mermaid_verifier.tools.servers.source_cache import ResponseCache, cached_call
from mermaid_verifier.tools.servers.source_errors import HTTPStatusError, SourceBusyError, parse_retry_after
from mermaid_verifier.tools.servers.source_http import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    MAX_ERROR_BODY,
    RateLimiter,
    RetryPolicy,
    contact_from_env,
    ncbi_min_interval,
    parse_xml,
    user_agent_for,
    with_retries,
)
from mermaid_verifier.tools.servers.source_passages import EvidencePassage, collapse, rank_score
from mermaid_verifier.tools.servers.source_server import argument_parser, serve_command_line, source_server

logger = logging.getLogger("mermaid_verifier.tools.servers.pubmed_server")  # also under -m
T = TypeVar("T")

SOURCE = BY_NAME["pubmed"]  # its name, console script and host: mermaid_verifier.source_registry
SERVER_NAME = SOURCE.server
PROG = SOURCE.script
LABEL = "PubMed"
CORPUS = "pubmed"
HOST = str(SOURCE.host)
TOOL_NAME = "mermaid-verifier"
MAX_K = 50
MAX_PMIDS = 50
MAX_QUERY_CHARS = 1000
_PMID = re.compile(r"^\d{1,9}$")
NO_VALID_IDS = "ID list is empty"  # EFetch's HTTP 400 when none of the ids asked for is a PubMed record

INSTRUCTIONS = (
    "Searches PubMed (biomedical literature). Use `search` with keywords (PubMed query syntax such "
    "as [Title], [Author], AND, OR also works) to find articles; each result is an evidence passage "
    "holding the abstract. Use `fetch_abstracts` with PMIDs to read specific articles."
)


# ----------------------------------------------------------------------------- result models


class PubmedPassage(EvidencePassage):
    """An article's abstract as an evidence passage, with its PubMed metadata."""

    pmid: str = Field(description="PubMed id.")
    journal: str | None = Field(default=None, description="Journal title.")
    publication_date: str | None = Field(
        default=None, description="Publication date as precise as known (YYYY[-MM[-DD]])."
    )
    doi: str | None = Field(default=None, description="DOI, if any.")
    has_abstract: bool = Field(description="False when PubMed has no abstract: text is then the title.")


class PubmedSearchResult(ToolResult):
    query: str = Field(description="The query as searched.")
    total_count: int = Field(description="How many articles match in all.")
    query_translation: str | None = Field(default=None, description="How PubMed understood the query.")
    passages: list[PubmedPassage] = Field(description="Most relevant articles first; empty when nothing matched.")
    message: str | None = Field(default=None, description="Advice when nothing matched.")


class PubmedFetchResult(ToolResult):
    pmids: list[str] = Field(description="The PMIDs as asked for (duplicates removed).")
    passages: list[PubmedPassage] = Field(description="The articles found, in the order asked for.")
    missing: list[str] = Field(default_factory=list, description="PMIDs PubMed returned nothing for.")
    message: str | None = Field(default=None, description="What to do next, when there is something to say.")


# ----------------------------------------------------------------------------- pure helpers: results


def article_passage(record: dict, score: float | None) -> PubmedPassage:
    pmid = record["pmid"]
    text = record["abstract"] or record["title"]
    return PubmedPassage(
        id=f"{CORPUS}:{pmid}",
        page=pmid,
        line=None,
        title=record["title"],
        text=text,
        corpus=CORPUS,
        score=score,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        published_at=record["published_at"],
        authors=record["authors"],
        pmid=pmid,
        journal=record["journal"],
        publication_date=record["publication_date"],
        doi=record["doi"],
        has_abstract=bool(record["abstract"]),
    )


def search_result(query: str, found: dict) -> PubmedSearchResult:
    search, articles = found["search"], found["articles"]
    passages = [
        article_passage(articles[pmid], rank_score(rank))
        for rank, pmid in enumerate(search["pmids"])
        if pmid in articles
    ]
    message = None
    unread = [pmid for pmid in search["pmids"] if pmid not in articles]
    if not passages and unread:  # ESearch matched, EFetch gave none of the records
        message = (
            f"PubMed matched {search['count']} article(s) for {query!r} but returned no record for PMID "
            f"{_some(unread)}. Try fetch_abstracts with these PMIDs, or search again later."
        )
    elif not passages:
        message = f"No PubMed article matched {query!r}."
        if search["not_found"]:
            message += " PubMed did not find: " + ", ".join(repr(p) for p in search["not_found"]) + "."
        message += " Try fewer or different keywords, or another spelling."
    elif unread:
        message = f"PubMed returned no record for PMID {_some(unread)} of those it matched."
    return PubmedSearchResult(
        query=query,
        total_count=search["count"],
        query_translation=search["translation"],
        passages=passages,
        message=message,
    )


def _some(pmids: list[str], shown: int = 5) -> str:
    """'1, 2, 3, 4, 5 and 15 more'."""
    listed = ", ".join(pmids[:shown])
    return listed + (f" and {len(pmids) - shown} more" if len(pmids) > shown else "")


def fetch_result(pmids: list[str], articles: Mapping[str, dict]) -> PubmedFetchResult:
    passages = [article_passage(articles[p], None) for p in pmids if p in articles]
    missing = [p for p in pmids if p not in articles]
    message = None
    if missing:
        message = "PubMed has no article for PMID " + ", ".join(missing) + "."
    return PubmedFetchResult(pmids=pmids, passages=passages, missing=missing, message=message)


def check_pmids(pmids: list[str]) -> list[str]:
    cleaned: list[str] = []
    for raw in pmids:
        pmid = collapse(str(raw)).removeprefix("PMID:").strip()
        if not _PMID.match(pmid):
            raise ToolError(f"{collapse(str(raw))!r} is not a PMID: PMIDs are numbers such as '31978945'")
        pmid = pmid.lstrip("0") or "0"
        if pmid not in cleaned:
            cleaned.append(pmid)
    if not cleaned:
        raise ToolError("no PMIDs given: pass one or more, e.g. ['31978945']")
    return cleaned


# ----------------------------------------------------------------------------- the HTTP route


class _Call(threading.local):
    """The calling client's settings, for the ``urlopen`` that Entrez calls in this thread."""

    seconds: float | None = None
    user_agent: str | None = None


_CALL = _Call()
_FALLBACK_TIMEOUT_S = DEFAULT_TIMEOUT_S


def _urlopen_with_timeout(request, data=None, timeout=None, *args, **kwargs):
    """``Bio.Entrez.urlopen``: the stdlib ``urlopen`` with the calling client's timeout and User-Agent
    (urllib's own is 'Python-urllib/3.x')."""
    if timeout is None:
        timeout = _CALL.seconds or _FALLBACK_TIMEOUT_S
    if isinstance(request, urllib.request.Request):
        request.add_header("User-Agent", _CALL.user_agent or user_agent_for(contact_from_env()))
    return urllib.request.urlopen(request, data, timeout, *args, **kwargs)


def http_error(exc: urllib.error.HTTPError) -> Exception:
    """An E-utilities error status with what its body says; a busy backend's is retried (see :func:`says_busy`)."""
    try:
        body = exc.read(MAX_ERROR_BODY)
    except OSError as read_failure:  # the body broke off: the status still stands
        logger.debug("PubMed: cannot read the error body: %s", read_failure)
        body = b""
    detail = error_body_text(body)
    retry_after = parse_retry_after(exc.headers.get("Retry-After") if exc.headers is not None else None)
    status_error = HTTPStatusError(exc.code, str(exc.reason or ""), retry_after, url=exc.url or "", detail=detail)
    if says_busy(detail):
        busy = SourceBusyError(detail)
        busy.__cause__ = status_error
        return busy
    return status_error


def configure_entrez() -> None:
    """Entrez makes one attempt per call, without its own sleeps, and opens URLs with a timeout."""
    Entrez.max_tries = 1
    Entrez.sleep_between_tries = 0
    if Entrez.urlopen is not _urlopen_with_timeout:
        Entrez.urlopen = _urlopen_with_timeout  # type: ignore[assignment]  # the same call shape, with a timeout
    # without an email Entrez warns on every request; the server says it once at start instead
    warnings.filterwarnings("ignore", message=r"\s*Email address is not specified", module=r"Bio\.Entrez")


class PubmedClient:
    """Blocking E-utilities calls through ``Bio.Entrez``, rate-limited, retried and cached."""

    def __init__(
        self,
        *,
        cache: ResponseCache | None,
        email: str | None = None,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        min_interval_s: float | None = None,
        user_agent: str | None = None,
    ):
        configure_entrez()
        self.cache = cache
        self.user_agent = user_agent or user_agent_for(contact_from_env())
        self.email = email or None
        self.api_key = api_key or None
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        interval = ncbi_min_interval(self.api_key) if min_interval_s is None else min_interval_s
        self.limiter = RateLimiter(interval)

    def _call(self, utility: str, read: Callable[[ET.Element], T], **params) -> T:
        """One E-utility request (``esearch``/``efetch``), its XML read by ``read`` -- inside the retried
        attempt, so an answer that says the backend failed is retried like an error status."""
        function = getattr(Entrez, utility)

        def attempt() -> T:
            self.limiter.wait()
            previous = _CALL.seconds, _CALL.user_agent
            _CALL.seconds, _CALL.user_agent = self.timeout_s, self.user_agent
            try:
                try:
                    handle = function(**params, tool=TOOL_NAME, email=self.email, api_key=self.api_key)
                except urllib.error.HTTPError as exc:
                    raise http_error(exc)  # noqa: B904 - its cause is the status error it carries
                try:
                    body = handle.read()
                finally:
                    handle.close()
            finally:
                _CALL.seconds, _CALL.user_agent = previous
            if isinstance(body, str):  # Entrez wraps text/plain answers in a text reader
                body = body.encode("utf-8")
            return read(parse_xml(body))

        return with_retries(attempt, self.retry, label=LABEL)

    def esearch(self, query: str, k: int) -> dict:
        return cached_call(
            self.cache,
            "pubmed",
            "esearch",
            {"query": query, "k": k},
            lambda: self._call(
                "esearch", parse_esearch, db="pubmed", term=query, retmax=k, sort="relevance", retmode="xml"
            ),
        )

    def articles(self, pmids: list[str]) -> dict[str, dict]:
        """Records by PMID for those PubMed has; each article is cached on its own."""
        found: dict[str, dict] = {}
        for pmid in pmids:
            hit = self.cache.get("pubmed", "article", {"pmid": pmid}) if self.cache is not None else None
            if hit is not None:
                found[pmid] = hit
        wanted = [p for p in pmids if p not in found]
        if wanted:
            try:
                records = self._call(
                    "efetch", parse_efetch, db="pubmed", id=",".join(wanted), rettype="abstract", retmode="xml"
                )
            except HTTPStatusError as exc:
                if exc.status == 400 and exc.detail.startswith(NO_VALID_IDS):
                    return found  # PubMed has none of them
                raise
            for record in records:
                if record["pmid"] in wanted:
                    found[record["pmid"]] = record
                    if self.cache is not None:
                        self.cache.set("pubmed", "article", {"pmid": record["pmid"]}, record)
        return found

    def search(self, query: str, k: int) -> dict:
        search = self.esearch(query, k)
        return {"search": search, "articles": self.articles(search["pmids"]) if search["pmids"] else {}}


# ----------------------------------------------------------------------------- the server


def create_server(
    cache: ResponseCache | None,
    *,
    email: str | None = None,
    api_key: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    retry: RetryPolicy | None = None,
    min_interval_s: float | None = None,
) -> FastMCP:
    """A FastMCP server named ``pubmed``. ``min_interval_s`` None keeps to NCBI's limit (3 requests/s,
    10/s with ``api_key``); ``timeout_s`` bounds each HTTP request, ``call_timeout_s`` each tool call."""
    client = PubmedClient(
        cache=cache, email=email, api_key=api_key, timeout_s=timeout_s, retry=retry, min_interval_s=min_interval_s
    )

    server, run = source_server(SERVER_NAME, INSTRUCTIONS, cache, LABEL, HOST, call_timeout_s, timeout_s, logger)

    @tool(server)
    async def search(
        query: Annotated[
            str,
            Field(
                description="Keywords: the condition, treatment and population the claim mentions; "
                "PubMed syntax works too ([Title], [Author], AND / OR).",
                max_length=MAX_QUERY_CHARS,
            ),
        ],
        k: Annotated[int, Field(ge=1, le=MAX_K, description=f"How many articles to return (1-{MAX_K}).")] = 5,
    ) -> PubmedSearchResult:
        """Search PubMed by relevance and read the abstracts of the best matches.

        Returns up to k articles, best first, each an evidence passage holding the abstract, with
        title, authors, journal, DOI, publication date (published_at is Unix time) and URL. An
        empty list with a message means nothing matched.
        """
        query = collapse(query)
        if not query:
            raise ToolError("the query is empty: pass a few keywords, e.g. the condition and treatment the claim names")
        found = await run("search", client.search, query, k)
        return search_result(query, found)

    @tool(server)
    async def fetch_abstracts(
        pmids: Annotated[
            list[str],
            Field(min_length=1, max_length=MAX_PMIDS, description=f"PubMed ids, e.g. ['31978945'] (1-{MAX_PMIDS})."),
        ],
    ) -> PubmedFetchResult:
        """Read PubMed articles by PMID: each abstract is an evidence passage with its metadata.

        PMIDs PubMed has nothing for are listed in missing.
        """
        pmids = check_pmids(pmids)
        articles = await run("fetch_abstracts", client.articles, pmids)
        return fetch_result(pmids, articles)

    return server


# ----------------------------------------------------------------------------- command line


def settings_from_env(environ: Mapping[str, str] | None = None) -> dict[str, str | None]:
    env = os.environ if environ is None else environ
    email = (env.get("NCBI_EMAIL") or env.get("ENTREZ_EMAIL") or "").strip() or None
    api_key = (env.get("NCBI_API_KEY") or "").strip() or None
    return {"email": email, "api_key": api_key}


def main(argv: list[str] | None = None) -> None:
    parser = argument_parser(
        PROG,
        "MCP stdio server 'pubmed': search PubMed and read abstracts (env: NCBI_API_KEY, NCBI_EMAIL or ENTREZ_EMAIL).",
    )
    serve_command_line(parser, argv, create_server, logger, options=lambda _: ncbi_settings())


def ncbi_settings() -> dict[str, str | None]:
    """:func:`settings_from_env`, saying on stderr what is missing and which rate limit applies."""
    settings = settings_from_env()
    if settings["email"] is None:
        logger.warning("no contact email for NCBI: set NCBI_EMAIL (or ENTREZ_EMAIL), as NCBI asks")
    logger.info("NCBI rate limit: %s requests/s", "10" if settings["api_key"] else "3")
    return settings


if __name__ == "__main__":
    main()
