"""Grounding measured the way LLM-AggreFact measures it: balanced accuracy of "supported" vs "not", per LFQA
sentence and per WiCE claim, each against the documents given with it.

Data (``../shared/data/grounding/``): ``lfqa_dev.jsonl`` (200 answers, 1,262 sentences labelled by three
annotators; "supported" by majority, "partially" counts as not) and ``wice_dev.jsonl`` (349 Wikipedia claims with
the page each cites; "partially supported" counts as not). Each text goes through the grounding pipeline
(``mermaid_verifier.grounding``: claims extracted, passages retrieved and read); the ledger keeps, per sentence,
each claim's support (the best P(supports) over its passages) and the support of the sentence read whole, so
every threshold and rule can be scored without reading again:

* ``claims``: a sentence is supported when all its claims are (what ``check --source`` reports);
* ``whole``: when the sentence read whole is;
* ``either``: when either is.

A sentence the extractor leaves without a claim counts as supported (nothing was flagged in it).
Threshold and rule are chosen on one half of the questions (LFQA) or pages (WiCE) and scored on the other, both
ways (``halves``); ``--threshold`` scores a given threshold on everything (the shipped one is fitted on all of
dev: quote the halves, not that, as what to expect elsewhere).

    python bench/grounding.py run [--data ../shared/data] [--out bench/results/grounding/ledger.jsonl.gz]
    python bench/grounding.py score [--ledger …] [--threshold T --rule claims]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import hashlib
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LEDGER = REPO / "bench" / "results" / "grounding" / "ledger.jsonl.gz"
RULES = ("claims", "whole", "either")
THRESHOLDS = [round(0.05 + 0.01 * i, 2) for i in range(91)]


def half(key: str) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % 2


def units(data: Path) -> list[dict]:
    """The texts to check: one per LFQA answer, one per WiCE claim, with their documents and gold labels."""
    out = []
    for line in (data / "grounding" / "lfqa_dev.jsonl").open():
        row = json.loads(line)
        out.append(
            {
                "set": "lfqa",
                "id": row["id"],
                "half": half(row["question"]),
                "sentences": [{"text": s["text"], "supported": s["supported"]} for s in row["sentences"]],
                "documents": [
                    {"name": d["title"] or f"document {i + 1}", "title": d["title"], "text": d["text"]}
                    for i, d in enumerate(row["documents"])
                ],
            }
        )
    for line in (data / "grounding" / "wice_dev.jsonl").open():
        row = json.loads(line)
        out.append(
            {
                "set": "wice",
                "id": row["id"],
                "half": half(row["title"]),
                "sentences": [{"text": row["claim"], "supported": row["supported"]}],
                "documents": [{"name": "cited page", "title": "", "text": row["document"]}],
            }
        )
    return out


async def run(data: Path, out: Path, limit: int | None) -> None:
    from mermaid_verifier.grounding import GroundingChecker, as_documents, read_claim
    from mermaid_verifier.model_check import machine_record
    from mermaid_verifier.models import ExtractedClaim

    items = units(data)[:limit]
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rows = []
    async with GroundingChecker.open() as checker:
        for number, item in enumerate(items, 1):
            text = " ".join(s["text"] for s in item["sentences"])
            documents = as_documents(item["documents"])
            result = await checker.check(text, documents)
            index = checker.indexes.get(documents, checker.config.sizes)
            cursor = 0
            for sentence in item["sentences"]:
                start = text.index(sentence["text"], cursor)
                end = start + len(sentence["text"])
                cursor = end
                claims = [c for c in result.claims if c.claim.start < end and c.claim.end > start]
                whole = ExtractedClaim(text=sentence["text"], sentence=sentence["text"], start=start, end=end)
                read = await read_claim(index, checker.stance, checker.config, 0, whole)
                rows.append(
                    {
                        "set": item["set"],
                        "id": item["id"],
                        "half": item["half"],
                        "gold": sentence["supported"],
                        "claims": [round(c.support, 4) for c in claims],
                        "whole": round(read.support, 4),
                    }
                )
            if number % 20 == 0:
                print(f"{number}/{len(items)} texts, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    with gzip.open(out, "wt") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    meta = {
        "texts": len(items),
        "sentences": len(rows),
        "seconds": round(time.perf_counter() - started, 1),
        "config": json.loads((REPO / "data" / "grounding_config.json").read_text()),
        "machine": machine_record(),
    }
    out.with_name("run.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta, indent=1))


def predicted(row: dict, rule: str, threshold: float) -> bool:
    by_claims = all(s >= threshold for s in row["claims"])  # no claim: nothing flagged
    by_whole = row["whole"] >= threshold
    return {"claims": by_claims, "whole": by_whole, "either": by_claims or by_whole}[rule]


def balanced_accuracy(rows: list[dict], rule: str, threshold: float) -> float | None:
    positives = [r for r in rows if r["gold"]]
    negatives = [r for r in rows if not r["gold"]]
    if not positives or not negatives:
        return None
    tpr = sum(predicted(r, rule, threshold) for r in positives) / len(positives)
    tnr = sum(not predicted(r, rule, threshold) for r in negatives) / len(negatives)
    return round((tpr + tnr) / 2, 4)


def score(ledger: Path, threshold: float | None, rule: str | None) -> dict:
    rows = [json.loads(line) for line in gzip.open(ledger, "rt")]
    figures: dict = {"sentences": len(rows), "without_claim": sum(not r["claims"] for r in rows)}
    for name in ("lfqa", "wice"):
        part = [r for r in rows if r["set"] == name]
        entry: dict = {"units": len(part), "supported": sum(r["gold"] for r in part)}
        halves = []
        for tuned in (0, 1):
            fit = [r for r in part if r["half"] == tuned]
            test = [r for r in part if r["half"] != tuned]
            best = max(
                ((rl, t) for rl in RULES for t in THRESHOLDS),
                key=lambda choice: balanced_accuracy(fit, *choice) or 0,
            )
            halves.append(
                {
                    "tuned_on_half": tuned,
                    "rule": best[0],
                    "threshold": best[1],
                    "fit": balanced_accuracy(fit, *best),
                    "held_out": balanced_accuracy(test, *best),
                }
            )
        entry["halves"] = halves
        held_out = [h["held_out"] for h in halves if h["held_out"] is not None]
        entry["held_out_mean"] = round(sum(held_out) / len(held_out), 4) if held_out else None
        if threshold is not None:
            entry["at"] = {"rule": rule, "threshold": threshold, "all": balanced_accuracy(part, rule, threshold)}
        figures[name] = entry
    if threshold is None:  # the one setting for both, fitted on all of dev (in-sample)
        both = max(
            ((rl, t) for rl in RULES for t in THRESHOLDS),
            key=lambda c: (
                (balanced_accuracy([r for r in rows if r["set"] == "lfqa"], *c) or 0)
                + (balanced_accuracy([r for r in rows if r["set"] == "wice"], *c) or 0)
            ),
        )
        figures["fitted_on_all_dev"] = {
            "rule": both[0],
            "threshold": both[1],
            "lfqa": balanced_accuracy([r for r in rows if r["set"] == "lfqa"], *both),
            "wice": balanced_accuracy([r for r in rows if r["set"] == "wice"], *both),
        }
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    r.add_argument("--out", type=Path, default=LEDGER)
    r.add_argument("--limit", type=int, default=None)
    s = sub.add_parser("score")
    s.add_argument("--ledger", type=Path, default=LEDGER)
    s.add_argument("--threshold", type=float, default=None)
    s.add_argument("--rule", choices=RULES, default="claims")
    args = parser.parse_args()
    if args.command == "run":
        if not (args.data / "grounding").is_dir():
            print(f"{args.data / 'grounding'} not found: pass --data DIR (the shared data folder)", file=sys.stderr)
            return 2
        asyncio.run(run(args.data, args.out, args.limit))
        return 0
    print(json.dumps(score(args.ledger, args.threshold, args.rule), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
