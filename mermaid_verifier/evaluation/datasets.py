"""Labelled claim files (FEVER jsonl) and the page-disjoint split used for training and evaluation."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mermaid_verifier.claims import MAX_CLAIM_CHARS
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import Label

# Buckets of a page group's hash in [0, 100): calibration, test, validation, train.
# calibration and validation are for tuning (judge thresholds, the abstention threshold); test is
# only ever reported on; the stance model is trained on the train part only.
CALIBRATION_BUCKETS = range(0, 17)
TEST_BUCKETS = range(17, 50)
VALIDATION_BUCKETS = range(50, 60)
TRAIN_BUCKETS = range(60, 100)
PARTS = ("calibration", "test", "validation", "train")

# The longest claim accepted: a claim is a statement of a sentence or two, which is what the
# decomposer and the stance model read; longer text is a document to split into claims first.


@dataclass(frozen=True)
class LabelledClaim:
    id: str
    claim: str
    label: Label
    # Each gold evidence set is a list of (page, line); empty for NOT ENOUGH INFO.
    evidence_sets: list[list[tuple[str, int]]] = field(default_factory=list)

    @property
    def gold_pages(self) -> set[str]:
        return {page for evidence_set in self.evidence_sets for page, _ in evidence_set}


@dataclass(frozen=True)
class BadLine:
    line_number: int
    reason: str


def _evidence_sets(raw: Any) -> list[list[tuple[str, int]]]:
    sets = []
    for annotation in raw or []:
        pointers = [(str(p[2]), int(p[3])) for p in annotation if len(p) >= 4 and p[2] is not None and p[3] is not None]
        if pointers:
            sets.append(pointers)
    return sets


_SCIFACT_LABELS = {"SUPPORT": Label.SUPPORTS, "CONTRADICT": Label.REFUTES}


def _scifact_label_and_evidence(evidence: dict) -> tuple[Label, list[list[tuple[str, int]]]]:
    """SciFact: ``{doc_id: [{"sentences": [...], "label": "SUPPORT"|"CONTRADICT"}]}``; empty means NEI.

    Rationale sentences become ``(doc_id, sentence index)`` pointers, one evidence set per rationale."""
    labels, sets = set(), []
    for doc_id, rationales in evidence.items():
        for rationale in rationales:
            labels.add(_SCIFACT_LABELS[rationale["label"]])
            sets.append([(str(doc_id), int(i)) for i in rationale["sentences"]])
    if len(labels) > 1:
        raise ValueError("rationales both support and contradict the claim")
    return (labels.pop() if labels else Label.NOT_ENOUGH_INFO), sets


def _claim_from_record(record: dict, line_number: int) -> LabelledClaim:
    """One claim from a FEVER line, a SciFact line (evidence is a dict of rationales, no label) or
    a plain ``{id, claim, label}`` line."""
    evidence = record.get("evidence")
    if "label" not in record and isinstance(evidence, dict):
        label, evidence_sets = _scifact_label_and_evidence(evidence)
    else:
        label, evidence_sets = Label(record["label"]), _evidence_sets(evidence)
    claim = LabelledClaim(
        id=str(record["id"]) if record.get("id") is not None else f"line-{line_number}",  # never a real id's twin
        claim=str(record["claim"]).strip(),
        label=label,
        evidence_sets=evidence_sets,
    )
    if not claim.claim:
        raise ValueError("empty claim")
    if len(claim.claim) > MAX_CLAIM_CHARS:
        raise ValueError(f"claim of {len(claim.claim):,} characters; the limit is {MAX_CLAIM_CHARS:,}")
    return claim


def require_readable_file(path: Path, what: str) -> Path:
    """``path`` if it is a file this process can open for reading; otherwise a :class:`UsageError`
    naming ``what`` it was meant to be, the path and why it cannot be read."""
    try:
        with Path(path).open("rb"):
            return path
    except FileNotFoundError:
        raise UsageError(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{what} is a directory, not a file: {path}") from None
    except OSError as exc:
        raise UsageError(f"{what} cannot be read: {path} ({exc.strerror or exc})") from None


def json_object_lines(path: Path) -> Iterator[tuple[int, dict] | BadLine]:
    """Each non-blank line of a JSONL file as ``(line number, object)``, or a :class:`BadLine`
    saying why it is not a JSON object (``not UTF-8``, a JSON error, another JSON value)."""
    with Path(path).open("rb") as handle:
        for line_number, raw in enumerate(handle, start=1):
            if raw.strip():
                yield _json_object(line_number, raw)


def _json_object(line_number: int, raw: bytes) -> tuple[int, dict] | BadLine:
    try:
        record = orjson.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return BadLine(line_number, "not UTF-8")
    except orjson.JSONDecodeError as exc:
        return BadLine(line_number, f"JSONDecodeError: {exc}")
    if not isinstance(record, dict):
        return BadLine(line_number, f"TypeError: expected a JSON object, got {type(record).__name__}")
    return line_number, record


def read_labelled_claims(path: Path, *, unique_ids: bool = False) -> tuple[list[LabelledClaim], list[BadLine]]:
    """Read labelled claims: FEVER jsonl (``id``, ``claim``, ``label``, ``evidence`` pointers), SciFact
    claims (``evidence`` rationales, label derived from them) or plain ``{id, claim, label}``.

    Lines that are not UTF-8, not valid JSON or lack a claim/label are returned as :class:`BadLine`
    with their line numbers instead of stopping the read; so is, with ``unique_ids``, every line
    after the first that repeats a claim id.
    """
    claims: list[LabelledClaim] = []
    bad: list[BadLine] = []
    first_lines: dict[str, int] = {}
    for item in json_object_lines(path):
        if isinstance(item, BadLine):
            bad.append(item)
            continue
        line_number, record = item
        try:
            claim = _claim_from_record(record, line_number)
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            bad.append(BadLine(line_number, f"{type(exc).__name__}: {exc}"))
            continue
        if unique_ids and claim.id in first_lines:
            bad.append(BadLine(line_number, f"duplicate id {claim.id!r} (first on line {first_lines[claim.id]})"))
            continue
        first_lines.setdefault(claim.id, line_number)
        claims.append(claim)
    return claims, bad


def hash_bucket(key: str) -> int:
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % 100


def page_groups(anchor_pages: dict[str, set[str]]) -> dict[str, str]:
    """Each claim id's page group: claims sharing any anchor page are joined (union-find), and the
    group is named by its alphabetically first page (``claim:<id>`` for a claim without pages).
    FEVER's claims cluster heavily — about six claims per group — so the group, not the claim, is
    the independent unit for splits, cross-validation folds and error-rate bounds."""
    parent: dict[str, str] = {}

    def find(page: str) -> str:
        parent.setdefault(page, page)
        while parent[page] != page:
            parent[page] = parent[parent[page]]
            page = parent[page]
        return page

    for pages in anchor_pages.values():
        ordered = sorted(pages)
        if ordered:
            find(ordered[0])
        for page in ordered[1:]:
            root_a, root_b = find(ordered[0]), find(page)
            if root_a != root_b:
                parent[max(root_a, root_b)] = min(root_a, root_b)

    members: dict[str, list[str]] = {}
    for page in list(parent):
        members.setdefault(find(page), []).append(page)
    group_key = {root: min(pages) for root, pages in members.items()}
    return {
        claim_id: group_key[find(min(pages))] if pages else f"claim:{claim_id}"
        for claim_id, pages in anchor_pages.items()
    }


def page_disjoint_split(anchor_pages: dict[str, set[str]]) -> dict[str, str]:
    """Assign each claim id to ``train`` / ``validation`` / ``calibration`` / ``test`` so no page spans two parts.

    ``anchor_pages`` maps a claim id to the pages it is about (gold pages for SUPPORTS/REFUTES, the
    best-retrieved page for NOT ENOUGH INFO). A :func:`page_groups` group's split comes from the hash
    of its name, so the assignment is deterministic and independent of file order.
    """
    split: dict[str, str] = {}
    for claim_id, group in page_groups(anchor_pages).items():
        bucket = hash_bucket(group)
        split[claim_id] = (
            "calibration"
            if bucket in CALIBRATION_BUCKETS
            else "test"
            if bucket in TEST_BUCKETS
            else "validation"
            if bucket in VALIDATION_BUCKETS
            else "train"
        )
    return split


def result_anchor_pages(row: dict) -> set[str]:
    """The pages a verified claim is about, from its result row: the gold evidence pages when it has
    them, else the page of the first passage retrieved for it (the best match of its first search)."""
    gold = {page for group in row.get("gold_evidence") or [] for page, _ in group}
    if gold:
        return gold
    first = next((e.get("page") for e in row.get("evidence") or [] if e.get("page")), None)
    return {first} if first else set()


def pages_of(split: dict[str, str], anchor_pages: dict[str, set[str]], part: str) -> set[str]:
    return {page for claim_id, pages in anchor_pages.items() if split[claim_id] == part for page in pages}


def load_split_ids(path: Path) -> dict[str, str]:
    """The ``assignment`` (claim id -> part) of a split file; a :class:`UsageError` naming the file
    when it cannot be read or holds no assignment."""
    require_readable_file(path, "split file")
    try:
        assignment = orjson.loads(Path(path).read_bytes()).get("assignment")
    except (orjson.JSONDecodeError, AttributeError):
        assignment = None
    if not isinstance(assignment, dict):
        raise UsageError(f"split file {path} holds no 'assignment' object (claim id -> part)")
    return assignment


def select(claims: Iterable[LabelledClaim], split: dict[str, str], part: str) -> list[LabelledClaim]:
    return [c for c in claims if split.get(c.id) == part]


def stratified_sample(claims: list[LabelledClaim], size: int, seed: int) -> list[LabelledClaim]:
    """``size`` claims drawn without replacement, each label kept at its share of ``claims``
    (largest-remainder rounding); the same seed gives the same sample, in file order."""
    if size >= len(claims):
        return list(claims)
    by_label: dict[Label, list[int]] = {}
    for position, claim in enumerate(claims):
        by_label.setdefault(claim.label, []).append(position)
    exact = {label: size * len(positions) / len(claims) for label, positions in by_label.items()}
    quota = {label: int(share) for label, share in exact.items()}
    for label in sorted(exact, key=lambda name: (quota[name] - exact[name], name.value))[: size - sum(quota.values())]:
        quota[label] += 1
    rng = random.Random(seed)
    chosen = sorted(p for label, positions in by_label.items() for p in rng.sample(positions, quota[label]))
    return [claims[p] for p in chosen]
