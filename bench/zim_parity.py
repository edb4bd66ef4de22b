"""Do a JSONL corpus and a ZIM built from the same pages reach the same verdicts? Two ``mermaid-verifier fever``
runs over the same claims, one per corpus, compared claim by claim.

    python -m bench.zim_build --corpus $DATA/corpus/wiki_sentences.jsonl --out runs/wiki.zim
    for C in $DATA/corpus/wiki_sentences.jsonl runs/wiki.zim; do
      MERMAID_SOURCES=local mermaid-verifier fever $DATA/fever/paper_dev.jsonl --corpus $C \\
        --split training/splits/fever_paper_dev.json --part validation --no-memory --out runs/val-$(basename $C)
    done
    python -m bench.zim_parity runs/val-wiki_sentences.jsonl/results.jsonl runs/val-wiki.zim/results.jsonl \\
        --out bench/results/zim_parity.json

Reported: the share of claims with the same verdict (the number the ZIM corpus is held to: at least 95 %),
the same verdict and abstention, each run's accuracy and macro-F1, and the claims that differ with their
verdicts, so a reader can see which way they moved.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from mermaid_verifier.evaluation.metrics import macro_f1


def rows(path: Path) -> dict[str, dict]:
    return {str(row["id"]): row for row in map(json.loads, path.open()) if row.get("verdict")}


def compare(jsonl_run: dict[str, dict], zim_run: dict[str, dict]) -> dict:
    if set(jsonl_run) != set(zim_run):
        missing = len(set(jsonl_run) ^ set(zim_run))
        raise SystemExit(f"the two runs do not cover the same claims ({missing} claims in one only)")
    ids = sorted(jsonl_run)
    same = [i for i in ids if jsonl_run[i]["verdict"] == zim_run[i]["verdict"]]
    same_abstention = [i for i in same if jsonl_run[i].get("abstained") == zim_run[i].get("abstained")]

    def scores(run: dict[str, dict]) -> dict:
        gold = [run[i]["gold"] for i in ids]
        said = [run[i]["verdict"] for i in ids]
        return {
            "accuracy": round(sum(g == s for g, s in zip(gold, said)) / len(ids), 4),
            "macro_f1": round(macro_f1(gold, said), 4),
        }

    moved = Counter(f"{jsonl_run[i]['verdict']} -> {zim_run[i]['verdict']}" for i in ids if i not in same)
    return {
        "claims": len(ids),
        "same_verdict": len(same),
        "same_verdict_share": round(len(same) / len(ids), 4),
        "same_verdict_and_abstention": len(same_abstention),
        "jsonl": scores(jsonl_run),
        "zim": scores(zim_run),
        "moved": dict(moved.most_common()),
        "differing_claims": [
            {"id": i, "claim": jsonl_run[i].get("claim"), "gold": jsonl_run[i]["gold"],
             "jsonl": jsonl_run[i]["verdict"], "zim": zim_run[i]["verdict"]}
            for i in ids if i not in same
        ],
    }  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jsonl_results", type=Path, help="results.jsonl of the run over the JSONL corpus")
    parser.add_argument("zim_results", type=Path, help="results.jsonl of the run over the ZIM")
    parser.add_argument("--out", type=Path, help="write the comparison here as JSON")
    args = parser.parse_args(argv)
    summary = compare(rows(args.jsonl_results), rows(args.zim_results))
    print(
        f"{summary['same_verdict']} of {summary['claims']} claims ({summary['same_verdict_share']:.1%}) reach the same "
        f"verdict; macro-F1 JSONL {summary['jsonl']['macro_f1']:.3f}, ZIM {summary['zim']['macro_f1']:.3f}"
    )
    for change, count in summary["moved"].items():
        print(f"  {change}: {count}")
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
