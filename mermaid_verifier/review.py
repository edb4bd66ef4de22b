"""Human review of uncertain verdicts: what the reviewer is shown, what they can answer, and the
queue of paused claims a batch run leaves for later (`mermaid-verifier review`)."""

from __future__ import annotations

import time
from typing import Literal

from langgraph.store.base import BaseStore
from pydantic import BaseModel, model_validator

from mermaid_verifier.models import Evidence, Label, Verdict

QUEUE = ("mermaid", "review-queue")


class ReviewRequest(BaseModel):
    """The payload of the graph's interrupt: everything a reviewer needs to decide."""

    claim: str
    verdict: Verdict
    evidence: list[Evidence]
    searches_so_far: int


class ReviewDecision(BaseModel):
    """accept the judge's best label, override it with another, or send the executor to search more."""

    action: Literal["accept", "override", "search_more"]
    label: Label | None = None
    note: str = ""

    @model_validator(mode="after")
    def _override_needs_a_label(self) -> ReviewDecision:
        if self.action == "override" and self.label is None:
            raise ValueError("an override needs a label")
        return self


def apply_review(verdict: Verdict, decision: ReviewDecision) -> Verdict:
    """The verdict after a reviewer's accept or override (a human answer is not an abstention)."""
    note = f" ({decision.note})" if decision.note else ""
    if decision.action == "accept":
        return verdict.model_copy(
            update={"abstained": False, "reason": verdict.reason + f"; accepted by a reviewer{note}"}
        )
    assert decision.label is not None, "an override names its label (ReviewDecision checks it)"
    return verdict.model_copy(
        update={
            "label": decision.label,
            "abstained": False,
            "confidence": 1.0,
            "reason": f"set to {decision.label.value} by a reviewer{note} (the judge said {verdict.label.value} "
            f"at {verdict.confidence:.2f})",
        }
    )


class QueuedReview(BaseModel):
    thread_id: str
    claim: str
    queued_at: float


async def enqueue(store: BaseStore, thread_id: str, claim: str) -> None:
    await store.aput(
        QUEUE, thread_id, QueuedReview(thread_id=thread_id, claim=claim, queued_at=time.time()).model_dump()
    )


async def pending(store: BaseStore) -> list[QueuedReview]:
    items = await store.asearch(QUEUE, limit=100_000)
    return sorted((QueuedReview.model_validate(i.value) for i in items), key=lambda q: q.queued_at)


async def done(store: BaseStore, thread_id: str) -> None:
    await store.adelete(QUEUE, thread_id)
