"""Veracity upkeep: re-check the most urgent remembered items against their sources.

Priority ``p = λ1·age (days) + λ2·access count`` picks the K items to re-check. A re-check asks the
item's source again (through the same MCP tools the executor uses) and turns the answer into v̂:

* the passage is still there, word for word                → v̂ = 1.0
* the page is there but the passage changed or went         → v̂ = P(current page supports the old text),
                                                               from the stance model
* the page is gone                                          → v̂ = 0.0
* the source could not be asked (server missing, tool error)→ no update; the reason is reported

then ``v ← α·v + (1−α)·v̂`` and the check is appended to the item's history.
"""

from __future__ import annotations

from pydantic import BaseModel

from mermaid_verifier.memory.evidence import EvidenceMemory, MemoryRecord
from mermaid_verifier.models import Stance
from mermaid_verifier.reader.stance import StanceModel
from mermaid_verifier.tools.toolbox import Toolbox
from mermaid_verifier.weighing.scoring import revalidation_priority

PAGE_LIMIT = 200


class Recheck(BaseModel):
    id: str
    title: str
    priority: float
    before: float
    observed: float | None
    after: float | None
    note: str


def most_urgent(
    records: list[MemoryRecord], top_k: int, memory: EvidenceMemory, now: float
) -> list[tuple[float, MemoryRecord]]:
    ranked = [(revalidation_priority(now - r.retrieved_at, r.access_count, memory.veracity_config), r) for r in records]
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    return ranked[:top_k]


async def observe(record: MemoryRecord, toolbox: Toolbox, stance: StanceModel) -> tuple[float | None, str]:
    """v̂ for one record, or ``None`` with the reason it could not be checked."""
    if not toolbox.has_tool(record.source, "get_page"):
        return None, f"source {record.source!r} is not available in this run"
    outcome = await toolbox.call(
        record.source, "get_page", {"title": record.page or record.title, "max_passages": PAGE_LIMIT}
    )
    if not outcome.ok:
        return None, f"source error: {outcome.text}"
    passages = (outcome.data or {}).get("passages", [])
    if not passages:
        return 0.0, "the page is gone from its source"
    if any(p["id"] == record.id and p["text"] == record.text for p in passages):
        return 1.0, "still in its source, unchanged"
    probabilities = await stance.aprobabilities(record.text, [(p["title"], p["text"]) for p in passages])
    best = max(p[Stance.SUPPORTS.value] for p in probabilities)
    return best, f"passage changed; the current page supports the old text at {best:.2f}"


def reachable(records: list[MemoryRecord], toolbox: Toolbox) -> list[MemoryRecord]:
    """The records whose origin this toolbox serves: an item is only ever checked against the corpus (or
    live source) it came from, never against another corpus that happens to run under the same server name."""
    origins = {source for source in toolbox.sources.values() if source}
    return [r for r in records if r.origin in origins]


async def revalidate(memory: EvidenceMemory, toolbox: Toolbox, stance: StanceModel, top_k: int) -> list[Recheck]:
    """Re-check the ``top_k`` most urgent records among those this toolbox can reach."""
    now = memory.clock()
    report = []
    for priority, record in most_urgent(reachable(await memory.all_records(), toolbox), top_k, memory, now):
        observed, note = await observe(record, toolbox, stance)
        after = None
        if observed is not None:
            updated = record.checked("revalidate", observed, memory.veracity_config, now, note)
            if observed == 1.0:
                updated = updated.model_copy(update={"retrieved_at": now})
            await memory.replace(updated)
            after = updated.veracity
        report.append(
            Recheck(
                id=record.id,
                title=record.title,
                priority=round(priority, 3),
                before=record.veracity,
                observed=observed,
                after=after,
                note=note,
            )
        )
    return report
