"""Does a refutation count only where the evidence speaks to the claim's slot? The judge re-decided on the saved
evidence of a FEVER run for each ``unstated_refutes`` value: the label model fitted on the train part's claims
and scored on the tuning parts it never saw (validation + calibration), as ``scripts/evaluate_scoring.py
--fit-on-train`` fits the shipped judge.

    python -m bench.judge_slots runs/paper-dev/results.jsonl --unstated-refutes 1 0.5 0 --out bench/results/judge_slots.json

For each value: macro-F1 and F1 per label on the tuning parts, how many NOT ENOUGH INFO claims end REFUTES (the
reader taking "says something else" for "says otherwise") and how many REFUTES claims end NOT ENOUGH INFO, and
the time the slot reading took (each claim's refuting items parsed once).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from mermaid_verifier.agents.judge import JudgeConfig
from mermaid_verifier.evaluation.datasets import load_split_ids
from mermaid_verifier.evaluation.judge_fitting import fit_model, load, predictions, weighings
from mermaid_verifier.evaluation.metrics import label_metrics
from mermaid_verifier.weighing.scoring import ReliabilityConfig

REPO = Path(__file__).resolve().parents[1]
NEI, REFUTES = "NOT ENOUGH INFO", "REFUTES"


def cpu_flags() -> list[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16")
    return [flag for flag in wanted if f" {flag}" in text]


def figures(results: list[Path], split: Path, unstated: float) -> dict:
    parts = load(results, load_split_ids(split))
    train, tuning = parts.get("train", []), parts.get("validation", []) + parts.get("calibration", [])
    if not train or not tuning:
        raise SystemExit(f"need train-part and tuning-part results; got {sorted(parts)}")
    base = JudgeConfig.bundled().model_copy(
        update={"model": None, "confidence_model": None, "unstated_refutes": unstated}
    )
    reliability = ReliabilityConfig()
    started = time.monotonic()
    train_weighed, tuning_weighed = weighings(train, reliability, base), weighings(tuning, reliability, base)
    seconds = time.monotonic() - started
    model, _ = fit_model(train, train_weighed, folds=0, fitted_on="train-part claims")
    judge = base.model_copy(update={"model": model})
    gold = [c.gold for c in tuning]
    predicted = [label for label, _, _ in predictions(tuning_weighed, judge)]
    metrics = label_metrics(gold, predicted)
    nei = [p for g, p in zip(gold, predicted) if g == NEI]
    refutes = [p for g, p in zip(gold, predicted) if g == REFUTES]
    return {
        "unstated_refutes": unstated,
        "train_claims": len(train),
        "tuning_claims": len(tuning),
        "macro_f1": round(metrics["macro_f1"], 4),
        "f1": {label: round(v["f1"], 4) for label, v in metrics["per_class"].items()},
        "nei_read_as_refutes": [nei.count(REFUTES), len(nei)],
        "refutes_read_as_nei": [refutes.count(NEI), len(refutes)],
        "confusion": metrics["confusion"],
        "weighing_seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results.jsonl of a `fever` run over paper_dev's parts")
    parser.add_argument("--split", type=Path, default=REPO / "training" / "splits" / "fever_paper_dev.json")
    parser.add_argument("--unstated-refutes", type=float, nargs="+", default=[1.0, 0.5, 0.0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = []
    for value in args.unstated_refutes:
        row = figures(args.results, args.split, value)
        rows.append(row)
        f1 = row["f1"]
        print(
            f"unstated_refutes {value}: macro-F1 {row['macro_f1']:.3f} (S {f1['SUPPORTS']:.3f} / R {f1[REFUTES]:.3f}"
            f" / NEI {f1[NEI]:.3f}); NEI → REFUTES {row['nei_read_as_refutes'][0]} of {row['nei_read_as_refutes'][1]};"
            f" REFUTES → NEI {row['refutes_read_as_nei'][0]} of {row['refutes_read_as_nei'][1]}",
            flush=True,
        )
    if args.out:
        machine = {"cpu_flags": cpu_flags(), "cpus": len(__import__("os").sched_getaffinity(0))}
        machine["python"] = platform.python_version()
        args.out.write_text(
            json.dumps({"results": [str(p) for p in args.results], "machine": machine, "rows": rows}, indent=2) + "\n"
        )


if __name__ == "__main__":
    main()
