"""How often, and how rightly, a claim's single-valued slot is found bound to another name in its evidence: the
judge's and grounding's ``slot_conflicts`` check (:func:`mermaid_verifier.agents.slots.bound_slot`) on labelled
(claim, evidence) pairs, without the reader. A flag of another name should fall on REFUTES pairs only, a flag of
another owner never on SUPPORTS pairs.

    python -m bench.slot_bindings PAIRS.jsonl [PAIRS.jsonl ...] --out bench/results/slot_bindings.json

Each file's rows need ``claim``, ``evidence`` and ``label`` (the pair files of ``training/build_pairs.py`` and its
pair families). Printed and written per file: the pairs, the claims with a single-valued slot, and the flags of each
kind by gold label, with the first few flags that fall on another label.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from mermaid_verifier.agents.slots import ClaimReader
from mermaid_verifier.errors import ResultsError
from mermaid_verifier.reader.model_check import machine_record

WRONG = {"value": {"SUPPORTS", "NOT ENOUGH INFO"}, "owner": {"SUPPORTS"}}  # a flag of that kind on these is wrong


def bindings(path: Path, examples: int = 5) -> dict:
    """The flags of one pair file by kind and gold label (see the module's doc)."""
    counts: Counter[str] = Counter()
    wrong: list[dict] = []
    readers: dict[str, ClaimReader] = {}
    with path.open() as rows:
        for number, line in enumerate(rows, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                claim, evidence, label = row["claim"], row["evidence"], row["label"]
            except (ValueError, KeyError, TypeError) as error:
                raise ResultsError(f"{path}:{number}: not a pair with claim, evidence and label ({error})") from error
            counts["pairs"] += 1
            reader = readers.get(claim) or readers.setdefault(claim, ClaimReader.of(claim))
            if not reader.slot.single:
                continue
            counts["single-valued claims"] += 1
            bound = reader.bound(evidence, row.get("title") or "")
            kind = "none" if bound is None else "value" if bound.value else "owner"
            counts[f"{kind} / {label}"] += 1
            if bound is not None and label in WRONG[kind] and len(wrong) < examples:
                wrong.append({"line": number, "claim": claim, "evidence": evidence, "label": label, "bound": kind})
    return {"file": str(path), "counts": dict(sorted(counts.items())), "wrong_flags": wrong}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    files = []
    for path in args.pairs:
        found = bindings(path)
        files.append(found)
        print(path.name, json.dumps(found["counts"]), flush=True)
        for flag in found["wrong_flags"]:
            print(f"  line {flag['line']} ({flag['label']}, {flag['bound']}): {flag['claim']} | {flag['evidence']}")
    if args.out:
        args.out.write_text(json.dumps({"machine": machine_record(), "files": files}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
