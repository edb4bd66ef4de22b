"""The events of a text job, in the order a job gives them: its ``extraction`` (the claims and the sentences
dropped), one event per claim as it is decided (``claim`` against open sources, ``grounded`` against given
documents), then the result (``summary``, or ``grounding``).

These records are what every way in reads from :meth:`mermaid_verifier.texts.TextJob.events`: the command line
for its progress line, the HTTP service as its NDJSON stream (each event is one line, :meth:`TextEvent.line`),
the MCP server for its progress notifications. A stream ends with a :class:`TextDone`, whose ``result`` is the
whole record the job gives (``TextCheckResult`` or ``GroundingResult``).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Literal

from pydantic import BaseModel, Field

from mermaid_verifier.models import (
    CheckedClaim,
    DroppedSentence,
    ExtractedClaim,
    GroundedClaim,
    GroundingResult,
    TextCheckResult,
    TextClaims,
    TextSummary,
)


class TextEvent(BaseModel):
    """One event of a text job's stream."""

    event: str

    def line(self) -> bytes:
        """The event as one NDJSON line."""
        return self.model_dump_json().encode() + b"\n"


class ExtractionEvent(TextEvent):
    """The text's claims and the sentences with nothing to check: the stream's first event."""

    event: Literal["extraction"] = "extraction"
    claims: list[ExtractedClaim]
    dropped: list[DroppedSentence]
    extractor: str
    fallback: str | None = None

    @classmethod
    def of(cls, extraction: TextClaims) -> ExtractionEvent:
        return cls(
            claims=extraction.claims,
            dropped=extraction.dropped,
            extractor=extraction.extractor,
            fallback=extraction.fallback,
        )


class ClaimDone(TextEvent):
    """One claim decided (in the order they are decided, not the text's)."""

    @classmethod
    @abstractmethod
    def of(cls, item: Any) -> ClaimDone:
        """The event of a claim decided."""

    @property
    @abstractmethod
    def item(self) -> CheckedClaim | GroundedClaim:
        """The claim and what was decided for it."""

    @abstractmethod
    def outcome(self) -> str:
        """What was decided and for which claim, in one line ("SUPPORTS: …", "not stated: …")."""


class ClaimEvent(ClaimDone):
    """A claim verified against open sources."""

    event: Literal["claim"] = "claim"
    checked: CheckedClaim

    @classmethod
    def of(cls, item: CheckedClaim) -> ClaimEvent:
        return cls(checked=item)

    @property
    def item(self) -> CheckedClaim:
        return self.checked

    def outcome(self) -> str:
        return f"{self.checked.result.verdict}: {self.checked.claim.text}"


class GroundedEvent(ClaimDone):
    """A claim read against the given documents: supported, contradicted, not stated or undecided."""

    event: Literal["grounded"] = "grounded"
    grounded: GroundedClaim

    @classmethod
    def of(cls, item: GroundedClaim) -> GroundedEvent:
        return cls(grounded=item)

    @property
    def item(self) -> GroundedClaim:
        return self.grounded

    def outcome(self) -> str:
        return f"{self.grounded.status}: {self.grounded.claim.text}"


class TextDone(TextEvent):
    """The job's result: the stream's last event."""

    result: TextCheckResult | GroundingResult

    @classmethod
    @abstractmethod
    def of(cls, result: Any) -> TextDone:
        """The event of the job's result."""


class SummaryEvent(TextDone):
    """A text's claims verified: the summary goes on the wire (its claims went before it, one event each); the
    whole result stays with the event for callers in the same process."""

    event: Literal["summary"] = "summary"
    result: TextCheckResult = Field(exclude=True)
    summary: TextSummary

    @classmethod
    def of(cls, result: TextCheckResult) -> SummaryEvent:
        return cls(result=result, summary=result.summary)


class GroundingEvent(TextDone):
    """A text read against its documents: each sentence labelled, with the passage that backs it."""

    event: Literal["grounding"] = "grounding"
    result: GroundingResult

    @classmethod
    def of(cls, result: GroundingResult) -> GroundingEvent:
        return cls(result=result)
