"""Evidence memory keyed by entity, behind LangGraph's ``BaseStore`` (its SQLite store by default).

Layout in the store (namespace labels may not contain ".", so entity namespaces use a digest):

* ``("mermaid", "items")``              key = evidence id  → :class:`MemoryRecord` as JSON
* ``("mermaid", "entity", <digest>)``   key = evidence id  → ``{"entity": name}`` (the entity index)
* ``("mermaid", "aliases")``            key = alias        → ``{"entities": [canonical, …]}``
* ``("mermaid", "stats")``              key = "veracity"   → running count / sum / sum of squares
* ``("mermaid", "lookups")``            key = lookup digest → :class:`LookupRecord` as JSON

Entities are normalised (case, underscores, FEVER escapes, a leading article); a page title, its
FEVER page id and the title without its disambiguator ("Soul Food (film)" → "soul food") are aliases
that resolve to the canonical key(s). Values are plain JSON with a schema version (LangGraph's stores
keep JSON; nothing is ever pickled).

Recall: candidates by entity key, ranked by word overlap with the claim, kept only when their
veracity v ≥ τ = μ_v − γ·σ_v over the store. Remember: new evidence gets an initial veracity from
source reputation, stance confidence and consistency with the other items gathered for the claim
(remembered ones included); evidence seen again counts as a passed re-check.

Lookups: every tool call the executor made (server, tool, normalised arguments) is remembered with
what it returned — the passages, or nothing — where from (the server and its source: a corpus
fingerprint, or a live source's name) and until when (:class:`LookupPolicy`: 30 days for a local
corpus, 1 for live sources). A later claim that plans the same call within that time gets the
remembered answer instead of calling the tool; a changed corpus has another fingerprint, so its
lookups are never served from an older corpus. Expired lookups are ignored and removed by
:meth:`EvidenceMemory.prune_lookups` (``memory revalidate``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import time
import uuid
from typing import Literal

from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchItem
from pydantic import BaseModel, Field

from mermaid_verifier.models import Evidence, Stance
from mermaid_verifier.names import normalise_entity, without_disambiguator
from mermaid_verifier.weighing.scoring import (
    ReliabilityConfig,
    ScoredItem,
    SourceKind,
    VeracityConfig,
    consensus,
    initial_veracity,
    uncertainty,
    updated_veracity,
)
from mermaid_verifier.weighing.topicality import entities_mentioned

SCHEMA_VERSION = 1
ITEMS = ("mermaid", "items")
STATS = ("mermaid", "stats")  # one veracity-sum record per writer (see EvidenceMemory._add_to_stats)
COMPACTED_STATS = "veracity-compacted"  # where compact_stats folds the records of writers gone quiet
QUIET_WRITER_SECONDS = 3600.0  # a writer's record untouched this long is folded into the compacted one
LOOKUPS = ("mermaid", "lookups")
DAY = 86_400.0
HISTORY_LENGTH = 10
RECALL_CANDIDATES = 200
_WORD = re.compile(r"\w+")
_STOP = frozenset("a an the of in on at to for by with and or is was are were be been it its as from".split())


def aliases_of(title: str, page: str | None) -> set[str]:
    """Keys under which a page is also known: its title, page id, and title without disambiguator."""
    names = {normalise_entity(title), normalise_entity(without_disambiguator(title))}
    if page:
        names.add(normalise_entity(page))
    return {n for n in names if n}


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:20]


def entity_namespace(entity: str) -> tuple[str, ...]:
    """Where the ids of the items about ``entity`` are kept: one key per item."""
    return ("mermaid", "entity", _digest(entity))


def alias_namespace(alias: str) -> tuple[str, ...]:
    """Where the entities a name stands for are kept: one key per entity, so two writers adding
    different entities to one name never overwrite each other."""
    return ("mermaid", "alias", _digest(alias))


def alias_ops(alias: str, targets: set[str]) -> list[PutOp]:
    return [PutOp(alias_namespace(alias), _digest(target), {"entity": target}) for target in sorted(targets)]


def source_kind_of(evidence: Evidence) -> SourceKind:
    return evidence.source_kind or SourceKind.LOCAL_CORPUS


class CheckRecord(BaseModel):
    at: float
    kind: Literal["write", "seen-again", "revalidate", "review", "import"]
    observed: float = Field(ge=0, le=1, description="v̂: what the check said about the item")
    veracity: float = Field(ge=0, le=1, description="v after the check")
    note: str = ""


class MemoryRecord(BaseModel):
    """One remembered evidence item with its trust bookkeeping."""

    schema_version: int = SCHEMA_VERSION
    id: str
    text: str
    title: str
    source: str
    source_kind: SourceKind = SourceKind.LOCAL_CORPUS
    corpus: str | None = None
    origin: str | None = None  # Evidence.origin: recalled only while that corpus (or live source) is in use
    page: str | None = None
    line: int | None = None
    url: str | None = None
    entities: list[str]
    retrieved_at: float
    published_at: float | None = None
    veracity: float = Field(ge=0, le=1)
    uncertainty: float = Field(ge=0, le=1)
    access_count: int = 0
    last_access: float | None = None
    history: list[CheckRecord] = Field(default_factory=list)

    def to_evidence(self) -> Evidence:
        return Evidence(
            id=self.id,
            source=self.source,
            source_kind=self.source_kind,
            corpus=self.corpus,
            origin=self.origin,
            title=self.title,
            text=self.text,
            page=self.page,
            line=self.line,
            url=self.url,
            from_memory=True,
            retrieved_at=self.retrieved_at,
            published_at=self.published_at,
            veracity=self.veracity,
        )

    def checked(self, kind: str, observed: float, config: VeracityConfig, at: float, note: str = "") -> MemoryRecord:
        """This record after a check that observed v̂ = ``observed``: v ← α·v + (1−α)·v̂."""
        veracity = updated_veracity(self.veracity, observed, config)
        history = self.history + [CheckRecord(at=at, kind=kind, observed=observed, veracity=veracity, note=note)]
        return self.model_copy(update={"veracity": veracity, "history": history[-HISTORY_LENGTH:]})


class RecallResult(BaseModel):
    items: list[Evidence]
    candidates: int
    threshold: float
    rejected_low_veracity: int


class LookupPolicy(BaseModel):
    """How long a remembered lookup is served: local corpora change rarely (and a change is seen by
    their fingerprint), live sources may change any day. 0 days: such lookups are not remembered."""

    local_days: float = Field(default=30.0, ge=0)
    live_days: float = Field(default=1.0, ge=0)

    def ttl_seconds(self, source: str) -> float:
        return (self.local_days if is_local_source(source) else self.live_days) * DAY


def is_local_source(source: str) -> bool:
    """A source id of a local corpus (``corpus:<fingerprint>``) rather than a live service."""
    return source.startswith("corpus:")


def normalised_arguments(arguments: dict) -> dict:
    """Tool arguments as compared between lookups: strings case-folded with whitespace collapsed."""
    return {k: " ".join(v.casefold().split()) if isinstance(v, str) else v for k, v in sorted(arguments.items())}


def lookup_key(server: str, tool: str, arguments: dict, source: str) -> str:
    """The store key of one lookup: the same call to the same source (corpus fingerprint included)."""
    text = json.dumps([server, tool, source, normalised_arguments(arguments)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(text.encode()).hexdigest()[:24]


class LookupRecord(BaseModel):
    """One tool call the executor made and what it returned (the tool's structured result, JSON)."""

    schema_version: int = SCHEMA_VERSION
    key: str
    server: str
    tool: str
    arguments: dict = Field(description="normalised (see normalised_arguments)")
    source: str = Field(description="what the server served: 'corpus:<fingerprint>' or a live source's name")
    looked_up_at: float
    expires_at: float
    passage_ids: list[str] = Field(default_factory=list, description="empty: the lookup found nothing")
    result: dict = Field(default_factory=dict, description="the tool's structured result, replayed as is")

    @property
    def found_nothing(self) -> bool:
        return not self.passage_ids

    def expired(self, now: float) -> bool:
        return now >= self.expires_at

    def describe(self) -> str:
        """``local-corpus.search("tilda swinton is a vegan.")``"""
        main = next((v for k, v in self.arguments.items() if k in ("query", "title")), None)
        shown = (
            json.dumps(main, ensure_ascii=False) if main is not None else json.dumps(self.arguments, ensure_ascii=False)
        )
        return f"{self.server}.{self.tool}({shown})"


def _overlap(claim_words: set[str], text: str) -> float:
    words = {w for w in _WORD.findall(text.casefold()) if w not in _STOP}
    return len(claim_words & words) / (len(claim_words) or 1)


class EvidenceMemory:
    """Entity-keyed evidence with veracity, on any LangGraph ``BaseStore``."""

    def __init__(
        self,
        store: BaseStore,
        *,
        veracity: VeracityConfig | None = None,
        reliability: ReliabilityConfig | None = None,
        clock=time.time,
        lookups: LookupPolicy | None = None,
    ):
        self.store = store
        self.veracity_config = veracity or VeracityConfig()
        self.reliability_config = reliability or ReliabilityConfig()
        self.lookup_policy = lookups or LookupPolicy()
        self.clock = clock
        self._stats_key = f"veracity-{uuid.uuid4().hex[:16]}"  # this writer's own share of the statistics
        self._stats_lock = asyncio.Lock()

    # ------------------------------------------------------------------ reading

    async def _canonical_keys(self, entities: list[str]) -> list[str]:
        names = list(dict.fromkeys(normalise_entity(e) for e in entities if normalise_entity(e)))
        keys = set(names)
        for name in names:
            keys.update(hit.value["entity"] for hit in await self.store.asearch(alias_namespace(name), limit=100))
        return sorted(keys)

    async def _item_ids(self, keys: list[str]) -> list[str]:
        ids: dict[str, None] = {}
        for key in keys:
            for hit in await self.store.asearch(entity_namespace(key), limit=RECALL_CANDIDATES):
                ids.setdefault(hit.key, None)
        return list(ids)

    async def records(self, ids: list[str]) -> list[MemoryRecord]:
        items = await self.store.abatch([GetOp(ITEMS, i) for i in ids])
        return [MemoryRecord.model_validate(item.value) for item in items if isinstance(item, Item)]

    async def threshold(self) -> float:
        """τ = μ_v − γ·σ_v over every stored item."""
        count, total, squares = await self._veracity_sums()
        if count < self.veracity_config.min_store_for_threshold:
            return 0.0
        mean = total / count
        sigma = math.sqrt(max(squares / count - mean * mean, 0.0))
        return min(max(mean - self.veracity_config.gamma * sigma, 0.0), 1.0)

    async def recall(
        self, entities: list[str], claim: str = "", limit: int = 20, origins: set[str] | None = None
    ) -> RecallResult:
        """Stored evidence about these entities that is trusted enough (v ≥ τ), best match first.

        With ``origins`` (the sources the run uses: ``corpus:<fingerprint>``, live source names), only
        items those served are recalled: verifying against another corpus never reuses evidence from
        this one, nor from an earlier version of the same file."""
        records = await self.records(await self._item_ids(await self._canonical_keys(entities)))
        if origins is not None:
            records = [r for r in records if r.origin in origins]
        tau = await self.threshold()
        trusted = [r for r in records if r.veracity >= tau]
        claim_words = {w for w in _WORD.findall(claim.casefold()) if w not in _STOP}
        trusted.sort(key=lambda r: (_overlap(claim_words, f"{r.title} {r.text}"), r.retrieved_at), reverse=True)
        chosen = trusted[:limit]
        now = self.clock()
        if chosen:
            await self.store.abatch(
                [
                    PutOp(
                        ITEMS,
                        r.id,
                        r.model_copy(update={"access_count": r.access_count + 1, "last_access": now}).model_dump(
                            mode="json"
                        ),
                    )
                    for r in chosen
                ]
            )
        return RecallResult(
            items=[r.to_evidence() for r in chosen],
            candidates=len(records),
            threshold=tau,
            rejected_low_veracity=len(records) - len(trusted),
        )

    # ------------------------------------------------------------------ writing

    async def _veracity_sums(self) -> tuple[int, float, float]:
        """(count, Σv, Σv²) over every stored item: the sum of every writer's record."""
        count, total, squares, offset = 0, 0.0, 0.0, 0
        while page := await self.store.asearch(STATS, limit=1000, offset=offset):
            for item in page:
                count, total, squares = (
                    count + item.value["count"],
                    total + item.value["sum"],
                    squares + item.value["sum_squares"],
                )
            offset += len(page)
        return count, total, squares

    async def _add_to_stats(self, removed: list[float], added: list[float]) -> None:
        """Add a write's change to this writer's own record: no other process writes it, so concurrent
        writers never lose each other's counts (the lock orders this process's own claims)."""
        async with self._stats_lock:
            stats = await self.store.aget(STATS, self._stats_key)
            value = stats.value if stats else {"count": 0, "sum": 0.0, "sum_squares": 0.0}
            value = {
                "count": value["count"] - len(removed) + len(added),
                "sum": value["sum"] - sum(removed) + sum(added),
                "sum_squares": value["sum_squares"] - sum(v * v for v in removed) + sum(v * v for v in added),
                "updated_at": self.clock(),
            }
            await self.store.aput(STATS, self._stats_key, value)

    async def compact_stats(self, quiet_seconds: float = QUIET_WRITER_SECONDS) -> int:
        """Fold the statistics records of writers quiet for ``quiet_seconds`` into one, recounted from
        the items themselves; the number of records folded.

        The records do not grow by one per run for ever, and any drift (two writers updating the same
        item at once each subtract its old veracity) is corrected: the folded record is set so that
        it plus the records of writers still active add up to the exact sums over the items now.
        A writer whose record was folded and that writes again starts a fresh one (its change is added
        on top, nothing counted twice). Run it from one upkeep job at a time."""
        now = self.clock()
        veracities = [record.veracity for record in await self.all_records()]
        quiet: list[SearchItem] = []
        active: list[SearchItem] = []
        offset = 0
        while page := await self.store.asearch(STATS, limit=1000, offset=offset):
            for item in page:
                if item.key == COMPACTED_STATS:
                    continue
                is_quiet = item.key != self._stats_key and now - item.value.get("updated_at", 0.0) >= quiet_seconds
                (quiet if is_quiet else active).append(item)
            offset += len(page)
        if not quiet:
            return 0
        folded = {
            "count": len(veracities) - sum(item.value["count"] for item in active),
            "sum": sum(veracities) - sum(item.value["sum"] for item in active),
            "sum_squares": sum(v * v for v in veracities) - sum(item.value["sum_squares"] for item in active),
            "updated_at": now,
        }
        await self.store.abatch(
            [PutOp(STATS, COMPACTED_STATS, folded), *(PutOp(STATS, item.key, None) for item in quiet)]
        )
        return len(quiet)

    async def _link(self, record: MemoryRecord, keys: set[str], aliases: set[str]) -> None:
        ops = [PutOp(entity_namespace(key), record.id, {"entity": key}) for key in sorted(keys)]
        for alias in sorted(aliases):
            ops += alias_ops(alias, {normalise_entity(record.title)})
        await self.store.abatch(ops)

    def _initial_record(self, item: Evidence, entities: list[str], consistency: float, now: float) -> MemoryRecord:
        probs = item.stance_probabilities or {}
        stance_confidence = max(probs.get(Stance.SUPPORTS.value, 0.0), probs.get(Stance.REFUTES.value, 0.0))
        reputation = self.reliability_config.source_priors[source_kind_of(item)]
        veracity = initial_veracity(reputation, stance_confidence, consistency, self.veracity_config)
        return MemoryRecord(
            id=item.id,
            text=item.text,
            title=item.title,
            source=item.source,
            source_kind=source_kind_of(item),
            corpus=item.corpus,
            origin=item.origin,
            page=item.page,
            line=item.line,
            url=item.url,
            entities=entities,
            retrieved_at=item.retrieved_at or now,
            published_at=item.published_at,
            veracity=veracity,
            uncertainty=uncertainty(list(probs.values())) if probs else 1.0,
            history=[
                CheckRecord(
                    at=now,
                    kind="write",
                    observed=veracity,
                    veracity=veracity,
                    note=f"reputation {reputation:.2f}, stance {stance_confidence:.2f}, consistency {consistency:.2f}",
                )
            ],
        )

    async def remember(
        self, claim_entities: list[str], evidence: list[Evidence], gathered: list[Evidence] | None = None
    ) -> int:
        """Store ``evidence`` under the claim entities it mentions and its own title.

        ``gathered`` is every item the claim was judged on (remembered ones included); an item's
        consistency is its stance consensus among them. Returns the number of items written."""
        gathered = gathered if gathered is not None else evidence
        scored = [
            ScoredItem(
                source_kind_of(e),
                0.0,
                (e.stance_probabilities or {}).get("supports", 0.0),
                (e.stance_probabilities or {}).get("refutes", 0.0),
            )
            for e in gathered
        ]
        position = {e.id: i for i, e in enumerate(gathered)}
        now = self.clock()
        existing = {r.id: r for r in await self.records([e.id for e in evidence])}
        removed, added = [], []
        # An item from memory (recalled, or a remembered lookup's passage) was not read from its source
        # again: it is added when new, but an existing record gets no "seen-again" check from it.
        evidence = [e for e in evidence if not (e.from_memory and e.id in existing)]
        for item in evidence:
            mentioned = entities_mentioned(item, claim_entities)
            keys = {normalise_entity(e) for e in mentioned} | {normalise_entity(item.title)}
            keys.discard("")
            old = existing.get(item.id)
            if old is not None:  # retrieved again from its source: a passed check
                record = old.checked("seen-again", 1.0, self.veracity_config, now).model_copy(
                    update={"retrieved_at": now, "entities": sorted(set(old.entities) | keys)}
                )
                removed.append(old.veracity)
            else:
                consistency = consensus(scored, position[item.id]) if item.id in position else 0.5
                record = self._initial_record(item, sorted(keys), consistency, now)
            added.append(record.veracity)
            await self.store.aput(ITEMS, record.id, record.model_dump(mode="json"))
            await self._link(record, keys, aliases_of(item.title, item.page))
        if evidence:
            await self._add_to_stats(removed, added)
        return len(evidence)

    async def replace(self, record: MemoryRecord) -> None:
        """Write back a record whose veracity changed (revalidation, review)."""
        old = await self.store.aget(ITEMS, record.id)
        await self.store.aput(ITEMS, record.id, record.model_dump(mode="json"))
        await self._add_to_stats([old.value["veracity"]] if old else [], [record.veracity])

    # ------------------------------------------------------------------ lookups

    async def recall_lookup(self, server: str, tool: str, arguments: dict, source: str | None) -> LookupRecord | None:
        """The remembered answer to this call, when made to the same source and not expired."""
        if not source:
            return None
        found = await self.store.aget(LOOKUPS, lookup_key(server, tool, arguments, source))
        if found is None:
            return None
        record = LookupRecord.model_validate(found.value)
        if record.source != source or record.expired(self.clock()):
            return None
        return record

    async def remember_lookup(
        self, server: str, tool: str, arguments: dict, source: str | None, result: dict | None
    ) -> LookupRecord | None:
        """Remember that this call was made and what it returned (``result``: the tool's structured
        result). Nothing is written without a source id or when its TTL is 0."""
        ttl = self.lookup_policy.ttl_seconds(source) if source else 0.0
        if source is None or ttl <= 0 or result is None:
            return None
        now = self.clock()
        key = lookup_key(server, tool, arguments, source)
        record = LookupRecord(
            key=key,
            server=server,
            tool=tool,
            arguments=normalised_arguments(arguments),
            source=source,
            looked_up_at=now,
            expires_at=now + ttl,
            passage_ids=[str(p.get("id")) for p in result.get("passages", []) if isinstance(p, dict)],
            result=result,
        )
        await self.store.aput(LOOKUPS, key, record.model_dump(mode="json"))
        return record

    async def _all_values(self, namespace: tuple[str, ...], page_size: int = 1000) -> list[dict]:
        """Every value stored in ``namespace``, read page by page."""
        values, offset = [], 0
        while True:
            page = await self.store.asearch(namespace, limit=page_size, offset=offset)
            values += [item.value for item in page]
            if len(page) < page_size:
                return values
            offset += page_size

    async def all_lookups(self) -> list[LookupRecord]:
        return [LookupRecord.model_validate(value) for value in await self._all_values(LOOKUPS)]

    async def prune_lookups(self) -> int:
        """Delete the expired lookups; returns how many."""
        now = self.clock()
        expired = [r.key for r in await self.all_lookups() if r.expired(now)]
        if expired:
            await self.store.abatch([PutOp(LOOKUPS, key, None) for key in expired])
        return len(expired)

    # ------------------------------------------------------------------ upkeep and inspection

    async def all_records(self) -> list[MemoryRecord]:
        return [MemoryRecord.model_validate(value) for value in await self._all_values(ITEMS)]

    async def show(self, entity: str) -> list[MemoryRecord]:
        """Every record stored under ``entity`` (or an alias of it), whatever its veracity."""
        return await self.records(await self._item_ids(await self._canonical_keys([entity])))

    async def summary(self) -> dict:
        records, now = await self.all_records(), self.clock()
        veracities = [r.veracity for r in records]
        return {
            "items": len(records),
            "entities": len({e for r in records for e in r.entities}),
            "mean_veracity": round(sum(veracities) / len(veracities), 4) if veracities else None,
            "recall_threshold": round(await self.threshold(), 4),
            "by_source": {s: sum(r.source == s for r in records) for s in sorted({r.source for r in records})},
            "never_recalled": sum(r.access_count == 0 for r in records),
            "lookups": sum(not r.expired(now) for r in await self.all_lookups()),
        }

    async def import_records(self, records: list[MemoryRecord], chunk: int = 1000) -> tuple[int, int]:
        """Add exported records (replacing any with the same id), re-linking entities and aliases;
        written in batches of ``chunk`` records. Returns (records imported, of which replaced one already held)."""
        replaced_count = 0
        for start in range(0, len(records), chunk):
            part = records[start : start + chunk]
            replaced = await self.records([r.id for r in part])
            ops: list[PutOp] = []
            alias_targets: dict[str, set[str]] = {}
            for record in part:
                ops.append(PutOp(ITEMS, record.id, record.model_dump(mode="json")))
                for key in sorted(set(record.entities) | {normalise_entity(record.title)}):
                    ops.append(PutOp(entity_namespace(key), record.id, {"entity": key}))
                for alias in aliases_of(record.title, record.page):
                    alias_targets.setdefault(alias, set()).add(normalise_entity(record.title))
            for alias, targets in sorted(alias_targets.items()):
                ops += alias_ops(alias, targets)
            await self.store.abatch(ops)
            await self._add_to_stats([r.veracity for r in replaced], [r.veracity for r in part])
            replaced_count += len(replaced)
        return len(records), replaced_count

    async def clear(self) -> int:
        """Delete everything this memory stored; returns the number of items removed."""
        removed = 0
        for namespace in await self.store.alist_namespaces(prefix=("mermaid",), limit=1_000_000):
            while keys := [item.key for item in await self.store.asearch(namespace, limit=1000)]:
                await self.store.abatch([PutOp(namespace, key, None) for key in keys])
                removed += len(keys) if namespace == ITEMS else 0
        return removed
