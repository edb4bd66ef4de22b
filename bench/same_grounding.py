"""Did a change leave grounding alone? The first ``--answers`` LFQA dev answers (``grounding/lfqa_dev.jsonl``:
the answer's sentences joined, against the documents given with it, as ``bench/grounding.py`` reads them) grounded
through the public entry point (one text job opened for grounding, :class:`mermaid_verifier.texts.TextJob`, each
answer checked against its documents), one JSON line per answer with the whole result: every sentence's label, passage
and claims, every claim's status, readings and passage, the summary. ``compare`` then says whether two such runs
are the same in every field; it exits 0 when they are, else 1, naming the answers and fields that differ.

    python -m bench.same_grounding run --out /tmp/grounding_before.jsonl [--data ../shared/data] [--answers 50]
    python -m bench.same_grounding compare /tmp/grounding_before.jsonl /tmp/grounding_after.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def answers(data: Path, limit: int) -> list[dict]:
    """The first ``limit`` LFQA answers: id, text and documents."""
    out = []
    with (data / "grounding" / "lfqa_dev.jsonl").open() as rows:
        for line in rows:
            if len(out) == limit:
                break
            row = json.loads(line)
            documents = [
                {"name": d["title"] or f"document {i + 1}", "title": d["title"], "text": d["text"]}
                for i, d in enumerate(row["documents"])
            ]
            out.append({"id": row["id"], "text": " ".join(s["text"] for s in row["sentences"]), "documents": documents})
    return out


async def run(data: Path, out: Path, limit: int) -> None:
    from mermaid_verifier.texts import TextJob

    items = answers(data, limit)
    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    async with TextJob.open(documents_only=True) as job:
        with out.open("w") as f:
            for number, item in enumerate(items, 1):
                result = await job.check(item["text"], item["documents"])
                f.write(json.dumps({"id": item["id"], "result": result.model_dump(mode="json")}) + "\n")
                f.flush()
                if number % 10 == 0:
                    print(f"{number}/{len(items)} answers, {time.perf_counter() - started:.0f} s", file=sys.stderr)


def differences(before: dict, after: dict, where: str = "") -> list[str]:
    """The paths at which two JSON values differ."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [
            path
            for key in sorted(set(before) | set(after))
            for path in differences(before.get(key), after.get(key), f"{where}.{key}")
        ]
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [f"{where} (length {len(before)} != {len(after)})"]
        return [path for i, (b, a) in enumerate(zip(before, after)) for path in differences(b, a, f"{where}[{i}]")]
    return [] if before == after else [where or "."]


def compare(before: Path, after: Path) -> int:
    first = [json.loads(line) for line in before.open()]
    second = [json.loads(line) for line in after.open()]
    if [r["id"] for r in first] != [r["id"] for r in second]:
        print(f"the runs cover other answers ({len(first)} and {len(second)})", file=sys.stderr)
        return 2
    differing = {}
    for b, a in zip(first, second):
        paths = differences(b["result"], a["result"])
        if paths:
            differing[b["id"]] = paths[:20]
    summary = {
        "answers": len(first),
        "sentences": sum(len(r["result"]["sentences"]) for r in first),
        "claims": sum(len(r["result"]["claims"]) for r in first),
        "identical": len(first) - len(differing),
        "differing": differing,
    }
    print(json.dumps(summary, indent=1))
    return 0 if not differing else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    running = commands.add_parser("run", help="ground the answers and write their results")
    running.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    running.add_argument("--answers", type=int, default=50)
    running.add_argument("--out", type=Path, required=True)
    comparing = commands.add_parser("compare", help="are two runs the same in every field?")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        asyncio.run(run(args.data, args.out, args.answers))
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
