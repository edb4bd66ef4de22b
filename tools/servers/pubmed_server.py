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

Why the XML is parsed with ElementTree, not ``Entrez.read``
    ``Entrez.read`` needs the DTD named in the DOCTYPE and downloads any DTD Biopython does not
    bundle (PubMed moves to a new DTD every year) -- a network fetch without a timeout in the
    middle of parsing, even with ``validate=False``. The stdlib parser ignores the DOCTYPE and
    never fetches anything, and the few elements read here are stable across DTD versions.

Environment: ``NCBI_API_KEY`` (optional), ``NCBI_EMAIL`` or ``ENTREZ_EMAIL`` (NCBI asks for a
contact address). Run it as::

    mermaid-verifier-pubmed-server [--cache-dir DIR] [--timeout 8] [--log-level INFO]
    python -m mermaid_verifier.tools.servers.pubmed_server

stdout is the JSON-RPC channel: nothing in this module prints; logs go to stderr.
"""

import calendar
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
from mermaid_verifier.tools.servers.markup_text import inline_text
from mermaid_verifier.tools.servers.server_logging import configure_logging
from mermaid_verifier.tools.servers.server_tools import tool
from mermaid_verifier.tools.servers.source_cache import ResponseCache, cached_call
from mermaid_verifier.tools.servers.source_errors import (
    HTTPStatusError,
    MalformedResponse,
    SourceAPIError,
    SourceBusyError,
    parse_retry_after,
)
from mermaid_verifier.tools.servers.source_http import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    MAX_ERROR_BODY,
    RateLimiter,
    RetryPolicy,
    contact_from_env,
    ncbi_min_interval,
    parse_json_object,
    parse_xml,
    user_agent_for,
    warn_without_contact,
    with_retries,
)
from mermaid_verifier.tools.servers.source_passages import EvidencePassage, collapse, rank_score
from mermaid_verifier.tools.servers.source_server import (
    argument_parser,
    cache_from_args,
    check_common_args,
    run_stdio,
    source_server,
)

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
MAX_AUTHORS = 50
_PMID = re.compile(r"^\d{1,9}$")
_MONTHS = {name.casefold(): number for number, name in enumerate(calendar.month_abbr) if name}

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


# ----------------------------------------------------------------------------- pure helpers: XML


def _text(element: ET.Element | None) -> str:
    """The text of ``element``, its inline markup (scripts, MathML) written as plain text."""
    return inline_text(element) if element is not None else ""


_BUSY = re.compile(r"backend failed|temporary error|server error|\b50[234]\b", re.IGNORECASE)
NO_VALID_IDS = "ID list is empty"  # EFetch's HTTP 400 when none of the ids asked for is a PubMed record


def says_busy(text: str) -> bool:
    """Whether an E-utilities ``ERROR`` says the service failed for now ('Search Backend failed: ...',
    a 502 page passed on): worth retrying, unlike other errors."""
    return _BUSY.search(text) is not None


def eutils_error(text: str) -> SourceAPIError:
    """An E-utilities ``ERROR`` as an exception: :class:`SourceBusyError` (retried) when it :func:`says_busy`,
    else :class:`SourceAPIError`."""
    return SourceBusyError(text) if says_busy(text) else SourceAPIError(text)


def error_body_text(body: bytes) -> str:
    """The ``ERROR`` an E-utilities error answer carries (XML ``<ERROR>``, JSON ``error`` or
    ``esearchresult.ERROR``), HTML inside it reduced to text; '' when there is none."""
    try:
        error = parse_xml(body).find("ERROR")
        text = "".join(error.itertext()) if error is not None else ""
    except MalformedResponse:
        try:
            data = parse_json_object(body)
        except MalformedResponse:
            return ""
        text = data.get("error") or (data.get("esearchresult") or {}).get("ERROR") or ""
    return collapse(re.sub(r"<[^>]*>", " ", str(text)))


def parse_esearch(root: ET.Element) -> dict:
    """ESearch XML -> {count, pmids, translation, not_found}; an ``ERROR`` element is an API error."""
    if root.tag != "eSearchResult":
        raise SourceAPIError(f"unexpected ESearch answer <{root.tag}>")
    error = _text(root.find("ERROR"))
    if error:
        raise eutils_error(error)
    count = _text(root.find("Count"))
    return {
        "count": int(count) if count.isdigit() else 0,
        "pmids": [_text(e) for e in root.findall("IdList/Id") if _text(e)],
        "translation": _text(root.find("QueryTranslation")) or None,
        "not_found": [_text(e) for e in root.findall("ErrorList/PhraseNotFound") if _text(e)],
    }


def _month(value: str) -> int | None:
    value = value.strip()
    if value.isdigit():
        number = int(value)
        return number if 1 <= number <= 12 else None
    return _MONTHS.get(value[:3].casefold())


def parse_date(element: ET.Element | None) -> tuple[int, int | None, int | None] | None:
    """(year, month, day) from a PubDate / ArticleDate; MedlineDate such as '1998 Dec-1999 Jan' too."""
    if element is None:
        return None
    year = _text(element.find("Year"))
    if year.isdigit():
        month = _month(_text(element.find("Month")))
        day = _text(element.find("Day"))
        return int(year), month, (int(day) if day.isdigit() and month else None)
    medline = _text(element.find("MedlineDate"))
    match = re.match(r"(\d{4})(?:\s+([A-Za-z]{3}))?", medline)
    if match:
        return int(match.group(1)), (_month(match.group(2)) if match.group(2) else None), None
    return None


def _date_string(date: tuple[int, int | None, int | None]) -> str:
    year, month, day = date
    return f"{year:04d}" + (f"-{month:02d}" if month else "") + (f"-{day:02d}" if month and day else "")


def _date_unix(date: tuple[int, int | None, int | None]) -> float | None:
    year, month, day = date
    try:
        return float(calendar.timegm((year, month or 1, day or 1, 0, 0, 0)))
    except (ValueError, OverflowError):
        return None


def _author(element: ET.Element) -> str:
    collective = _text(element.find("CollectiveName"))
    if collective:
        return collective
    last, fore = _text(element.find("LastName")), _text(element.find("ForeName"))
    if not fore:
        fore = _text(element.find("Initials"))
    return collapse(f"{fore} {last}")


def _abstract(abstract: ET.Element | None) -> str:
    if abstract is None:
        return ""
    parts = []
    for section in abstract.findall("AbstractText"):
        text = _text(section)
        label = collapse(section.get("Label", ""))
        if text:
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


def _book_authors(element: ET.Element | None) -> list[str]:
    """The authors an element of a book record lists: its AuthorList of Type 'authors' (or none given)."""
    if element is None:
        return []
    lists = [a for a in element.findall("AuthorList") if a.get("Type", "authors") == "authors"]
    return [_author(author) for author_list in lists for author in author_list.findall("Author")]


def _doi_of(identifiers: list[ET.Element], type_attribute: str) -> str | None:
    """The first DOI among identifier elements (ELocationID / ArticleId), by their type attribute."""
    return next((_text(e) for e in identifiers if e.get(type_attribute) == "doi" and _text(e)), None)


def parse_article(article: ET.Element) -> dict | None:
    """One <PubmedArticle> (or <PubmedBookArticle>) -> the JSON-able record the cache stores."""
    citation = article.find("MedlineCitation")
    if citation is None:
        citation = article.find("BookDocument")
    if citation is None:
        return None
    pmid = _text(citation.find("PMID"))
    if not pmid:
        return None
    art = citation.find("Article")
    if art is not None:
        title = _text(art.find("ArticleTitle"))
        abstract = _abstract(art.find("Abstract"))
        journal = _text(art.find("Journal/Title")) or None
        authors = [_author(a) for a in art.findall("AuthorList/Author")]
        dates = [parse_date(art.find("Journal/JournalIssue/PubDate"))]
        dates += [parse_date(d) for d in art.findall("ArticleDate")]
        doi = _doi_of(art.findall("ELocationID"), "EIdType")
    else:  # a book or a chapter of one
        title = _text(citation.find("ArticleTitle")) or _text(citation.find("Book/BookTitle"))
        abstract = _abstract(citation.find("Abstract"))
        journal = _text(citation.find("Book/BookTitle")) or None
        # the chapter's authors, else the book's (a whole book has no chapter list); never its editors
        authors = _book_authors(citation) or _book_authors(citation.find("Book"))
        dates = [parse_date(citation.find("Book/PubDate"))]
        doi = _doi_of(citation.findall("ELocationID") + citation.findall("Book/ELocationID"), "EIdType")
        doi = _doi_of(citation.findall("ArticleIdList/ArticleId"), "IdType") or doi
    data = article.find("PubmedData")
    if data is None:
        data = article.find("PubmedBookData")
    if data is not None:
        doi = _doi_of(data.findall("ArticleIdList/ArticleId"), "IdType") or doi
    known = sorted((d for d in dates if d is not None), key=lambda d: (d[0], d[1] or 1, d[2] or 1))
    earliest = known[0] if known else None  # the e-pub date usually precedes the date
    authors = [a for a in authors if a]
    if len(authors) > MAX_AUTHORS:
        authors = authors[:MAX_AUTHORS] + ["et al."]
    return {
        "pmid": pmid,
        "title": title or f"PubMed {pmid}",
        "abstract": abstract,
        "journal": journal,
        "authors": authors,
        "doi": doi or None,
        "publication_date": _date_string(earliest) if earliest else None,
        "published_at": _date_unix(earliest) if earliest else None,
    }


def parse_efetch(root: ET.Element) -> list[dict]:
    """EFetch PubMed XML -> article records in document order."""
    if root.tag != "PubmedArticleSet":
        error = _text(root.find("ERROR"))
        raise eutils_error(error) if error else SourceAPIError(f"unexpected EFetch answer <{root.tag}>")
    records = []
    for article in list(root):
        if article.tag in ("PubmedArticle", "PubmedBookArticle"):
            record = parse_article(article)
            if record is not None:
                records.append(record)
    return records


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
    args = parser.parse_args(argv)
    check_common_args(parser, args)
    configure_logging(args.log_level)
    warn_without_contact(contact_from_env(), logger)
    settings = settings_from_env()
    if settings["email"] is None:
        logger.warning("no contact email for NCBI: set NCBI_EMAIL (or ENTREZ_EMAIL), as NCBI asks")
    logger.info("NCBI rate limit: %s requests/s", "10" if settings["api_key"] else "3")
    server = create_server(
        cache_from_args(args),
        email=settings["email"],
        api_key=settings["api_key"],
        timeout_s=args.timeout,
        call_timeout_s=args.call_timeout,
    )
    run_stdio(server)


if __name__ == "__main__":
    main()
