"""Two runs over the same claims, compared claim by claim: is the candidate better than the baseline beyond
what the choice of claims explains?

    python -m bench.compare_runs runs/devtest-gpu3/results.jsonl runs/devtest-soup/results.jsonl
    python -m bench.compare_runs bench/results/test_rest_verdicts/mpnet6-gpu3.jsonl.gz \\
        runs/test-rest-new/results.jsonl --claims $DATA/fever/paper_test_rest.jsonl

Each run is a ``results.jsonl`` of ``mermaid-verifier fever`` (``id``, ``gold``, ``verdict``) or a verdict
ledger (``id``, ``verdict``; ``.jsonl`` or ``.jsonl.gz``) whose gold labels come from ``--claims`` (a FEVER
claims file: ``id``, ``label``). Both must cover the same claims. Reported: accuracy and macro-F1 of each
(the verdict as given, abstained or not, as the batch run's metrics count it), the claims only one run gets
right with the exact McNemar p-value on them (``scipy.stats.binomtest``), and a paired bootstrap 95 %
interval of the macro-F1 difference (``scipy.stats.bootstrap``, resampling claims). A difference whose
interval holds 0 is not a measured gain, however it looks on one sample.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
from scipy.stats import binomtest, bootstrap

from mermaid_verifier.evaluation.metrics import macro_f1


class RunError(Exception):
    """A run file that cannot be compared (missing, unreadable, no gold labels, other claims)."""


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        raise RunError(f"{path}: no such file")
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RunError(f"{path}: not a JSON-lines run file ({error})") from error


def write_rows(path: Path, rows) -> None:
    """Write ``rows`` as JSON lines, gzip where the name ends ``.gz``: the files :func:`read_rows` reads."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)


def verdicts(path: Path, gold_by_id: dict[str, str] | None) -> dict[str, tuple[str, str]]:
    """``{claim id: (gold, verdict)}`` of one run."""
    out = {}
    for number, row in enumerate(read_rows(path), start=1):
        if "id" not in row or "verdict" not in row:
            raise RunError(f"{path}, line {number}: a run row needs 'id' and 'verdict'")
        claim_id = str(row["id"])
        gold = row.get("gold") or (gold_by_id or {}).get(claim_id)
        if gold is None:
            raise RunError(
                f"{path}, line {number}: claim {claim_id} has no gold label; pass the claims file with --claims"
            )
        out[claim_id] = (gold, row["verdict"])
    return out


def compare(
    baseline: dict[str, tuple[str, str]],
    candidate: dict[str, tuple[str, str]],
    resamples: int = 2000,
    seed: int = 0,
) -> dict:
    if set(baseline) != set(candidate):
        only_base, only_cand = len(set(baseline) - set(candidate)), len(set(candidate) - set(baseline))
        raise RunError(
            f"the runs cover different claims ({only_base} only in the baseline, {only_cand} only in the candidate);"
            " compare runs over the same claims"
        )
    ids = sorted(baseline)
    mismatched = [i for i in ids if baseline[i][0] != candidate[i][0]]
    if mismatched:
        raise RunError(f"the runs disagree on the gold label of {len(mismatched)} claims (first: {mismatched[0]})")
    gold = np.array([baseline[i][0] for i in ids])
    base = np.array([baseline[i][1] for i in ids])
    cand = np.array([candidate[i][1] for i in ids])
    base_right, cand_right = base == gold, cand == gold
    only_base, only_cand = int((base_right & ~cand_right).sum()), int((cand_right & ~base_right).sum())
    mcnemar = binomtest(only_cand, only_base + only_cand, 0.5).pvalue if only_base + only_cand else 1.0
    index = np.arange(len(ids))

    def difference(sample):
        chosen = gold[sample].tolist()
        return macro_f1(chosen, cand[sample].tolist()) - macro_f1(chosen, base[sample].tolist())

    interval = bootstrap(
        (index,),
        difference,
        n_resamples=resamples,
        vectorized=False,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    delta = difference(index)
    low, high = float(interval.low), float(interval.high)
    return {
        "claims": len(ids),
        "baseline": {"accuracy": float(base_right.mean()), "macro_f1": macro_f1(gold.tolist(), base.tolist())},
        "candidate": {"accuracy": float(cand_right.mean()), "macro_f1": macro_f1(gold.tolist(), cand.tolist())},
        "macro_f1_difference": delta,
        "difference_95": [low, high],
        "right_only_baseline": only_base,
        "right_only_candidate": only_cand,
        "mcnemar_p": float(mcnemar),
        "finding": "candidate better"
        if low > 0
        else "candidate worse"
        if high < 0
        else "no difference measured (the interval holds 0)",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("--claims", type=Path, default=None, help="gold labels for ledgers that carry none")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    try:
        gold_by_id = (
            {str(row["id"]): row["label"] for row in read_rows(args.claims) if "label" in row} if args.claims else None
        )
        figures = compare(
            verdicts(args.baseline, gold_by_id), verdicts(args.candidate, gold_by_id), args.resamples, args.seed
        )
    except RunError as error:
        parser.exit(2, f"compare_runs: {error}\n")
    low, high = figures["difference_95"]
    print(
        f"{figures['claims']} claims: macro-F1 {figures['baseline']['macro_f1']:.4f} → "
        f"{figures['candidate']['macro_f1']:.4f} ({figures['macro_f1_difference']:+.4f}, 95 % {low:+.4f} … {high:+.4f});"
        f" right only with the baseline {figures['right_only_baseline']}, only with the candidate"
        f" {figures['right_only_candidate']} (McNemar p = {figures['mcnemar_p']:.3g}): {figures['finding']}"
    )
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
