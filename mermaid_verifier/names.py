"""What a page title or entity *names*: one place for the folding that memory keys, topicality, the
judge's topic coverage, the corpus index's same-name lookup and the executor all rely on.

``normalise_entity`` folds FEVER escapes, case, spaces and a leading article ("The_Beatles" ->
"beatles"); ``without_disambiguator`` drops a trailing parenthesised disambiguator ("Soul Food
(film)" -> "Soul Food"), and ``disambiguator`` returns it ("film"). Pure functions, standard library
only, so a tool server can use them without loading the rest of the package.
"""

from __future__ import annotations

import re

_FEVER_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-COLON-": ":"}
_DISAMBIGUATOR = re.compile(r"\s*\(([^)]*)\)\s*$")


def normalise_entity(name: str) -> str:
    """One key per entity: FEVER escapes undone, case and spaces folded, a leading article dropped."""
    for escaped, plain in _FEVER_ESCAPES.items():
        name = name.replace(escaped, plain)
    name = re.sub(r"[\s_]+", " ", name).strip().casefold()
    return re.sub(r"^(the|a|an)\s+", "", name)


def without_disambiguator(title: str) -> str:
    """``Soul Food (film)`` -> ``Soul Food``: the disambiguator is not part of the name."""
    return _DISAMBIGUATOR.sub("", title).strip()


def disambiguator(title: str) -> str:
    """``Daag (1973 film)`` -> ``1973 film``; empty when the title has none."""
    found = _DISAMBIGUATOR.search(title)
    return found.group(1) if found else ""
