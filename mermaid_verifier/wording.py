"""How much of a claim's own wording an evidence item repeats: an input of the judge's confidence.

The stance reader's probabilities say how strongly an item reads for a side, not whether the item speaks
of the claim's detail: on pages the corpus covers, a sentence about the claim's subject but not its detail
can read 0.95 REFUTES. Whether the item repeats the claim's words beyond the names it shares (its
relation and object: "starred", "Titanic"; "born", "1847") tells the two apart where the reader cannot,
so the confidence model reads it (``agents/judge.py``, ``READING_FEATURES``).

Words are lower-cased, stemmed with the Snowball English stemmer (PyStemmer, which ``bm25s`` already
uses) and stripped of ``bm25s``'s English stopwords; the words of the claim's entities are left out, since
every item found for the claim names them.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN

from mermaid_verifier.names import normalise_entity

_STOPWORDS = frozenset(STOPWORDS_EN)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def content_words(text: str) -> set[str]:
    """The stemmed words of ``text`` that are not stopwords (FEVER escapes and case folded)."""
    words = [w for w in re.findall(r"\w+", normalise_entity(text)) if w not in _STOPWORDS]
    return set(_stemmer().stemWords(words))


def claim_detail(claim: str, entities: list[str]) -> set[str]:
    """The claim's content words outside its entities: what it says about them."""
    named = set().union(*(content_words(e) for e in entities)) if entities else set()
    return content_words(claim) - named


def shared_share(detail: set[str], text: str) -> float:
    """The share of ``detail`` that ``text`` repeats (1.0 when the claim says nothing beyond its names)."""
    if not detail:
        return 1.0
    return len(detail & content_words(text)) / len(detail)


def numbers_in(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))
