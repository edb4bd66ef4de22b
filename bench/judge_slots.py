"""Does a refutation count only where the evidence speaks to the claim's slot? The judge re-decided on the saved
evidence of a FEVER run for each ``unstated_refutes`` value: the label model fitted on the train part's claims
and scored on the tuning parts it never saw (validation + calibration), as ``scripts/evaluate_scoring.py
--fit-on-train`` fits the shipped judge.

    python -m bench.judge_slots runs/paper-dev/results.jsonl --unstated-refutes 1 0.5 0 --out bench/results/judge_slots.json

With ``--slot-conflicts on off``, each value is read with the judge's check of single-valued slots given another
name and without it (``slot_conflicts``), and the tuning claims whose label it changes are listed.

For each value: macro-F1 and F1 per label on the tuning parts, how many NOT ENOUGH INFO claims end REFUTES (the
reader taking "says something else" for "says otherwise") and how many REFUTES claims end NOT ENOUGH INFO, and
the time the slot reading took (each claim's refuting items parsed once).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mermaid_verifier.agents.judge import JudgeConfig
from mermaid_verifier.evaluation.judge_fitting import fit_on_train_part, predictions
from mermaid_verifier.evaluation.metrics import label_metrics
from mermaid_verifier.reader.model_check import machine_record

REPO = Path(__file__).resolve().parents[1]
NEI, REFUTES = "NOT ENOUGH INFO", "REFUTES"


def figures(
    results: list[Path],
    split: Path,
    unstated: float,
    conflicts: bool = True,
    kinds: tuple[str, ...] = (),
    other_relation: float = 1.0,
) -> dict:
    base = JudgeConfig.bundled().model_copy(
        update={
            "model": None,
            "confidence_model": None,
            "unstated_refutes": unstated,
            "unstated_kinds": kinds,
            "slot_conflicts": conflicts,
            "other_relation_refutes": other_relation,
        }
    )
    fit = fit_on_train_part(results, split, base)
    gold = [c.gold for c in fit.tuning]
    predicted = [label for label, _, _ in predictions(fit.tuning_weighed, fit.judge)]
    metrics = label_metrics(gold, predicted)
    nei = [p for g, p in zip(gold, predicted) if g == NEI]
    refutes = [p for g, p in zip(gold, predicted) if g == REFUTES]
    return {
        "unstated_refutes": unstated,
        "unstated_kinds": list(kinds),
        "slot_conflicts": conflicts,
        "other_relation_refutes": other_relation,
        "labels": {c.id: (c.gold, label, c.text) for c, label in zip(fit.tuning, predicted)},
        "train_claims": len(fit.train),
        "tuning_claims": len(fit.tuning),
        "macro_f1": round(metrics["macro_f1"], 4),
        "f1": {label: round(v["f1"], 4) for label, v in metrics["per_class"].items()},
        "nei_read_as_refutes": [nei.count(REFUTES), len(nei)],
        "refutes_read_as_nei": [refutes.count(NEI), len(refutes)],
        "confusion": metrics["confusion"],
        "weighing_seconds": round(fit.weighing_seconds, 1),
    }


def changed(off: dict, on: dict) -> list[dict]:
    """The tuning claims whose label the slot-conflict check changes, with their gold label."""
    return [
        {"id": cid, "claim": text, "gold": gold, "without": label, "with": on["labels"][cid][1]}
        for cid, (gold, label, text) in off["labels"].items()
        if on["labels"][cid][1] != label
    ]


def _print_changed(moved: list[dict]) -> None:
    for claim in moved:
        print(f"  {claim['id']}: {claim['claim']} (gold {claim['gold']}): {claim['without']} → {claim['with']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results.jsonl of a `fever` run over paper_dev's parts")
    parser.add_argument("--split", type=Path, default=REPO / "training" / "splits" / "fever_paper_dev.json")
    parser.add_argument("--unstated-refutes", type=float, nargs="+", default=[1.0, 0.5, 0.0])
    parser.add_argument(
        "--slot-conflicts", choices=("on", "off"), nargs="+", default=["on"], help="the judge's slot_conflicts"
    )
    parser.add_argument(
        "--unstated-kinds",
        nargs="+",
        default=[],
        help="apply --unstated-refutes only to claims giving a value of these kinds (date, amount, count, …)",
    )
    parser.add_argument(
        "--other-relation-refutes",
        type=float,
        nargs="+",
        default=[1.0],
        help="the judge's other_relation_refutes; with two or more, the tuning claims each value after the first "
        "changes are listed",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    by_key: dict[tuple[float, str, float], dict] = {}
    for value, setting, other in [
        (v, s, o) for v in args.unstated_refutes for s in args.slot_conflicts for o in args.other_relation_refutes
    ]:
        row = by_key[value, setting, other] = figures(
            args.results, args.split, value, setting == "on", tuple(args.unstated_kinds), other
        )
        f1 = row["f1"]
        print(
            f"unstated_refutes {value}{' for ' + '/'.join(args.unstated_kinds) if args.unstated_kinds else ''},"
            f" slot_conflicts {setting}, other_relation_refutes {other}: macro-F1 {row['macro_f1']:.3f} (S"
            f" {f1['SUPPORTS']:.3f} / R {f1[REFUTES]:.3f} / NEI {f1[NEI]:.3f}); NEI → REFUTES"
            f" {row['nei_read_as_refutes'][0]} of {row['nei_read_as_refutes'][1]}; REFUTES → NEI"
            f" {row['refutes_read_as_nei'][0]} of {row['refutes_read_as_nei'][1]}",
            flush=True,
        )
    first = args.other_relation_refutes[0]
    for (value, setting, other), row in by_key.items():
        if setting == "on" and (value, "off", other) in by_key:
            row["changed_by_slot_conflicts"] = moved = changed(by_key[value, "off", other], row)
            print(f"slot_conflicts on, against off (unstated_refutes {value}, other_relation_refutes {other}):")
            _print_changed(moved)
        if other != first:
            row["changed_by_other_relation_refutes"] = moved = changed(by_key[value, setting, first], row)
            print(
                f"other_relation_refutes {other}, against {first} (unstated_refutes {value}, slot_conflicts {setting}):"
            )
            _print_changed(moved)
    rows = list(by_key.values())
    for row in rows:
        row.pop("labels")
    if args.out:
        record = {"results": [str(p) for p in args.results], "machine": machine_record(), "rows": rows}
        args.out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
