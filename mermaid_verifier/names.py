"""What a page title or entity *names*: one place for the folding that memory keys, topicality, the
judge's topic coverage, the corpus index's same-name lookup and the executor all rely on.

``unescape_fever`` undoes FEVER's bracket and colon escapes ("-LRB-film-RRB-" -> "(film)");
``normalise_entity`` folds them, case, spaces and a leading article ("The_Beatles" ->
"beatles"); ``without_disambiguator`` drops a trailing parenthesised disambiguator ("Soul Food
(film)" -> "Soul Food"), and ``disambiguator`` returns it ("film"). Pure functions, standard library
only, so a tool server can use them without loading the rest of the package.
"""

from __future__ import annotations

import re

FEVER_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "-COLON-": ":"}
_DISAMBIGUATOR = re.compile(r"\s*\(([^)]*)\)\s*$")


def unescape_fever(text: str) -> str:
    """FEVER's escaped brackets and colons back to the characters: ``Soul_Food_-LRB-film-RRB-`` -> ``Soul_Food_(film)``."""
    for escaped, plain in FEVER_ESCAPES.items():
        text = text.replace(escaped, plain)
    return text


_DOUBLE_QUOTES = re.compile(r"[\"“”„«»]")


def normalise_entity(name: str) -> str:
    """One key per entity: FEVER escapes undone, double quotes dropped ('"Freeway" Rick Ross' is Freeway Rick Ross),
    case and spaces folded, a leading article dropped."""
    name = _DOUBLE_QUOTES.sub(" ", unescape_fever(name).replace("``", " ").replace("''", " "))
    name = re.sub(r"[\s_]+", " ", name).strip().casefold()
    return re.sub(r"^(the|a|an)\s+", "", name)


def without_disambiguator(title: str) -> str:
    """``Soul Food (film)`` -> ``Soul Food``: the disambiguator is not part of the name."""
    return _DISAMBIGUATOR.sub("", title).strip()


def disambiguator(title: str) -> str:
    """``Daag (1973 film)`` -> ``1973 film``; empty when the title has none."""
    found = _DISAMBIGUATOR.search(title)
    return found.group(1) if found else ""
