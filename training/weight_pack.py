"""Carry an encoder's weights to a lent GPU machine, and a trained model's weights back, in small files.

A lent machine reaches nothing outside itself and takes at most 64 MiB of files per call, and gives back at
most 8 files of 16 MiB; all-mpnet-base-v2 is 438 MB in float32. So weights travel as int8, one scale per
row (per output channel), which keeps ~0.9 % relative error per matrix: a start for fine-tuning, and
lossless again under the runtime's own per-channel int8 quantisation of the same rows. Tensors of fewer
than ``SMALL`` values (biases, layer norms) travel in float32.

    python -m training.weight_pack pack MODEL_DIR OUT_DIR --parts "embeddings,layer.0-4" "layer.5-11"

writes one ``part-N.safetensors`` per group (a tensor belongs to the first group one of whose patterns it
matches; ``layer.A-B`` names encoder layers A..B) and ``part-0`` holds the configuration and tokenizer
files. ``unpack`` makes a Hugging Face model directory of the parts again.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

SMALL = 65_536  # tensors with fewer values travel in float32
SIDE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")
_LAYER_RANGE = re.compile(r"^layer\.(\d+)-(\d+)$")


def quantise(tensor: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(int8 values, float32 scale per row) of a 2-D float tensor: absmax over each row maps to 127."""
    values = tensor.float()
    scale = (values.abs().amax(dim=1, keepdim=True) / 127).clamp(min=1e-12)
    return torch.round(values / scale).clamp(-127, 127).to(torch.int8), scale.squeeze(1)


def dequantise(values: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return values.float() * scale.unsqueeze(1)


def _matches(name: str, pattern: str) -> bool:
    layer_range = _LAYER_RANGE.match(pattern)
    if layer_range:
        found = re.search(r"\blayer\.(\d+)\.", name)
        return bool(found) and int(layer_range[1]) <= int(found[1]) <= int(layer_range[2])
    return pattern in name


def pack_state(state: dict[str, torch.Tensor], groups: list[list[str]]) -> list[dict[str, torch.Tensor]]:
    """``state`` split by ``groups`` (each a list of patterns; the last group takes what none matched) with
    large float matrices as int8 + scale (``NAME.int8``, ``NAME.scale``) and everything else as float32."""
    parts: list[dict[str, torch.Tensor]] = [{} for _ in groups]
    for name, tensor in state.items():
        index = next((i for i, group in enumerate(groups) if any(_matches(name, p) for p in group)), len(groups) - 1)
        if tensor.is_floating_point() and tensor.dim() == 2 and tensor.numel() >= SMALL:
            values, scale = quantise(tensor)
            parts[index][f"{name}.int8"], parts[index][f"{name}.scale"] = values, scale
        else:
            parts[index][name] = tensor.float().contiguous() if tensor.is_floating_point() else tensor.contiguous()
    return parts


def unpack_state(parts: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The float state of ``pack_state``'s parts (int8 matrices dequantised)."""
    state: dict[str, torch.Tensor] = {}
    for part in parts:
        for name, tensor in part.items():
            if name.endswith(".int8"):
                base = name.removesuffix(".int8")
                state[base] = dequantise(tensor, part[f"{base}.scale"])
            elif not name.endswith(".scale"):
                state[name] = tensor
    return state


def pack(model_dir: Path, out_dir: Path, groups: list[list[str]]) -> list[Path]:
    """Write ``model_dir``'s weights as ``part-1..N.safetensors`` and its side files as ``part-0/``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for number, part in enumerate(pack_state(load_file(str(model_dir / "model.safetensors")), groups), start=1):
        path = out_dir / f"part-{number}.safetensors"
        save_file(part, str(path))
        written.append(path)
    side = out_dir / "part-0"
    side.mkdir(exist_ok=True)
    for name in SIDE_FILES:
        if (model_dir / name).exists():
            shutil.copyfile(model_dir / name, side / name)
    return written


def unpack(part_dirs: list[Path], out_dir: Path) -> Path:
    """A Hugging Face model directory at ``out_dir`` from the parts found in ``part_dirs``."""
    files = sorted({p for d in part_dirs for p in Path(d).glob("part-*.safetensors")}, key=lambda p: p.name)
    side = next((Path(d) / "part-0" for d in part_dirs if (Path(d) / "part-0" / "config.json").exists()), None)
    if not files or side is None:
        raise SystemExit(f"no weight parts and part-0/config.json in {', '.join(map(str, part_dirs))}")
    out_dir.mkdir(parents=True, exist_ok=True)
    save_file(unpack_state([load_file(str(p)) for p in files]), str(out_dir / "model.safetensors"))
    for path in side.iterdir():
        shutil.copyfile(path, out_dir / path.name)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Pack encoder weights as int8 parts, or unpack them.")
    sub = parser.add_subparsers(dest="command", required=True)
    packer = sub.add_parser("pack")
    packer.add_argument("model_dir", type=Path)
    packer.add_argument("out_dir", type=Path)
    packer.add_argument(
        "--parts", nargs="+", required=True, help='groups of comma-separated patterns, e.g. "layer.0-4"'
    )
    unpacker = sub.add_parser("unpack")
    unpacker.add_argument("out_dir", type=Path)
    unpacker.add_argument("part_dirs", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "pack":
        written = pack(args.model_dir, args.out_dir, [group.split(",") for group in args.parts])
        print(json.dumps({p.name: p.stat().st_size for p in written}))
    else:
        print(unpack(args.part_dirs, args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
