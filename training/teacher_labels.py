"""Add a trained teacher's probabilities to training pairs, for distillation into the small model.

    /tmp/train/bin/python training/teacher_labels.py --model RUN/final --pairs RUN/pairs --out DIR
    /tmp/train/bin/python training/train_stance.py --run-dir training/runs/student --pairs DIR --distill-weight 0.5 --ship

Every ``pairs_*.jsonl`` in ``--pairs`` is copied to ``--out`` with a ``"teacher": [P(S), P(R), P(NEI)]``
field on each row. Labelling a large model over 50k pairs takes a while on a CPU, so rows are written in
chunks to ``NAME.partial`` and a rerun continues after the last complete chunk; the file gets its final
name only when every row is labelled.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import orjson
import torch
from trainer import LABELS, predict, use_bf16
from transformers import AutoModelForSequenceClassification, AutoTokenizer

CHUNK = 512


def labelled_rows_done(partial: Path) -> int:
    """Complete rows already in ``partial``; a torn last line (the process was killed mid-write) is cut off."""
    if not partial.exists():
        return 0
    data = partial.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        partial.write_bytes(complete)
    return complete.count(b"\n")


def label_file(model, tokenizer, source: Path, target: Path, *, bf16: bool, log=print) -> int:
    """Write ``source``'s rows with teacher probabilities to ``target``; returns the rows labelled now."""
    if target.exists():
        log(f"{target.name}: already labelled")
        return 0
    rows = [orjson.loads(line) for line in source.read_bytes().splitlines() if line.strip()]
    partial = target.with_name(target.name + ".partial")
    done = labelled_rows_done(partial)
    started, labelled = time.monotonic(), 0
    with partial.open("ab") as out:
        for start in range(done, len(rows), CHUNK):
            chunk = rows[start : start + CHUNK]
            probabilities = predict(model, tokenizer, chunk, bf16=bf16)
            out.write(
                b"".join(
                    orjson.dumps(row | {"teacher": [round(float(p), 4) for p in probs]}) + b"\n"
                    for row, probs in zip(chunk, probabilities)
                )
            )
            out.flush()
            os.fsync(out.fileno())
            labelled += len(chunk)
            rate = labelled / (time.monotonic() - started)
            log(f"{source.name}: {start + len(chunk)}/{len(rows)} rows ({rate:.1f} rows/s)")
    os.replace(partial, target)
    return labelled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Add a teacher model's probabilities to training pairs (resumable).")
    parser.add_argument("--model", type=Path, required=True, help="a trained run's final/ directory")
    parser.add_argument("--pairs", type=Path, required=True, help="directory of pairs_*.jsonl")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--precision", choices=("auto", "bf16", "fp32"), default="auto", help="auto: bf16 where the CPU has bf16 units"
    )
    args = parser.parse_args(argv)
    for path in (args.model, args.pairs):
        if not path.is_dir():
            raise SystemExit(f"not a directory: {path}")
    torch.set_num_threads(2)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSequenceClassification.from_pretrained(args.model)
    if [model.config.id2label[i] for i in range(len(LABELS))] != LABELS:
        raise SystemExit(f"{args.model} does not predict {LABELS} in this order")
    args.out.mkdir(parents=True, exist_ok=True)
    for source in sorted(args.pairs.glob("pairs_*.jsonl")):
        label_file(model, tokenizer, source, args.out / source.name, bf16=use_bf16(args.precision))
    return 0


if __name__ == "__main__":
    sys.exit(main())
