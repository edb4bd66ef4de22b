"""Add a trained teacher's probabilities to training pairs, for distillation into the small model.

    /tmp/train/bin/python -m training.teacher_labels --model RUN/final --pairs RUN/pairs --out DIR
    /tmp/train/bin/python -m training.train_stance --run-dir training/runs/student --pairs DIR --distill-weight 0.5 --ship

Every ``pairs_*.jsonl`` in ``--pairs`` is copied to ``--out`` with a ``"teacher": [P(S), P(R), P(NEI)]``
field on each row. ``--from-labels FILE`` takes the probabilities from a labels file instead of a model: the
``teacher_labels.json.gz`` a GPU run writes (``device_train.py``), kept in git under ``training/records/``,
which names each pairs file by SHA-256, so the labels attach only to the very pairs they were made for.
Labelling with a large model over 50k pairs takes a while on a CPU, so rows are written in chunks to
``NAME.partial`` and a rerun continues after the last complete chunk; the file gets its final name only
when every row is labelled.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import sys
import time
from pathlib import Path

import orjson
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from training.trainer import LABELS, jsonl_rows, predict, use_bf16

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
    rows = jsonl_rows(source.read_bytes())
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


def load_labels(labels_file: Path) -> dict:
    """A ``teacher_labels.json.gz`` (``device_train.py``): its probabilities in ``LABELS`` order, by pairs file."""
    labels = orjson.loads(gzip.decompress(Path(labels_file).read_bytes()))
    if labels.get("labels") != LABELS:
        raise SystemExit(f"{labels_file}: its probabilities are not in the order {LABELS}")
    return labels


def _row_key(row: dict) -> tuple:
    return row["claim"], row.get("title") or "", row["evidence"], row["label"]


def _labelled_rows(labels_file: Path, name: str, entry: dict, source: Path) -> list[dict]:
    """The rows of ``source`` with the probabilities ``entry`` holds for them; refuses other bytes."""
    if not source.exists():
        raise SystemExit(f"{source}: missing; {labels_file} labels it (SHA-256 {entry['sha256'][:16]}…)")
    data = source.read_bytes()
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise SystemExit(
            f"{source} is not the file {labels_file} labels (SHA-256 {entry['sha256'][:16]}…): rebuild the"
            " pairs at the commit its record names"
        )
    rows = jsonl_rows(data)
    if len(entry["probabilities"]) != len(rows):
        raise SystemExit(
            f"{labels_file}: {len(entry['probabilities'])} probabilities for the {len(rows)} rows of {name}"
        )
    return [row | {"teacher": probs} for row, probs in zip(rows, entry["probabilities"])]


def attach_labels(
    labels_file: Path, pairs: Path, out: Path, labelled_pairs: Path | None = None
) -> dict[str, list[int]]:
    """Copy each pairs file that ``labels_file`` labels into ``out``, its rows with their teacher
    probabilities; returns [rows with probabilities, rows] per file.

    Without ``labelled_pairs`` the files in ``pairs`` must be the very bytes labelled. With it, that folder
    holds them (rebuilt at the commit the record names; checked by SHA-256) and ``pairs`` a later build:
    a row there gets the probabilities of the same pair (claim, title, evidence, label) in the labelled
    build, and a pair new since then gets none (it learns from its gold label alone)."""
    labels = load_labels(labels_file)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, entry in labels["files"].items():
        labelled = _labelled_rows(labels_file, name, entry, (labelled_pairs or pairs) / name)
        if labelled_pairs is None:
            rows = labelled
        else:
            if not (pairs / name).exists():
                raise SystemExit(f"{pairs / name}: missing (the later build to label)")
            known = {_row_key(row): row["teacher"] for row in labelled}
            rows = jsonl_rows((pairs / name).read_bytes())
            rows = [row | {"teacher": known[_row_key(row)]} if _row_key(row) in known else row for row in rows]
        (out / name).write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
        written[name] = [sum("teacher" in row for row in rows), len(rows)]
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Add a teacher model's probabilities to training pairs (resumable).")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", type=Path, help="a trained run's final/ directory")
    source.add_argument("--from-labels", type=Path, help="a teacher_labels.json.gz that a GPU run wrote")
    parser.add_argument(
        "--labelled-pairs",
        type=Path,
        default=None,
        help="with --from-labels: the pairs exactly as labelled (rebuilt at the record's commit), when --pairs is a"
        " later build; its pairs that were labelled then get their probabilities, new ones none",
    )
    parser.add_argument("--pairs", type=Path, required=True, help="directory of pairs_*.jsonl")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--precision", choices=("auto", "bf16", "fp32"), default="auto", help="auto: bf16 where the CPU has bf16 units"
    )
    args = parser.parse_args(argv)
    if args.from_labels:
        print(attach_labels(args.from_labels, args.pairs, args.out, args.labelled_pairs))
        return 0
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
