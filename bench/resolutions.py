"""How often the offline claim extractor resolves a reference rightly: precision on resolutions checked by hand.

A *resolution* is a word of a sentence the extractor replaced to make a claim stand alone: a pronoun ("He" ->
"Jack Dorsey"), a surname ("Dorsey" -> "Jack Dorsey") or a definite description ("the company" -> "Siemens").
References it keeps as written (nothing or more than one thing fits) are counted apart: they are not guesses.

The sample: the resolutions made in texts the extraction rules were not written on, the ``--size`` first in a
fixed order (a hash of each one's sentence and word) — the Wikipedia paragraphs of ``grounding/wice_train_subclaims.jsonl`` (``context``) and the web
documents of ``grounding/lfqa_dev.jsonl`` (their first 1,500 characters). Each was read by
a person, with the text before it, and marked right or wrong in the ledger
``bench/results/resolutions/hand_check.jsonl`` (a resolution is right when the replacement names what the
word refers to, in words that name it). This script re-makes the sample with the extractor as it is now and
scores it against the ledger; a resolution the ledger lacks (the rules changed since) is listed as unchecked:
read it and add it before quoting a figure.

    python -m bench.resolutions [--data ../shared/data] [--size 110] [--show-unchecked]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LEDGER = REPO / "bench" / "results" / "resolutions" / "hand_check.jsonl"


def texts(data: Path) -> list[tuple[str, str]]:
    """(id, text) of the texts the sample is drawn from, in a fixed order."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for line in (data / "grounding" / "wice_train_subclaims.jsonl").open():
        row = json.loads(line)
        if row["context"] not in seen:
            seen.add(row["context"])
            out.append((f"wice:{row['id']}", row["context"]))
    for line in (data / "grounding" / "lfqa_dev.jsonl").open():
        row = json.loads(line)
        for number, document in enumerate(row["documents"]):
            text = document["text"][:1500]
            if text not in seen:
                seen.add(text)
                out.append((f"lfqa:{row['id']}:{number}", text))
    return out


def resolutions(extractor, items: list[tuple[str, str]]) -> tuple[list[dict], int]:
    """Every resolution made in the texts (one per word and sentence), and how many references were kept."""
    out: list[dict] = []
    kept = 0
    done: set[tuple] = set()  # one per sentence, word and replacement: paragraphs repeat across rows
    for text_id, text in items:
        result = extractor.extract(text)
        for claim in result.claims:
            kept += len(claim.unresolved)
            for word, replacement in claim.resolved.items():
                seen = (claim.sentence, word, replacement)
                if seen in done:
                    continue
                done.add(seen)
                out.append(
                    {
                        "text": text_id,
                        "word": word,
                        "to": replacement,
                        "sentence": claim.sentence,
                        "before": text[max(0, claim.start - 300) : claim.start],
                    }
                )
    return out, kept


def order(item: dict) -> str:
    """A fixed place for each resolution (a hash of its sentence and word): a rule change that adds or removes
    resolutions elsewhere leaves the others' places, and their checks, as they were."""
    return hashlib.sha256(f"{item['sentence']}\0{item['word']}".encode()).hexdigest()


def key(item: dict) -> tuple[str, str, str]:
    return (item["sentence"], item["word"], item["to"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--size", type=int, default=110)
    parser.add_argument("--show-unchecked", action="store_true", help="print the unchecked ones to read")
    args = parser.parse_args()
    if not (args.data / "grounding").is_dir():
        print(f"{args.data / 'grounding'} not found: pass --data DIR (the shared data folder)", file=sys.stderr)
        return 2
    from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
    from mermaid_verifier.reader.model_check import machine_record

    made, kept = resolutions(SpacyClaimExtractor(), texts(args.data))
    sample = sorted(made, key=order)[: args.size]
    ledger = {key(r): r for r in map(json.loads, LEDGER.open())} if LEDGER.is_file() else {}
    checked = [ledger[key(item)] for item in sample if key(item) in ledger]
    unchecked = [item for item in sample if key(item) not in ledger]
    if args.show_unchecked:
        for number, item in enumerate(unchecked):
            print(f"[{number}] {item['word']!r} -> {item['to']!r}  ({item['text']})")
            print(f"    before: ...{item['before'][-200:]!r}")
            print(f"    sentence: {item['sentence'][:300]!r}")
    right = sum(r["right"] for r in checked)
    figures = {
        "resolutions_made": len(made),
        "references_kept_as_written": kept,
        "sample": len(sample),
        "checked_by_hand": len(checked),
        "right": right,
        "precision": round(right / len(checked), 3) if checked else None,
        "unchecked": len(unchecked),
        "wrong": [f"{r['word']} -> {r['to']}: {r.get('note', '')}" for r in checked if not r["right"]],
        "machine": machine_record(),
    }
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    return 0 if not unchecked else 1


if __name__ == "__main__":
    raise SystemExit(main())
