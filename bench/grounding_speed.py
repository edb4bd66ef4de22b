"""How long grounding takes: a ~300-word answer against 10 documents of ~1,000 words each, on this machine.

The texts are real: answers of ``grounding/lfqa_dev.jsonl`` joined until they reach ``--words`` words, and that
file's documents cut or joined to ``--document-words`` words each. Each round checks one answer against its own
ten documents twice — first with documents never seen (split and indexed on the fly), then again (their index
kept by content) — after one warm-up check that loads the parser and the stance model (timed apart). Reported:
the median and the slowest of each, with the claims read and the machine.

    python -m bench.grounding_speed [--data ../shared/data] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def material(data: Path, rounds: int, words: int, document_words: int, documents: int) -> list[tuple[str, list]]:
    rows = [json.loads(line) for line in (data / "grounding" / "lfqa_dev.jsonl").open()]
    texts = [w for row in rows for w in row["answer"].split()]
    pages = [d["text"].split() for row in rows for d in row["documents"]]
    pool = [w for page in pages for w in page]
    out = []
    for round_number in range(rounds + 1):  # the first is the warm-up
        answer = " ".join(texts[round_number * words : (round_number + 1) * words])
        start = round_number * documents * document_words
        given = [
            {
                "name": f"doc{n}.txt",
                "text": " ".join(pool[start + n * document_words : start + (n + 1) * document_words]),
            }
            for n in range(documents)
        ]
        out.append((answer, given))
    return out


async def run(args) -> dict:
    from mermaid_verifier.reader.model_check import machine_record
    from mermaid_verifier.texts import TextJob

    rounds = material(args.data, args.rounds, args.words, args.document_words, args.documents)
    started = time.perf_counter()
    async with TextJob.open(documents_only=True) as checker:
        loaded = time.perf_counter() - started
        warm_up_text, warm_up_documents = rounds[0]
        started = time.perf_counter()
        await checker.check(warm_up_text, warm_up_documents)
        first = time.perf_counter() - started
        fresh, cached, claims = [], [], []
        for text, documents in rounds[1:]:
            started = time.perf_counter()
            result = await checker.check(text, documents)
            fresh.append(time.perf_counter() - started)
            started = time.perf_counter()
            await checker.check(text, documents)
            cached.append(time.perf_counter() - started)
            claims.append(len(result.claims))
    return {
        "answer_words": args.words,
        "documents": args.documents,
        "document_words": args.document_words,
        "rounds": args.rounds,
        "load_s": round(loaded, 2),
        "first_check_s": round(first, 2),
        "new_documents_s": {"median": round(statistics.median(fresh), 2), "max": round(max(fresh), 2)},
        "cached_documents_s": {"median": round(statistics.median(cached), 2), "max": round(max(cached), 2)},
        "claims_per_answer": {"median": statistics.median(claims), "max": max(claims)},
        "config": json.loads((REPO / "data" / "grounding_config.json").read_text()),
        "machine": machine_record(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--documents", type=int, default=10)
    parser.add_argument("--document-words", type=int, default=1000)
    args = parser.parse_args()
    if not (args.data / "grounding").is_dir():
        print(f"{args.data / 'grounding'} not found: pass --data DIR (the shared data folder)", file=sys.stderr)
        return 2
    print(json.dumps(asyncio.run(run(args)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
