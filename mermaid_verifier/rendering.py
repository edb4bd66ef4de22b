"""What every HTML page of the project shares: its Jinja settings, number formatting and how an evidence item is shown.

The FEVER run's report (``evaluation.report``) and a text's or a grounding batch's report (``texts.report``) both
build on these, each with its own templates.
"""

from __future__ import annotations

import math
from functools import lru_cache
from urllib.parse import quote

import jinja2

from mermaid_verifier.names import unescape_fever

SHOWN_EVIDENCE = 5  # evidence items a report shows per claim
WIKIPEDIA = "https://en.wikipedia.org/wiki/"


@lru_cache(maxsize=4)
def environment(package: str = "mermaid_verifier.evaluation") -> jinja2.Environment:
    """A Jinja environment over ``package``'s ``templates`` folder (one per package, kept): escaped, strict about
    missing names."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def finite(value) -> float | None:
    """``value`` as a finite float, else None (missing, NaN, not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def fmt_percent(value, digits: int = 1) -> str:
    number = finite(value)
    return "n/a" if number is None else f"{number * 100:.{digits}f}%"


def fmt_decimal(value, digits: int = 3) -> str:
    number = finite(value)
    return "n/a" if number is None else f"{number:.{digits}f}"


def fmt_seconds(value) -> str:
    number = finite(value)
    if number is None:
        return "n/a"
    return f"{number * 1000:.0f} ms" if number < 1 else f"{number:.2f} s"


def wikipedia_url(page: str) -> str:
    """The English Wikipedia address of a FEVER page id (underscores for spaces, brackets unescaped)."""
    title = unescape_fever(page.replace(" ", "_"))
    return WIKIPEDIA + quote(title, safe="()_,:-.~!")


def evidence_link(item: dict) -> str | None:
    if item.get("url"):
        return str(item["url"])
    return wikipedia_url(str(item["page"])) if item.get("page") else None


def evidence_view(item: dict) -> dict:
    return {
        "title": item.get("title") or item.get("page") or item.get("id") or "untitled",
        "text": item.get("text") or "",
        "stance": item.get("stance") or "unscored",
        "score": fmt_decimal(item.get("score"), 2),
        "source": item.get("source") or "",
        "corpus": item.get("corpus") if item.get("corpus") != item.get("source") else None,  # a ZIM or JSONL file
        "href": evidence_link(item),
        "line": item.get("line"),
    }
