"""Did a change leave behaviour alone? Two ``mermaid-verifier fever`` runs over the same claims, compared field by
field: verdict, abstention, conflict, confidence, reason, triplets, keywords, entities and the evidence (every
field of every item but when it was retrieved). Exit 0 when every claim is the same in every field, else 1,
listing the claims and fields that differ.

    MERMAID_SOURCES=local mermaid-verifier fever $DATA/fever/paper_dev.jsonl --corpus $DATA/corpus/wiki_sentences.jsonl \\
        --split training/splits/fever_paper_dev.json --part validation --no-memory --out runs/before   # (and after)
    python -m bench.same_results runs/before/results.jsonl runs/after/results.jsonl [--out summary.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench import print_report

FIELDS = ("verdict", "abstained", "conflict", "confidence", "reason", "triplets", "keywords", "entities", "evidence")
MOMENT = ("retrieved_at",)  # when an item was fetched differs between any two runs


def rows(path: Path) -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, path.open())}


def comparable(field: str, value):
    if field == "evidence":
        return [{k: v for k, v in item.items() if k not in MOMENT} for item in value]
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    before, after = rows(args.before), rows(args.after)
    if set(before) != set(after):
        print(f"the runs cover other claims ({len(before)} and {len(after)})", file=sys.stderr)
        return 2
    differing = {
        claim: [f for f in FIELDS if comparable(f, before[claim].get(f)) != comparable(f, after[claim].get(f))]
        for claim in before
    }
    differing = {claim: fields for claim, fields in differing.items() if fields}
    summary = {
        "claims": len(before),
        "identical": len(before) - len(differing),
        "fields_compared": list(FIELDS),
        "differing": differing,
    }
    print_report(summary, args.out, indent=1)
    return 0 if not differing else 1


if __name__ == "__main__":
    raise SystemExit(main())
