"""Is an evidence item about what the claim names? How much it may count for the verdict.

A page is about its title: a sentence from "Tim Hill (director)" settles nothing about Marcus
Bentley, however strongly the stance model reads "is a director" into it. Each item gets a
topicality weight that the judge multiplies into its side probabilities (and the executor into
its "decisive" test):

* **1** — its title names something the claim names: the title (without its disambiguator) occurs
  in the claim, or one of the claim's entities occurs in the title;
* ``mention_only`` — only its text mentions a claim entity;
* ``off_topic`` — neither.

When no item of the set is about the claim at all (nothing it names could be matched — a claim
without named entities, paper titles that never occur in a claim) every item keeps weight 1: the
test needs something to match against before it may discount anything.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from mermaid_verifier.models import Evidence
from mermaid_verifier.names import normalise_entity, without_disambiguator


def entities_mentioned(evidence: Evidence, entities: list[str]) -> list[str]:
    """The claim entities this item is about: named in its title or its text."""
    haystack = normalise_entity(f"{evidence.title} {evidence.text}")
    return [e for e in entities if normalise_entity(e) and normalise_entity(e) in haystack]


class Topicality(BaseModel):
    enabled: bool = True
    mention_only: float = Field(
        0.5, ge=0, le=1, description="weight of an item whose text, not its title, names a claim entity"
    )
    off_topic: float = Field(0.0, ge=0, le=1, description="weight of an item that names nothing the claim names")

    def weights(self, evidence: list[Evidence], claim: str, entities: list[str]) -> list[float]:
        """One weight per item, in order (see the module docstring)."""
        if not self.enabled:
            return [1.0] * len(evidence)
        levels = [self._level(item, claim, entities) for item in evidence]
        if not any(level is not None for level in levels):
            return [1.0] * len(evidence)
        return [self.off_topic if level is None else level for level in levels]

    def _level(self, item: Evidence, claim: str, entities: list[str]) -> float | None:
        if titled_after_claim(item, claim, entities):
            return 1.0
        if entities_mentioned(item, entities):
            return self.mention_only
        return None


def _contains_words(haystack: str, needle: str) -> bool:
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", haystack) is not None


def titled_after_claim(item: Evidence, claim: str, entities: list[str]) -> bool:
    """The item's title names something the claim names (case and FEVER escapes folded, whole words)."""
    name = normalise_entity(without_disambiguator(item.title))
    if not name:
        return False
    if _contains_words(normalise_entity(claim), name):
        return True
    return any(_contains_words(name, normalise_entity(entity)) for entity in entities)
