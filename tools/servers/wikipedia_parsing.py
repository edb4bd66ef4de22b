"""What the MediaWiki API answers, read: a page's plain text as sentences, the pages a disambiguation page lists
(from its HTML), and whether an answer is an error document."""

import re
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from mermaid_verifier.tools.article_html import STOP_SECTIONS, split_paragraph
from mermaid_verifier.tools.servers.source_errors import MalformedResponse, SourceAPIError
from mermaid_verifier.tools.servers.source_http import parse_json_object
from mermaid_verifier.tools.servers.source_passages import collapse

_HEADING = re.compile(r"^(=+)\s*(.*?)\s*\1$")
# Namespaces whose pages are never what an ambiguous title means (MediaWiki's canonical names).
_NON_ARTICLE_NAMESPACES = frozenset(
    ("help", "wikipedia", "category", "file", "image", "special", "template", "portal", "talk", "user", "draft")
)


def split_sentences(text: str) -> list[str]:
    """Plain page text (MediaWiki ``explaintext``) as sentences: headings dropped, and nothing from
    'See also' / 'References' / 'External links' and similar back matter on."""
    sentences: list[str] = []
    for raw in text.splitlines():
        paragraph = collapse(raw)
        if not paragraph:
            continue
        heading = _HEADING.match(paragraph)
        if heading:
            if heading.group(2).casefold() in STOP_SECTIONS:
                break
            continue
        sentences.extend(split_paragraph(paragraph))
    return sentences


def disambiguation_options(html: str) -> list[str]:
    """The pages a disambiguation page lists, by each item's link *target*: a piped link such as
    ``[[Ram Trucks|Ram (brand)]]`` reads 'Ram (brand)' but means the page 'Ram Trucks'. Items are the
    page's list items with a link (table-of-contents items left out), in page order; red links (pages
    that do not exist) and links outside the article namespace are skipped."""
    options = []
    for item in BeautifulSoup(html, "html.parser").find_all("li"):
        if "tocsection" in "".join(item.get("class") or []):
            continue
        link = item.find("a")
        title = _link_target(link) if link is not None else None
        if title:
            options.append(title)
    return options


def _link_target(link) -> str | None:
    """The article title an <a> of parsed wikitext points to, else None."""
    href = link.get("href") or ""
    if "redlink=1" in href or "new" in (link.get("class") or []):
        return None
    path = urlsplit(href).path
    if not path.startswith("/wiki/"):
        return None
    title = collapse(link.get("title") or unquote(path[len("/wiki/") :]).replace("_", " "))
    namespace, colon, _ = title.partition(":")
    if colon and namespace.casefold() in _NON_ARTICLE_NAMESPACES:
        return None
    return title or None


def parsed_page_html(answer: dict) -> str | None:
    """The HTML of the one page in a ``prop=revisions&rvparse`` answer."""
    for page in (answer.get("query") or {}).get("pages", {}).values():
        revisions = page.get("revisions") or [{}]
        return revisions[0].get("*")
    return None


def validate_mediawiki(body: bytes) -> dict:
    """A MediaWiki API answer must be a JSON object without an ``error`` member."""
    data = parse_json_object(body)
    error = data.get("error")
    if isinstance(error, dict):
        code, info = error.get("code", "error"), error.get("info", "")
        raise SourceAPIError(collapse(f"{code}: {info}"))
    return data


def mediawiki_error_detail(body: bytes) -> str:
    """The ``code: info`` of a MediaWiki error document sent with an HTTP error status, else ''."""
    try:
        validate_mediawiki(body)
    except SourceAPIError as exc:
        return str(exc)
    except MalformedResponse:
        return ""
    return ""
