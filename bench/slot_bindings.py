"""How often, and how rightly, a claim's slot is found bound elsewhere in its evidence: the judge's and grounding's
``slot_conflicts`` check (:func:`mermaid_verifier.agents.slots.bound_slot` for a single-valued slot given another
name, :func:`~mermaid_verifier.agents.slots.dated_elsewhere` for a verb's year written as another thing's) on
labelled (claim, evidence) pairs, without the reader. A flag of another name should fall on REFUTES pairs only, a
flag of another owner or of a year held by another thing never on SUPPORTS pairs.

    python -m bench.slot_bindings PAIRS.jsonl [PAIRS.jsonl ...] --out bench/results/slot_bindings.json

Each file's rows need ``claim``, ``evidence`` and ``label`` (the pair files of ``training/build_pairs.py`` and its
pair families). Printed and written per file: the pairs, the claims with a single-valued slot or a verb's year, and
the flags of each kind by gold label, with the first few flags that fall on another label.

    python -m bench.slot_bindings --fever-results runs/paper-dev/results.jsonl

reads a ``fever`` run's saved evidence instead: the items its reader read as supporting (P(supports) above
P(refutes), from the judge's ``SLOT_READ_FROM``), where the check takes or turns support, by the claim's gold label.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from mermaid_verifier.agents.judge import SLOT_READ_FROM
from mermaid_verifier.agents.slots import BoundSlot, ClaimReader
from mermaid_verifier.errors import ResultsError
from mermaid_verifier.reader.model_check import machine_record

WRONG = {
    "value": {"SUPPORTS", "NOT ENOUGH INFO"},
    "owner": {"SUPPORTS"},
    "holder": {"SUPPORTS"},
}  # a flag of that kind on these is wrong


def _rows(path: Path, fields: tuple[str, ...], what: str) -> Iterator[tuple[int, dict, tuple]]:
    """Each row of a JSONL file with its line number and the values of ``fields``; a row without them is a
    ResultsError naming its line."""
    with path.open() as rows:
        for number, line in enumerate(rows, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                values = tuple(row[name] for name in fields)
            except (ValueError, KeyError, TypeError) as error:
                raise ResultsError(f"{path}:{number}: not {what} ({error})") from error
            yield number, row, values


def _checked(reader: ClaimReader, counts: Counter[str]) -> bool:
    """Whether the check reads this claim (a single-valued slot or a verb's year), counted by which."""
    if not (reader.slot.single or reader.slot.dated):
        return False
    counts["single-valued claims" if reader.slot.single else "claims with a verb's year"] += 1
    return True


def _kind(bound: BoundSlot | None) -> str:
    return "none" if bound is None else "value" if bound.value else "owner" if bound.owner else "holder"


def bindings(path: Path, examples: int = 5) -> dict:
    """The flags of one pair file by kind and gold label (see the module's doc)."""
    counts: Counter[str] = Counter()
    wrong: list[dict] = []
    readers: dict[str, ClaimReader] = {}
    for number, row, (claim, evidence, label) in _rows(
        path, ("claim", "evidence", "label"), "a pair with claim, evidence and label"
    ):
        counts["pairs"] += 1
        reader = readers.get(claim) or readers.setdefault(claim, ClaimReader.of(claim))
        if not _checked(reader, counts):
            continue
        kind = _kind(reader.bound(evidence, row.get("title") or ""))
        counts[f"{kind} / {label}"] += 1
        if kind != "none" and label in WRONG[kind] and len(wrong) < examples:
            wrong.append({"line": number, "claim": claim, "evidence": evidence, "label": label, "bound": kind})
    return {"file": str(path), "counts": dict(sorted(counts.items())), "wrong_flags": wrong}


def run_bindings(path: Path, examples: int = 5) -> dict:
    """The flags on the items a ``fever`` run's reader read as supporting, by kind and the claim's gold label."""
    counts: Counter[str] = Counter()
    wrong: list[dict] = []
    for number, _, (claim, label, evidence) in _rows(
        path, ("claim", "gold", "evidence"), "a fever result with claim, gold and evidence"
    ):
        counts["claims"] += 1
        reader = ClaimReader.of(claim)
        if not _checked(reader, counts):
            continue
        for item in evidence:
            read = item.get("stance_probabilities") or {}
            supports, refutes = read.get("supports", 0.0), read.get("refutes", 0.0)
            if supports <= refutes or supports < SLOT_READ_FROM:
                continue
            counts["items read as supporting"] += 1
            kind = _kind(reader.bound(item.get("text") or "", item.get("title") or ""))
            counts[f"{kind} / {label}"] += 1
            if kind != "none" and label in WRONG[kind] and len(wrong) < examples:
                wrong.append(
                    {"line": number, "claim": claim, "evidence": item.get("text"), "label": label, "bound": kind}
                )
    return {"file": str(path), "counts": dict(sorted(counts.items())), "wrong_flags": wrong}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, nargs="*")
    parser.add_argument("--fever-results", type=Path, action="append", default=[], help="a fever run's results.jsonl")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if not args.pairs and not args.fever_results:
        parser.error("give pair files or --fever-results")
    files = []
    for path, read in [(p, bindings) for p in args.pairs] + [(p, run_bindings) for p in args.fever_results]:
        found = read(path)
        files.append(found)
        print(path.name, json.dumps(found["counts"]), flush=True)
        for flag in found["wrong_flags"]:
            print(f"  line {flag['line']} ({flag['label']}, {flag['bound']}): {flag['claim']} | {flag['evidence']}")
    if args.out:
        args.out.write_text(json.dumps({"machine": machine_record(), "files": files}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
