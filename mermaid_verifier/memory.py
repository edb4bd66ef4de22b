"""Evidence memory keyed by entity, on diskcache, stored as JSON (never pickled).

Each key is a normalised entity name (``entity:stanley kubrick``); its value is a JSON record
``{"schema": 1, "entity": ..., "items": {evidence_id: item}}``. An item is an evidence record
(without the claim-specific stance fields) plus ``stored_at`` and ``times_recalled``.
Writes go through ``Cache.transact`` so concurrent processes do not lose updates.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import diskcache

from mermaid_verifier.models import Evidence

SCHEMA_VERSION = 1
KEY_PREFIX = "entity:"
MAX_ITEMS_PER_ENTITY = 50
_LEADING_ARTICLE = re.compile(r"^(the|a|an)\s+")
_CLAIM_SPECIFIC_FIELDS = {"stance", "stance_probabilities", "score", "from_memory", "retrieval_score"}


def normalise_entity(name: str) -> str:
    """One key per entity: case-folded, underscores and extra spaces folded, leading article dropped."""
    name = re.sub(r"[\s_]+", " ", name).strip().casefold()
    return _LEADING_ARTICLE.sub("", name)


def entities_mentioned(evidence: Evidence, entities: list[str]) -> list[str]:
    """The claim entities this evidence item is about: named in its title or its text."""
    haystack = f"{evidence.title} {evidence.text}".casefold().replace("_", " ")
    return [e for e in entities if normalise_entity(e) and normalise_entity(e) in haystack]


class EvidenceMemory:
    """Entity-keyed evidence store shared by every claim of a run (and across runs)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        # JSONDisk: values are JSON text; nothing read back from the store is ever unpickled.
        self._cache = diskcache.Cache(str(self.directory), disk=diskcache.JSONDisk, timeout=5)

    def close(self) -> None:
        self._cache.close()

    def __enter__(self) -> "EvidenceMemory":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _record(self, key: str) -> dict:
        record = self._cache.get(key)
        if not record or record.get("schema") != SCHEMA_VERSION:
            return {"schema": SCHEMA_VERSION, "entity": key[len(KEY_PREFIX):], "items": {}}
        return record

    def recall(self, entities: list[str], limit: int = 20) -> list[Evidence]:
        """Stored evidence for these entities, most recently stored first, each item once."""
        found: dict[str, dict] = {}
        for entity in entities:
            key = KEY_PREFIX + normalise_entity(entity)
            if not normalise_entity(entity) or key not in self._cache:
                continue
            for item_id, item in self._record(key)["items"].items():
                found.setdefault(item_id, item)
        ranked = sorted(found.values(), key=lambda item: item["stored_at"], reverse=True)[:limit]
        return [Evidence.model_validate({**item["evidence"], "from_memory": True}) for item in ranked]

    def remember(self, entities: list[str], evidence: list[Evidence]) -> int:
        """Store each item under the claim entities it mentions and its own title; returns writes."""
        writes = 0
        now = time.time()
        for item in evidence:
            keys = {normalise_entity(e) for e in entities_mentioned(item, entities)} | {normalise_entity(item.title)}
            stored = item.model_dump(mode="json", exclude=_CLAIM_SPECIFIC_FIELDS)
            for entity in sorted(k for k in keys if k):
                key = KEY_PREFIX + entity
                with self._cache.transact():
                    record = self._record(key)
                    record["items"][item.id] = {"evidence": stored, "stored_at": now}
                    if len(record["items"]) > MAX_ITEMS_PER_ENTITY:
                        oldest = sorted(record["items"], key=lambda i: record["items"][i]["stored_at"])
                        for item_id in oldest[: len(record["items"]) - MAX_ITEMS_PER_ENTITY]:
                            del record["items"][item_id]
                    self._cache.set(key, record)
                writes += 1
        return writes

    def entity_count(self) -> int:
        return sum(1 for key in self._cache.iterkeys() if str(key).startswith(KEY_PREFIX))

    async def arecall(self, entities: list[str], limit: int = 20) -> list[Evidence]:
        return await asyncio.to_thread(self.recall, entities, limit)

    async def aremember(self, entities: list[str], evidence: list[Evidence]) -> int:
        return await asyncio.to_thread(self.remember, entities, evidence)
