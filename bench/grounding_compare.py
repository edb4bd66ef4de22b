"""Two readers' grounding ledgers compared without a fitted threshold: AUROC of each unit's support score, per set,
and the difference with a paired bootstrap over texts.

The across-halves balanced accuracy of :mod:`bench.grounding` fits a setting and a threshold on one half and scores
the other; on the ledger's 78 LFQA answers only 51 of 500 sentences are unsupported, so one sentence moves a half's
figure by two points and two readers that rank every unit alike can differ by more than the change being measured.
Here each unit (an LFQA sentence, a WiCE claim) gets its support score under one setting
(:func:`bench.grounding.sentence_support`: the lowest of its claims' best P(supports)), both ledgers' scores are
ranked against the gold labels (AUROC, scikit-learn), and the difference is resampled by whole texts (an LFQA
answer's sentences, a WiCE claim) with both readers on the same draw. Units are matched by set, text and order; a
unit one ledger lacks is left out of both.

    python -m bench.grounding_compare --ledger NEW.jsonl.gz --against OLD.jsonl.gz [--setting "hits 6 + 2 windows"]

``--by-length`` adds, per set, the same comparison for the claims themselves binned by their length in words
(each claim's best P(supports) under the setting, its unit's gold label): whether a reader ranks claims of one
length as well as the other but scores long claims lower or higher than short ones, which moves the units' pooled
AUROC without any change within a length.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from bench.grounding import SETTINGS, best_support, sentence_support

SETS = ("lfqa", "wice")


def ledger_units(ledger: Path) -> Iterator[tuple[str, str, int, dict]]:
    """(set, text id, n-th unit of that text, row) for each LFQA and WiCE unit of a ledger, in its order."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    with gzip.open(ledger, "rt") as rows:
        for line in rows:
            row = json.loads(line)
            if row["set"] in SETS:
                yield row["set"], row["id"], seen[(row["set"], row["id"])], row
                seen[(row["set"], row["id"])] += 1


def unit_scores(ledger: Path, setting: tuple[int, int, bool]) -> dict[tuple[str, str, int], tuple[bool, float]]:
    """(set, text id, n-th unit of that text) -> (gold supported, support score) for the LFQA and WiCE units."""
    return {
        (name, text, n): (bool(row["gold"]), sentence_support(row, setting))
        for name, text, n, row in ledger_units(ledger)
    }


LENGTH_EDGES = (15, 25, 35)  # claims of 1-14, 15-24, 25-34 and 35 or more words


def claim_scores(ledger: Path, setting: tuple[int, int, bool]) -> dict[tuple[str, str, int, str], tuple[bool, float]]:
    """(set, text id, n-th unit, claim text) -> (the unit's gold label, the claim's best P(supports) under the
    setting). Keyed by the claim's text, as two ledgers made with different claim extraction split some units
    otherwise."""
    return {
        (name, text, n, claim["text"]): (bool(row["gold"]), best_support(claim, setting))
        for name, text, n, row in ledger_units(ledger)
        for claim in row["claims"]
    }


def length_bin(words: int, edges: tuple[int, ...] = LENGTH_EDGES) -> str:
    low = 1
    for edge in edges:
        if words < edge:
            return f"{low}-{edge - 1}"
        low = edge
    return f"{low}+"


def mean_support(scores: dict[tuple, tuple[bool, float]], keys: list[tuple], gold: bool) -> float | None:
    """The mean score of those ``keys`` whose gold label is ``gold`` (None: there are none)."""
    values = [scores[k][1] for k in keys if scores[k][0] is gold]
    return round(sum(values) / len(values), 4) if values else None


