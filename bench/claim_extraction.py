"""How well claim extraction splits LLM answers into the atomic claims people split them into.

Data: ``text/factbench_dev.jsonl``'s ``factool-qa`` part (50 answers, 233 atomic claims written by people).
An extracted claim *matches* a gold claim when their content words (lemmas of the words that are not stop
words or punctuation) overlap with an F1 of at least ``--match`` (default 0.6). Reported:

* gold recall: the share of gold claims with a matching extracted claim;
* precision: the share of extracted claims that match some gold claim;
* claims per answer (extracted and gold), and the sentences dropped with their reasons.

The match is lexical, so a correct claim worded differently from the gold one counts as a miss; the
figures are a floor. ``--show N`` prints N answers with both lists, to read the misses.

    python -m bench.claim_extraction [--data ../shared/data] [--match 0.6] [--show 3]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def content(nlp, text: str) -> collections.Counter:
    return collections.Counter(
        t.lemma_.lower() for t in nlp(text) if not (t.is_stop or t.is_punct or t.is_space) and t.text.strip()
    )


def f1(a: collections.Counter, b: collections.Counter) -> float:
    common = sum((a & b).values())
    if not common:
        return 0.0
    precision, recall = common / sum(b.values()), common / sum(a.values())
    return 2 * precision * recall / (precision + recall)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--match", type=float, default=0.6)
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args()
    path = args.data / "text" / "factbench_dev.jsonl"
    if not path.exists():
        print(f"{path} not found: pass --data DIR (the shared data folder)", file=sys.stderr)
        return 2
    from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
    from mermaid_verifier.reader.model_check import machine_record

    extractor = SpacyClaimExtractor()
    nlp = extractor.nlp
    rows = [r for r in map(json.loads, path.open()) if r["source"] == "factool-qa"]
    gold_hit = gold_total = extracted_hit = extracted_total = 0
    reasons: collections.Counter = collections.Counter()
    for n, row in enumerate(rows):
        result = extractor.extract(row["response"])
        extracted = [content(nlp, c.text) for c in result.claims]
        gold = [content(nlp, c) for c in row["claims"]]
        gold_matched = [any(f1(g, e) >= args.match for e in extracted) for g in gold]
        extracted_matched = [any(f1(g, e) >= args.match for g in gold) for e in extracted]
        gold_hit, gold_total = gold_hit + sum(gold_matched), gold_total + len(gold)
        extracted_hit, extracted_total = extracted_hit + sum(extracted_matched), extracted_total + len(extracted)
        reasons.update(d.reason.split(":")[0] for d in result.dropped)
        if n < args.show:
            print(f"--- {row['prompt']}")
            for claim, hit in zip(row["claims"], gold_matched):
                print(f"  gold {'+' if hit else '-'} {claim}")
            for claim, hit in zip(result.claims, extracted_matched):
                print(f"  extr {'+' if hit else '-'} {claim.text}")
            for dropped in result.dropped:
                print(f"  drop   {dropped.sentence} ({dropped.reason})")
    figures = {
        "answers": len(rows),
        "gold_claims": gold_total,
        "extracted_claims": extracted_total,
        "gold_recall": round(gold_hit / gold_total, 3),
        "precision": round(extracted_hit / extracted_total, 3) if extracted_total else None,
        "match_f1_threshold": args.match,
        "dropped_sentences": dict(reasons.most_common()),
        "machine": machine_record(),
    }
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
