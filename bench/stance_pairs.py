"""The stance model alone on labelled (claim, evidence) pairs: argmax accuracy and macro-F1, overall and
per pair origin, through the runtime (onnxruntime, the int8 file that ships).

    python -m bench.stance_pairs training/runs/NAME/pairs/pairs_validation.jsonl
    python -m bench.stance_pairs training/runs/NAME/pairs/pairs_validation_vitaminc.jsonl --model-dir training/runs/NAME/model

Comparing two models on the same pairs file is how a new model earns its place: the pairs come from
``training/build_pairs.py`` (validation pages, and the VitaminC pages held out by title).

Each file is a small sample (the passage file 249 pairs, the list file 60), so one model beating another on it
says little by itself: ``--readings PATH`` writes each pair's reading (``id``: its line in the file, ``gold``,
``verdict``, the three probabilities), and two models' readings of one file compare pair by pair with
``bench.compare_runs`` (the claims only one model reads right, McNemar, a paired bootstrap interval of the
macro-F1 difference):

    python -m bench.stance_pairs PAIRS --readings shipped.jsonl.gz
    python -m bench.stance_pairs PAIRS --model-dir MODEL --readings new.jsonl.gz
    python -m bench.compare_runs shipped.jsonl.gz new.jsonl.gz

Where a model's readings drift by kind of pair, ``--per-group N`` reads a seeded sample of at most N pairs of each
origin (the part before ``:``) and gold label, so that a large file (a training file's replay) is read in minutes,
and ``mean_probability_by_origin_label`` gives each group's mean probability of each stance: a reading that moves
without flipping labels shows there first.

    python -m bench.stance_pairs training/runs/NAME/pairs/pairs_train.jsonl --per-group 120 --model-dir MODEL
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

STANCE_TO_LABEL = {"supports": "SUPPORTS", "refutes": "REFUTES", "neutral": "NOT ENOUGH INFO"}


def group_of(row: dict) -> tuple[str, str]:
    """A pair's group: its origin without the part after ``:``, and its gold label."""
    from training.pick_pairs import origin_of

    return origin_of(row), row["label"]


def per_group_sample(rows: list[dict], per_group: int, seed: int) -> list[dict]:
    """At most ``per_group`` rows of each (origin, label) group, drawn with ``seed``; in file order."""
    if per_group < 1:
        raise ValueError(f"--per-group must be at least 1, not {per_group}")
    from training.pick_pairs import capped

    groups: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(group_of(row), []).append(i)
    return [rows[i] for i in capped(dict(sorted(groups.items())), per_group, random.Random(seed))]


def score_pairs(model, rows: list[dict], readings: list[dict] | None = None) -> dict:
    """The figures of ``model`` on ``rows``; with ``readings``, one ``{id, gold, verdict, probabilities}`` per row is
    appended to it (``id``: the row's ``line`` where it has one, else its place in ``rows``)."""
    from mermaid_verifier.evaluation.metrics import pair_figures

    predicted = []
    sums: dict[tuple[str, str], dict[str, float]] = {}
    counts: dict[tuple[str, str], int] = {}
    started = time.perf_counter()
    for row in rows:
        probabilities = model.probabilities(row["claim"], [(row.get("title") or "", row["evidence"])])[0]
        predicted.append(STANCE_TO_LABEL[max(probabilities, key=probabilities.get)])
        if readings is not None:
            readings.append(
                {
                    "id": str(row.get("line", len(readings) + 1)),
                    "gold": row["label"],
                    "verdict": predicted[-1],
                    "probabilities": {s: round(float(v), 6) for s, v in probabilities.items()},
                }
            )
        key = group_of(row)
        total = sums.setdefault(key, dict.fromkeys(STANCE_TO_LABEL, 0.0))
        for stance in STANCE_TO_LABEL:
            total[stance] += probabilities[stance]
        counts[key] = counts.get(key, 0) + 1
    seconds = time.perf_counter() - started
    means: dict[str, dict[str, dict]] = {}
    for (origin, label), total in sorted(sums.items()):
        n = counts[(origin, label)]
        means.setdefault(origin, {})[label] = {"pairs": n} | {s: round(v / n, 4) for s, v in total.items()}
    return (
        pair_figures(rows, predicted)
        | {"mean_probability_by_origin_label": means}
        | {"pairs_per_second": round(len(rows) / seconds, 1) if seconds else None}
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, help="a pairs_*.jsonl file (claim, evidence, title, label, origin)")
    parser.add_argument("--model-dir", type=Path, default=None, help="default: the bundled stance model")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    parser.add_argument("--per-group", type=int, default=None, help="read at most this many pairs per origin and label")
    parser.add_argument("--seed", type=int, default=13, help="the sample's seed (with --per-group)")
    parser.add_argument(
        "--readings",
        type=Path,
        default=None,
        help="write each pair's reading here (JSON lines, gzip where the name ends .gz), for bench.compare_runs",
    )
    args = parser.parse_args()
    from mermaid_verifier.reader.model_check import machine_record
    from mermaid_verifier.reader.stance import StanceModel

    if not args.pairs.is_file():
        parser.error(f"{args.pairs}: no such pairs file")
    with args.pairs.open(encoding="utf-8") as handle:
        rows = [json.loads(line) | {"line": number} for number, line in enumerate(handle, start=1) if line.strip()]
    unlabelled = sum(1 for row in rows if row.get("label") is None)
    rows = [row for row in rows if row.get("label") is not None]
    if not rows:
        parser.error(f"{args.pairs}: no labelled pairs (rows with a 'label') to read")
    readings: list[dict] | None = [] if args.readings else None
    sample = {}
    if args.per_group is not None:
        try:
            rows = per_group_sample(rows, args.per_group, args.seed)
        except ValueError as error:
            parser.error(str(error))
        sample = {"per_group": args.per_group, "seed": args.seed}
    result = (
        {"pairs_file": str(args.pairs), "model_dir": str(args.model_dir or "bundled")}
        | ({"sample": sample} if sample else {})
        | ({"unlabelled_left_out": unlabelled} if unlabelled else {})
        | score_pairs(StanceModel(args.model_dir), rows, readings)
        | {"machine": machine_record()}
    )
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    if args.readings:
        from bench.compare_runs import write_rows

        write_rows(args.readings, readings or [])


if __name__ == "__main__":
    main()
