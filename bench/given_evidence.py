"""The verdict model on given evidence, without search: contrast pairs, gold evidence, decisive span removed.

    python -m bench.given_evidence contrast                                   # tests/data/contrast_pairs.jsonl
    python -m bench.given_evidence gold --part validation --part calibration  # paper_dev tuning parts
    python -m bench.given_evidence gold --claims ../shared/data/fever/paper_test_rest.jsonl   # once per shipped model
    ... --model-dir training/runs/NAME/model    # another stance model than the bundled one

* ``contrast``: each pair's true claim should be SUPPORTS and its false twin REFUTES against the one
  evidence sentence; reports accuracy per edit kind and the false twins confirmed above confidence 0.8.
* ``gold``: each SUPPORTS/REFUTES claim against its first gold evidence set that the wiki corpus holds
  (answer in reach): share right, share NOT ENOUGH INFO, share with the wrong polarity; then the same
  claims with the decisive span cut out of that evidence (``training/nei_pairs.py``, the rule that builds
  the training pairs, applied to claims it never saw): share answered NOT ENOUGH INFO.

``contrast --readings PATH`` keeps each claim's verdict, so two stance models compare claim by claim with
``bench.compare_runs`` (McNemar, a paired bootstrap interval) rather than by one accuracy each.

Abstentions count by their label (the label is what the judge decided; abstention is a separate flag).
Writes a JSON summary with ``--out``.
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"


def judge_for(model_dir: Path | None):
    from mermaid_verifier.evaluation.given_evidence import GivenEvidenceJudge
    from mermaid_verifier.reader.stance import StanceModel

    return GivenEvidenceJudge(stance=StanceModel(model_dir))


def contrast(judge, path: Path, readings: list[dict] | None = None) -> dict:
    """The contrast figures; with ``readings``, each claim's verdict is appended to it (``id``: the pair's id and
    ``:true`` or ``:false``), for ``bench.compare_runs``."""
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    by_kind: dict[str, list[bool]] = collections.defaultdict(list)
    both_right, confirmed = 0, []
    for row in rows:
        passages = [(row["title"], row["evidence"])]
        oks = []
        for claim, gold in ((row["true_claim"], "SUPPORTS"), (row["false_claim"], "REFUTES")):
            verdict = judge.verdict(claim, passages)
            oks.append(verdict.label.value == gold)
            if readings is not None:
                side = "true" if gold == "SUPPORTS" else "false"
                readings.append(
                    {
                        "id": f"{row['id']}:{side}",
                        "gold": gold,
                        "verdict": verdict.label.value,
                        "confidence": round(verdict.confidence, 6),
                    }
                )
            if gold == "REFUTES" and verdict.label.value == "SUPPORTS" and verdict.confidence > 0.8:
                confirmed.append({"id": row["id"], "claim": claim, "confidence": verdict.confidence})
        by_kind[row["edit"]] += oks
        both_right += all(oks)
    right = [ok for oks in by_kind.values() for ok in oks]
    return {
        "pairs": len(rows),
        "claims": len(right),
        "accuracy": round(sum(right) / len(right), 4),
        "pairs_both_right": round(both_right / len(rows), 4),
        "accuracy_by_kind": {k: [round(sum(v) / len(v), 4), len(v)] for k, v in sorted(by_kind.items())},
        "false_twins_confirmed_above_0.8": len(confirmed),
        "confirmed": confirmed[:20],
    }


def gold_claims(claims_path: Path, split_path: Path | None, parts: list[str]):
    """(claim, label, [(title, text)]) for S/R claims whose first complete gold set is in the corpus."""
    from mermaid_verifier.evaluation.datasets import load_split_ids, read_labelled_claims
    from mermaid_verifier.tools.corpus_index import read_corpus

    claims, _ = read_labelled_claims(claims_path)
    if parts:
        split = load_split_ids(split_path)
        claims = [c for c in claims if split.get(c.id) in parts]
    by_key = {(p.page, p.line): p for p in read_corpus(SHARED / "corpus" / "wiki_sentences.jsonl")}
    out = []
    for claim in claims:
        if claim.label.value == "NOT ENOUGH INFO":
            continue
        for evidence_set in claim.evidence_sets:
            passages = [by_key.get(key) for key in sorted(set(evidence_set))]
            if passages and None not in passages:
                out.append((claim.claim, claim.label.value, passages))
                break
    return out


def gold(judge, claims) -> dict:
    from mermaid_verifier.agents.spacy_pipeline import load_pipeline
    from training.nei_pairs import span_removed_pairs

    outcome = collections.Counter()
    by_label: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for claim, label, passages in claims:
        verdict = judge.verdict(claim, [(p.title, p.text) for p in passages])
        read = (
            "right"
            if verdict.label.value == label
            else "nei"
            if verdict.label.value == "NOT ENOUGH INFO"
            else "wrong polarity"
        )
        outcome[read] += 1
        by_label[label][read] += 1
    rows = [
        {
            "claim": claim,
            "title": passages[0].title,
            "evidence": " ".join(p.text for p in passages),
            "label": label,
            "origin": "gold",
        }
        for claim, label, passages in claims
    ]
    cut = span_removed_pairs(rows, load_pipeline())
    removed = collections.Counter(judge.verdict(r["claim"], [(r["title"], r["evidence"])]).label.value for r in cut)
    total = sum(outcome.values())
    return {
        "claims": total,
        **{k: round(v / total, 4) for k, v in outcome.items()},
        "by_gold_label": {
            label: {"claims": sum(c.values())} | {k: round(v / sum(c.values()), 4) for k, v in c.items()}
            for label, c in sorted(by_label.items())
        },
        "span_removed_claims": len(cut),
        "span_removed_answered_nei": round(removed["NOT ENOUGH INFO"] / max(1, len(cut)), 4),
        "span_removed_labels": dict(removed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["contrast", "gold"])
    parser.add_argument(
        "--model-dir", type=Path, default=None, help="stance model directory (default: the bundled one)"
    )
    parser.add_argument("--pairs", type=Path, default=REPO / "tests" / "data" / "contrast_pairs.jsonl")
    parser.add_argument("--claims", type=Path, default=SHARED / "fever" / "paper_dev.jsonl")
    parser.add_argument("--split", type=Path, default=REPO / "training" / "splits" / "fever_paper_dev.json")
    parser.add_argument(
        "--part", action="append", default=[], help="paper_dev part(s) of --split (default: all claims)"
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--readings",
        type=Path,
        default=None,
        help="contrast: write each claim's verdict here (JSON lines, gzip where the name ends .gz), for "
        "bench.compare_runs",
    )
    args = parser.parse_args()
    if args.readings and args.mode != "contrast":
        parser.error("--readings is written by the contrast mode only")
    if args.part and "train" in args.part:
        raise SystemExit("refusing the train part: the stance model was trained on its gold evidence")
    judge = judge_for(args.model_dir)
    started = time.time()
    if args.mode == "contrast":
        readings: list[dict] = []
        summary = contrast(judge, args.pairs, readings)
        if args.readings:
            from bench.compare_runs import write_rows

            write_rows(args.readings, readings)
    else:
        summary = gold(judge, gold_claims(args.claims, args.split, args.part))
    from mermaid_verifier.reader.model_check import machine_record

    summary |= {
        "mode": args.mode,
        "model_dir": str(args.model_dir or "bundled"),
        "seconds": round(time.time() - started, 1),
        "machine": machine_record(),
    }
    if args.out:  # written first: a closed stdout (| head) must not lose a measurement
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
