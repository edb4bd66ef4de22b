"""Tiny training data and arguments for the trainer's tests."""

from __future__ import annotations

import json
from pathlib import Path


def tiny_rows(n: int = 36) -> list[dict]:
    subjects = ["Paris", "Berlin", "Rome", "Madrid", "Vienna", "Oslo"]
    rows = []
    for i in range(n):
        subject = subjects[i % len(subjects)]
        rows.append(
            {
                "claim": f"{subject} is a capital city number {i}.",
                "title": subject,
                "evidence": f"{subject} is the capital of a country" + " and a large city" * (i % 4) + ".",
                "label": LABELS[i % 3],
                "origin": "fever" if i % 2 else "climate-fever",
            }
        )
    return rows


def write_pairs(directory: Path) -> Path:
    directory.mkdir()
    for name, rows in (("pairs_train.jsonl", tiny_rows()), ("pairs_validation.jsonl", tiny_rows(9))):
        (directory / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return directory


def smoke_args(run: Path, shared: Path) -> list[str]:
    """The command line of a smoke run of the tiny model in ``run`` (fp32: the same on every CPU)."""
    return ["--run-dir", str(run), "--base", "tiny", "--plan", "smoke", "--precision", "fp32", "--shared", str(shared)]


LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
