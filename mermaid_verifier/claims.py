"""Checks on a claim as a person typed it: its length, and whether it states something a verdict can be
about (not a question, in a script the models read); and the longest text checked whole."""

from __future__ import annotations

import re
import unicodedata

from mermaid_verifier.errors import UsageError

MAX_CLAIM_CHARS = 1000
MAX_TEXT_CHARS = 100_000  # a text checked whole (``check``, the service, the MCP server)
_QUESTION_START = re.compile(
    r"(who|whom|whose|what|when|where|which|why|how)\s+(is|are|was|were|do|does|did|has|have|"
    r"had|can|could|will|would|should|many|much)\b",
    re.IGNORECASE,
)


def check_claim_length(claim: str, name: str) -> None:
    """A :class:`UsageError` when ``claim`` is longer than :data:`MAX_CLAIM_CHARS`."""
    if len(claim) > MAX_CLAIM_CHARS:
        raise UsageError(
            f"{name} is {len(claim):,} characters long; the limit is {MAX_CLAIM_CHARS:,} "
            "(give a statement of a sentence or two, not a document)"
        )


def looks_like_question(claim: str) -> bool:
    """Ends with a question mark, or opens like one (``Who directed …``, ``How many …``)."""
    return claim.rstrip().endswith("?") or _QUESTION_START.match(claim.strip()) is not None


def mostly_non_latin(claim: str) -> bool:
    """More than half of the letters are outside the Latin script (Cyrillic, Greek, CJK, Arabic, …)."""
    letters = [char for char in claim if char.isalpha()]
    foreign = sum(1 for char in letters if not unicodedata.name(char, "").startswith("LATIN"))
    return bool(letters) and foreign > len(letters) / 2


def claim_warnings(claim: str) -> list[str]:
    """Why a verdict on ``claim`` may mean little: it asks instead of states, or it is not English."""
    warnings = []
    if looks_like_question(claim):
        warnings.append(
            "looks like a question; the verifier checks statements, so state it as one "
            "(e.g. 'Steven Spielberg directed Jaws.' rather than 'Who directed Jaws?')"
        )
    if mostly_non_latin(claim):
        warnings.append(
            "is mostly not in the Latin script; the models and sources read English, so the verdict may mean little"
        )
    return warnings
