"""What PubMed's E-utilities answer, read: ESearch and EFetch XML as JSON-able records, and the ``ERROR`` an
error answer carries.

Why the XML is parsed with ElementTree, not ``Entrez.read``
    ``Entrez.read`` needs the DTD named in the DOCTYPE and downloads any DTD Biopython does not
    bundle (PubMed moves to a new DTD every year) -- a network fetch without a timeout in the
    middle of parsing, even with ``validate=False``. The stdlib parser ignores the DOCTYPE and
    never fetches anything, and the few elements read here are stable across DTD versions.
"""

import calendar
import re
import xml.etree.ElementTree as ET

from mermaid_verifier.tools.servers.markup_text import inline_text
from mermaid_verifier.tools.servers.source_errors import MalformedResponse, SourceAPIError, SourceBusyError
from mermaid_verifier.tools.servers.source_http import parse_json_object, parse_xml
from mermaid_verifier.tools.servers.source_passages import collapse

MAX_AUTHORS = 50
_MONTHS = {name.casefold(): number for number, name in enumerate(calendar.month_abbr) if name}
_BUSY = re.compile(r"backend failed|temporary error|server error|\b50[234]\b", re.IGNORECASE)


def _text(element: ET.Element | None) -> str:
    """The text of ``element``, its inline markup (scripts, MathML) written as plain text."""
    return inline_text(element) if element is not None else ""


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
