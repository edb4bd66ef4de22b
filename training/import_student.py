"""Rebuild a student that ``device_train.py`` trained on a lent GPU, and export it as the runtime reads it.

    /tmp/train/bin/python -m training.import_student --returned DEVICE_OUT --weights PACK_DIR \\
        --run-dir training/runs/mpnet6-gpu --pairs PAIRS [--ship]

The student's word embeddings are the carried base's (``weight_pack.py`` parts in ``--weights``; frozen
while it trained); every other weight comes from ``DEVICE_OUT/student-N.safetensors``. The run directory
gets ``final/`` (the float model), ``model/`` (int8 ONNX, tokenizer, stance_config.json) and
``metrics.json`` with the rebuilt float model's validation figures, as ``train_stance.py`` writes them,
and the device run's own ``metrics.json`` under ``device_run``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

from training.device_train import DEFAULT_STUDENT_LAYERS, WORD_EMBEDDINGS
from training.train_stance import base_model, finish_run, keep_layers, load_pairs, ship
from training.trainer import file_sha256
from training.weight_pack import unpack, unpack_state


def rebuild(returned: Path, weights: list[Path], work: Path, layers: list[int], seed: int = 21):
    """(tokenizer, student model keeping the base's encoder ``layers``) from the returned parts and the carried
    base."""
    base_dir = unpack(weights, work / "base")
    tokenizer, model, _ = base_model(str(base_dir), seed)
    model = keep_layers(model, layers)
    parts = sorted(returned.glob("student-*.safetensors"))
    if not parts:
        raise SystemExit(f"no student-N.safetensors in {returned}")
    state = unpack_state([load_file(str(p)) for p in parts])
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or [k for k in missing if not k.endswith(WORD_EMBEDDINGS)]:
        raise SystemExit(f"{returned}: the student's weights do not fit (missing {missing}, unexpected {unexpected})")
    carried = ", ".join(
        f"{p.name} {file_sha256(p)[:16]}" for d in weights for p in sorted(Path(d).glob("part-*.safetensors"))
    )
    return tokenizer, model, f"the base as carried ({carried}), encoder layers {layers} kept, trained on a GPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Rebuild, check and export a student trained on a lent GPU.")
    parser.add_argument("--returned", type=Path, required=True, help="the device run's $OUT, as it came back")
    parser.add_argument("--weights", type=Path, nargs="+", required=True, help="the weight_pack.py parts carried")
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--pairs", type=Path, required=True, help="the pairs the device run read, uncompressed")
    parser.add_argument("--ship", action="store_true", help="copy the exported model into data/stance_model/")
    args = parser.parse_args(argv)
    torch.set_num_threads(2)
    device_metrics = json.loads((args.returned / "metrics.json").read_text())
    for stem, recorded in device_metrics["pairs"].items():
        path = args.pairs / f"{stem}.jsonl"
        if not path.exists() or file_sha256(path) != recorded["sha256"]:
            raise SystemExit(f"{path} is not the file the device run read (SHA-256 {recorded['sha256'][:16]}…)")
    run = args.run_dir
    run.mkdir(parents=True, exist_ok=True)
    layers = device_metrics["student"].get("layers") or DEFAULT_STUDENT_LAYERS  # a record without them kept these
    tokenizer, model, description = rebuild(args.returned, args.weights, run / "work", layers)
    validation = load_pairs(args.pairs / "pairs_validation.jsonl")
    teacher = {k: v for k, v in device_metrics["teacher"].items() if k not in {"validation", "loss_per_100_steps"}}
    settings = {
        "train_pairs": device_metrics["pairs"]["pairs_train"]["rows"],
        "student": {k: device_metrics["student"][k] for k in ("epochs", "lr", "pairs", "distill_weight")},
        "teacher": teacher,
    }
    finish_run(run, model, tokenizer, validation, args.pairs, description, settings, {"device_run": device_metrics})
    shutil.rmtree(run / "work")
    if args.ship:
        ship(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
