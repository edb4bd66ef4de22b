"""The evidence passages the live sources return: :class:`EvidencePassage`, the keys the local corpus server
returns plus ``url``, ``published_at`` and ``authors``, so the executor reads every source alike.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from pydantic import Field

from mermaid_verifier.tools.passage_record import PassageRecord

logger = logging.getLogger(__name__)


class EvidencePassage(PassageRecord):
    """One evidence passage: the local corpus server's keys plus where and when it was published."""

    score: float | None = Field(
        default=None,
        description="Rank-based relevance for search results (1/(1+rank)); null when not from a search.",
    )
    url: str = Field(description="Web page of the source.")
    published_at: float | None = Field(
        default=None, description="Unix time (seconds) the source says it was published, if known."
    )
    authors: list[str] | None = Field(default=None, description="Authors, when the source lists them.")


def rank_score(rank: int) -> float:
    """Search engines here give a ranking, not a score: 1.0, 0.5, 0.3333, ..."""
    return round(1.0 / (1 + rank), 4)


def unix_time(moment: datetime | None) -> float | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def collapse(text: str | None) -> str:
    return " ".join((text or "").split())