def by_length(
    new: dict[tuple[str, str, int, str], tuple[bool, float]],
    old: dict[tuple[str, str, int, str], tuple[bool, float]],
    edges: tuple[int, ...] = LENGTH_EDGES,
) -> dict:
    """Per set: the claims both ledgers hold (the same text in the same unit) and those only one does, then per
    length bin the claims (and of them, in supported units), each reader's mean best support on supported and on
    unsupported units' claims, and each reader's AUROC within the bin (None: one label only)."""
    figures: dict = {}
    for name in SETS:
        keys = sorted(k for k in new if k[0] == name and k in old)
        bins: dict[str, list] = defaultdict(list)
        for k in keys:
            if new[k][0] != old[k][0]:
                raise ValueError(f"{name}: claim {k[:3]} has another gold label in each ledger")
            bins[length_bin(len(k[3].split()), edges)].append(k)
        only = sum(1 for k in new if k[0] == name and k not in old) + sum(
            1 for k in old if k[0] == name and k not in new
        )
        figures[name] = {"claims": len(keys), "in_one_ledger_only": only, "bins": {}}
        for label in (length_bin(low, edges) for low in (1, *edges)):  # shortest first; empty bins left out
            if not (ks := bins.get(label, [])):
                continue
            gold = [new[k][0] for k in ks]
            a, b = auroc(gold, [new[k][1] for k in ks]), auroc(gold, [old[k][1] for k in ks])
            figures[name]["bins"][label] = {
                "claims": len(ks),
                "supported": sum(gold),
                "support_new": {"supported": mean_support(new, ks, True), "unsupported": mean_support(new, ks, False)},
                "support_old": {"supported": mean_support(old, ks, True), "unsupported": mean_support(old, ks, False)},
                "auroc_new": None if a is None else round(a, 4),
                "auroc_old": None if b is None else round(b, 4),
            }
    return figures


def auroc(gold: list[bool], scores: list[float]) -> float | None:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(gold, scores)) if 0 < sum(gold) < len(gold) else None


def compare(
    new: dict[tuple[str, str, int], tuple[bool, float]],
    old: dict[tuple[str, str, int], tuple[bool, float]],
    rounds: int = 2000,
    seed: int = 0,
) -> dict:
    """Per set: units and texts compared, each reader's AUROC, the difference and its 5-95 % bootstrap interval,
    and the share of draws where the new reader ranks better."""
    figures: dict = {}
    for name in SETS:
        keys = sorted(k for k in new if k[0] == name and k in old)
        mismatched = [k for k in keys if new[k][0] != old[k][0]]
        if mismatched:
            raise ValueError(
                f"{name}: {len(mismatched)} units have another gold label in each ledger, e.g. {mismatched[0]}"
            )
        by_text: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
        for k in keys:
            by_text[k[1]].append(k)
        texts = sorted(by_text)
        gold = [new[k][0] for k in keys]
        a, b = auroc(gold, [new[k][1] for k in keys]), auroc(gold, [old[k][1] for k in keys])
        if a is None or b is None:
            figures[name] = {"units": len(keys), "texts": len(texts), "auroc": None}
            continue
        rng = random.Random(seed)
        diffs = []
        for _ in range(rounds):
            drawn = [k for _ in texts for k in by_text[rng.choice(texts)]]
            g = [new[k][0] for k in drawn]
            x, y = auroc(g, [new[k][1] for k in drawn]), auroc(g, [old[k][1] for k in drawn])
            if x is not None and y is not None:
                diffs.append(x - y)
        diffs.sort()
        figures[name] = {
            "units": len(keys),
            "supported": sum(gold),
            "texts": len(texts),
            "auroc_new": round(a, 4),
            "auroc_old": round(b, 4),
            "difference": round(a - b, 4),
            "interval_5_95": [
                round(diffs[int(0.05 * (len(diffs) - 1))], 4),
                round(diffs[int(0.95 * (len(diffs) - 1))], 4),
            ],
            "share_of_draws_new_better": round(sum(d > 0 for d in diffs) / len(diffs), 3),
            "draws": len(diffs),
        }
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ledger", type=Path, required=True, help="the new reader's ledger (bench.grounding run)")
    parser.add_argument("--against", type=Path, required=True, help="the ledger it is compared with")
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="hits 6 + 2 windows")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--by-length",
        action="store_true",
        help="also each set's claims binned by length (1-14, 15-24, 25-34, 35+ words)",
    )
    args = parser.parse_args(argv)
    for path in (args.ledger, args.against):
        if not path.is_file():
            print(f"{path}: no such ledger (python -m bench.grounding run --out … writes one)", file=sys.stderr)
            return 2
    setting = SETTINGS[args.setting]
    try:
        figures = compare(unit_scores(args.ledger, setting), unit_scores(args.against, setting), args.rounds, args.seed)
        if args.by_length:
            figures["by_length"] = by_length(claim_scores(args.ledger, setting), claim_scores(args.against, setting))
    except ValueError as exc:
        print(f"{args.ledger} against {args.against}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"setting": args.setting, "rounds": args.rounds, "seed": args.seed, **figures}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
