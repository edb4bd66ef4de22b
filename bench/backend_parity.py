"""The two corpus backends side by side on the shared wiki corpus: retrieval agreement and FEVER metrics.

    python -m bench.backend_parity [--claims 400] [--out runs/backend-parity]

Reads the *validation* part of the page-disjoint FEVER paper_dev split (never its test part). For
every claim, the top 5 of the in-memory bm25s index and of the on-disk tantivy index for the claim
text: same top hit, overlap, and whether a gold page is among them. Then the first ``--claims`` of
those claims end to end (offline backend, the wiki corpus only, memory off) once per backend:
accuracy, macro-F1, and how many verdicts agree. ``tests/test_backend_parity.py`` holds the same
checks, on fewer claims, to bounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
from pathlib import Path

import orjson

from bench.fever_sample import CLAIMS, CORPUS, SPLIT
from mermaid_verifier.models import Label


def validation_claims():
    from mermaid_verifier.evaluation.datasets import load_split_ids, read_labelled_claims, select

    claims, _ = read_labelled_claims(CLAIMS)
    return select(claims, load_split_ids(SPLIT), "validation")


def retrieval(claims, cache: Path) -> dict:
    from mermaid_verifier.tools.corpus_index import CorpusIndex
    from mermaid_verifier.tools.tantivy_index import TantivyCorpusIndex

    indexes = {
        "memory": CorpusIndex.open([CORPUS], cache / "memory"),
        "tantivy": TantivyCorpusIndex.open([CORPUS], cache / "tantivy"),
    }
    same_top, overlaps, gold_found = 0, [], {name: 0 for name in indexes}
    verifiable = [c for c in claims if c.label != Label.NOT_ENOUGH_INFO]
    for claim in claims:
        found = {name: index.search(claim.claim, k=5) for name, index in indexes.items()}
        ids = {name: [p.id for p, _ in hits] for name, hits in found.items()}
        same_top += ids["memory"][:1] == ids["tantivy"][:1]
        overlaps.append(len(set(ids["memory"]) & set(ids["tantivy"])) / max(len(ids["memory"]), 1))
        if claim.label != Label.NOT_ENOUGH_INFO:
            for name, hits in found.items():
                gold_found[name] += any(p.page in claim.gold_pages for p, _ in hits)
    return {
        "claims": len(claims),
        "same_top_hit": same_top / len(claims),
        "top5_overlap": statistics.mean(overlaps),
        "gold_page_in_top5": {name: n / len(verifiable) for name, n in gold_found.items()},
    }


async def end_to_end(claims, count: int, out: Path, cache: Path) -> dict:
    from mermaid_verifier.config import Settings
    from mermaid_verifier.evaluation.fever_run import RunOptions, run

    wanted = {c.id for c in claims[:count]}
    claims_file = out / "claims.jsonl"
    with claims_file.open("wb") as handle:
        for line in CLAIMS.read_bytes().splitlines():
            if line.strip() and str(orjson.loads(line)["id"]) in wanted:
                handle.write(line + b"\n")
    results = {}
    for backend in ("memory", "tantivy"):
        settings = Settings.from_env(
            corpora=(CORPUS,), cache_dir=cache, use_memory=False, sources=("local",), backend="offline",
            index_backend=backend,
        )  # fmt: skip
        outcome = await run(RunOptions(claims_path=claims_file, out_dir=out / backend), settings)
        results[backend] = {
            "accuracy": outcome.metrics["accuracy"],
            "macro_f1": outcome.metrics["macro_f1"],
            "tool_calls": outcome.metrics["tool_calls"]["mean"],
            "verdicts": {row["id"]: row["verdict"] for row in outcome.rows},
        }
    agree = sum(results["memory"]["verdicts"][i] == results["tantivy"]["verdicts"][i] for i in wanted)
    return {"claims": len(wanted), "verdicts_agree": agree / len(wanted), **results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=400)
    parser.add_argument("--out", type=Path, default=Path("runs/backend-parity"))
    args = parser.parse_args()
    claims = validation_claims()
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="mermaid-parity-") as scratch:
        found = retrieval(claims, Path(scratch))
        scored = asyncio.run(end_to_end(claims, args.claims, args.out, Path(scratch) / "run-cache"))
    print(
        f"retrieval over {found['claims']} validation claims: same top hit {found['same_top_hit']:.3f}, "
        f"top-5 overlap {found['top5_overlap']:.3f}, gold page in top 5: memory "
        f"{found['gold_page_in_top5']['memory']:.3f}, tantivy {found['gold_page_in_top5']['tantivy']:.3f}"
    )
    print(f"\nend to end, {scored['claims']} claims: verdicts agree {scored['verdicts_agree']:.3f}")
    print("| backend | accuracy | macro-F1 | tool calls / claim |\n|---|---|---|---|")
    for backend in ("memory", "tantivy"):
        r = scored[backend]
        print(f"| {backend} | {r['accuracy']:.3f} | {r['macro_f1']:.3f} | {r['tool_calls']:.2f} |")
    from mermaid_verifier.reader.model_check import machine_record

    print(f"machine: {json.dumps(machine_record())}")


if __name__ == "__main__":
    main()
