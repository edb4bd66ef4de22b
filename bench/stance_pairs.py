"""The stance model alone on labelled (claim, evidence) pairs: argmax accuracy and macro-F1, overall and
per pair origin, through the runtime (onnxruntime, the int8 file that ships).

    python -m bench.stance_pairs training/runs/NAME/pairs/pairs_validation.jsonl
    python -m bench.stance_pairs training/runs/NAME/pairs/pairs_validation_vitaminc.jsonl --model-dir training/runs/NAME/model

Comparing two models on the same pairs file is how a new model earns its place: the pairs come from
``training/build_pairs.py`` (validation pages, and the VitaminC pages held out by title).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

STANCE_TO_LABEL = {"supports": "SUPPORTS", "refutes": "REFUTES", "neutral": "NOT ENOUGH INFO"}


def score_pairs(model, rows: list[dict]) -> dict:
    from mermaid_verifier.evaluation.metrics import pair_figures

    predicted = []
    started = time.perf_counter()
    for row in rows:
        probabilities = model.probabilities(row["claim"], [(row.get("title") or "", row["evidence"])])[0]
        predicted.append(STANCE_TO_LABEL[max(probabilities, key=probabilities.get)])
    seconds = time.perf_counter() - started
    return pair_figures(rows, predicted) | {"pairs_per_second": round(len(rows) / seconds, 1) if seconds else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, help="a pairs_*.jsonl file (claim, evidence, title, label, origin)")
    parser.add_argument("--model-dir", type=Path, default=None, help="default: the bundled stance model")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args()
    from mermaid_verifier.reader.model_check import machine_record
    from mermaid_verifier.reader.stance import StanceModel

    rows = [json.loads(line) for line in args.pairs.open()]
    result = (
        {"pairs_file": str(args.pairs), "model_dir": str(args.model_dir or "bundled")}
        | score_pairs(StanceModel(args.model_dir), rows)
        | {"machine": machine_record()}
    )
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
