"""Whole answers end to end: is an LLM's answer right, as ``check`` reads it?

Data: ``text/factbench_dev.jsonl``'s ``felm-wk`` part (184 answers with a label for the whole answer). Each
answer goes through claim extraction and verification (one ``TextJob``, no persistent memory). The
answer is read as

* **wrong** when a decided claim is refuted;
* **right** when every claim is decided and supported;
* **open** otherwise (a claim not enough info or abstained): ``check`` does not say.

Reported: how many answers are read right / wrong / open, and among those read right or wrong the share that
matches the answer's label (and per label). Most felm-wk facts are about the open world, which the bundled
corpus does not hold, so most answers are expected to stay open: this measures the pipeline, not coverage.

    python -m bench.answer_labels [--data ../shared/data] [--corpus FILE] [--limit N] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def reading(result) -> str:
    decided = [c.result for c in result.claims if not c.result.abstained]
    if any(r.verdict.value == "REFUTES" for r in decided):
        return "wrong"
    if result.claims and len(decided) == len(result.claims) and all(r.verdict.value == "SUPPORTS" for r in decided):
        return "right"
    return "open"


async def run(rows: list[dict], settings) -> list[dict]:
    from mermaid_verifier.texts import TextJob

    out = []
    async with TextJob.open(settings) as job:
        for number, row in enumerate(rows, 1):
            result = await job.check(row["response"])
            out.append({"label": bool(row["response_label"]), "reading": reading(result), "claims": len(result.claims)})
            print(f"\r{number}/{len(rows)} answers", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--corpus", type=Path, default=None, help="default: DATA/corpus/wiki_sentences.jsonl")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    corpus = args.corpus or args.data / "corpus" / "wiki_sentences.jsonl"
    answers = args.data / "text" / "factbench_dev.jsonl"
    for needed in (corpus, answers):
        if not needed.exists():
            print(f"{needed} not found: pass --data DIR (the shared data folder) or --corpus FILE", file=sys.stderr)
            return 2
    from mermaid_verifier.config import Settings
    from mermaid_verifier.reader.model_check import machine_record

    rows = [r for r in map(json.loads, answers.open()) if r["source"] == "felm-wk"]
    without_text = [r for r in rows if not isinstance(r.get("response"), str) or not r["response"].strip()]
    rows = [r for r in rows if r not in without_text]  # an answer published without its text
    rows = rows[: args.limit] if args.limit else rows
    settings = Settings.from_env(corpora=(corpus,), use_memory=False, sources=("local",))
    started = time.perf_counter()
    results = asyncio.run(run(rows, settings))
    readings = collections.Counter(r["reading"] for r in results)
    read = [r for r in results if r["reading"] != "open"]
    matches = [r for r in read if (r["reading"] == "right") == r["label"]]
    by_label = {}
    for label in (True, False):
        these = [r for r in read if r["label"] is label]
        by_label["right answers" if label else "wrong answers"] = {
            "read": len(these),
            "read correctly": sum((r["reading"] == "right") == r["label"] for r in these),
        }
    figures = {
        "answers": len(results),
        "skipped_without_text": len(without_text),
        "claims": sum(r["claims"] for r in results),
        "readings": dict(readings),
        "read_share": round(len(read) / len(results), 3) if results else None,
        "agreement_among_read": round(len(matches) / len(read), 3) if read else None,
        "by_label": by_label,
        "seconds": round(time.perf_counter() - started, 1),
        "machine": machine_record(),
        "command": "python -m bench.answer_labels " + " ".join(sys.argv[1:]),
    }
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
