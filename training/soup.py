"""Average the weights of stance models fine-tuned from the same base ("model soup"), and export the result
as the runtime reads it.

    /tmp/train/bin/python -m training.soup --model training/runs/mpnet6-gpu3/final \\
        --model training/runs/mpnet6-gpu/final --run-dir training/runs/soup-gpu-gpu3 --pairs PAIRS [--ship]

Each ``--model`` is a float model directory (a run's ``final/``), optionally ``DIR=WEIGHT`` (weights are
normalised to sum to 1; equal when none is given). Every model must have the same architecture and
parameter names; floating-point tensors are averaged, integer buffers (position ids) must be identical.
The run directory gets ``final/``, ``model/`` (int8 ONNX, tokenizer, stance_config.json) and
``metrics.json`` with the soup's validation figures, as ``train_stance.py`` writes them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from training.train_stance import finish_run, load_pairs, ship
from training.trainer import file_sha256


def parse_model(text: str) -> tuple[Path, float]:
    path, _, weight = text.partition("=")
    try:
        value = float(weight) if weight else 1.0
    except ValueError:
        raise SystemExit(f"--model {text}: the weight after '=' must be a number") from None
    if value <= 0:
        raise SystemExit(f"--model {text}: the weight must be positive")
    return Path(path), value


def average_states(states: list[dict[str, torch.Tensor]], weights: list[float]) -> dict[str, torch.Tensor]:
    """The weighted mean of ``states`` (same keys and shapes); integer tensors must agree and are kept."""
    if len(states) != len(weights) or not states:
        raise ValueError("one weight per state, at least one state")
    keys = set(states[0])
    for i, state in enumerate(states[1:], start=1):
        if set(state) != keys:
            raise ValueError(f"model {i} has other parameters than model 0: {sorted(set(state) ^ keys)[:5]}")
    total = sum(weights)
    out = {}
    for key, first in states[0].items():
        tensors = [state[key] for state in states]
        if any(t.shape != first.shape for t in tensors):
            raise ValueError(f"{key}: shapes differ {[tuple(t.shape) for t in tensors]}")
        if first.is_floating_point():
            out[key] = sum(t.double() * (w / total) for t, w in zip(tensors, weights, strict=True)).to(first.dtype)
        elif all(torch.equal(t, first) for t in tensors):
            out[key] = first.clone()
        else:
            raise ValueError(f"{key}: integer tensors differ between the models")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Average stance models fine-tuned from one base, export the mean.")
    parser.add_argument("--model", action="append", required=True, metavar="DIR[=WEIGHT]", help="a float model")
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--pairs", type=Path, required=True, help="a build_pairs.py directory (validation files)")
    parser.add_argument("--ship", action="store_true", help="copy the exported model into data/stance_model/")
    args = parser.parse_args(argv)
    if len(args.model) < 2:
        parser.error("name at least two --model directories")
    torch.set_num_threads(2)
    members = [parse_model(text) for text in args.model]
    for path, _ in members:
        if not (path / "model.safetensors").exists():
            raise SystemExit(f"--model {path}: no model.safetensors there (a run's final/ directory)")
    if (args.run_dir / "metrics.json").exists():
        raise SystemExit(f"{args.run_dir} already holds a run; choose another --run-dir")
    models = [AutoModelForSequenceClassification.from_pretrained(str(path)) for path, _ in members]
    try:
        state = average_states([m.state_dict() for m in models], [w for _, w in members])
    except ValueError as error:
        raise SystemExit(f"the models cannot be averaged: {error}") from error
    model = models[0]
    model.load_state_dict(state)
    del models[1:]
    tokenizer = AutoTokenizer.from_pretrained(str(members[0][0]))
    total = sum(w for _, w in members)
    description = "weight average of " + ", ".join(
        f"{path} ({w / total:.3f}; {file_sha256(path / 'model.safetensors')[:16]})" for path, w in members
    )
    run = args.run_dir
    run.mkdir(parents=True, exist_ok=True)
    validation = load_pairs(args.pairs / "pairs_validation.jsonl")
    settings = {"members": [[str(p), w / total] for p, w in members]}
    finish_run(run, model, tokenizer, validation, args.pairs, description, settings, {})
    if args.ship:
        ship(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
