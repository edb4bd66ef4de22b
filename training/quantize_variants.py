"""Which parts of a trained stance model should stay in float when it is quantised to int8?

Exports a finished run's ``final`` model to float ONNX once, quantises it per variant (dynamic int8, per
channel; the MatMuls a variant names stay float), and reads the validation pairs with each one *as the
runtime does* (``mermaid_verifier.reader.stance.StanceModel``, one pair per run):

    python -m training.quantize_variants --run-dir training/runs/NAME --out /tmp/quant-NAME \\
        [--files validation,edits,kinds] [--variants all-int8,head,last-layer,...]

``--ship VARIANT`` copies the chosen variant (model, tokenizer, and a ``stance_config.json`` that records
the variant and its validation figures as read) into ``data/stance_model/``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from transformers import AutoModelForSequenceClassification, AutoTokenizer

from mermaid_verifier.evaluation.metrics import pair_figures
from mermaid_verifier.reader.stance import StanceModel
from training.train_stance import REPO, export_fp32, load_pairs, quantize, write_json

FLOAT = "float"  # no quantisation: the reference the int8 variants lose against
VARIANTS: dict[str, tuple[str, ...]] = {
    FLOAT: (),
    "all-int8": (),
    "last-layer": ("layer.5/",),
    "first-layer": ("layer.0/",),
    "first-two": ("layer.0/", "layer.1/"),
    "first-last": ("layer.0/", "layer.5/"),
    "ffn-output": ("output/dense",),
}  # the classifier head's Gemm nodes are quantised too (as MatMuls): name them (e.g. "classifier") to keep them float
SHIPPED = REPO / "data" / "stance_model"
STANCE_OF = {"SUPPORTS": "supports", "REFUTES": "refutes", "NOT ENOUGH INFO": "neutral"}
LABEL_OF = {v: k for k, v in STANCE_OF.items()}


def read(model_dir: Path, rows: list[dict]) -> list[str]:
    model = StanceModel(model_dir)
    out = []
    for row in rows:
        (p,) = model.probabilities(row["claim"], [(row.get("title") or "", row["evidence"])])
        out.append(LABEL_OF[max(p, key=p.get)])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, required=True, help="a finished run: its final/, pairs/ and model/")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--files", default="validation,edits,kinds")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument(
        "--ship", choices=sorted(VARIANTS), default=None, help="copy this variant into data/stance_model/"
    )
    args = parser.parse_args()
    if args.ship and args.ship not in args.variants.split(","):
        parser.error(f"--ship {args.ship} must be one of the --variants read")
    tokenizer = AutoTokenizer.from_pretrained(args.run_dir / "final")
    model = AutoModelForSequenceClassification.from_pretrained(args.run_dir / "final")
    files = {
        name: load_pairs(
            args.run_dir
            / "pairs"
            / ("pairs_validation.jsonl" if name == "validation" else f"pairs_validation_{name}.jsonl")
        )
        for name in args.files.split(",")
    }
    args.out.mkdir(parents=True, exist_ok=True)
    fp32 = args.out / "model.fp32.onnx"
    if not fp32.exists():
        export_fp32(model, tokenizer, fp32, files[next(iter(files))])
    results = {}
    for variant in args.variants.split(","):
        target = args.out / variant
        target.mkdir(exist_ok=True)
        if variant == FLOAT:
            shutil.copyfile(fp32, target / "model.onnx")
        else:
            quantize(fp32, target / "model.onnx", VARIANTS[variant])
        tokenizer.backend_tokenizer.save(str(target / "tokenizer.json"))
        config = json.loads((args.run_dir / "model" / "stance_config.json").read_text())
        for stale in ("int8_vs_torch_argmax_agreement", "pairs_compared"):  # they describe the run's own export
            config.pop(stale, None)
        config.update(
            quantisation=variant, kept_float=list(VARIANTS[variant]), size_bytes=(target / "model.onnx").stat().st_size
        )
        write_json(target / "stance_config.json", config)
        started = time.monotonic()
        figures = {name: pair_figures(rows, read(target, rows)) for name, rows in files.items()}
        config["as_read"] = figures  # the runtime's reading of each validation file with this file
        write_json(target / "stance_config.json", config)
        results[variant] = {
            "size_mb": round((target / "model.onnx").stat().st_size / 1e6, 1),
            "seconds": round(time.monotonic() - started, 1),
            **{name: f["macro_f1"] for name, f in figures.items()},
        }
        print(json.dumps({variant: results[variant]}), flush=True)
    (args.out / "variants.json").write_text(json.dumps(results, indent=2) + "\n")
    if args.ship:
        source = args.out / args.ship
        for name in ("model.onnx", "tokenizer.json", "stance_config.json"):
            shutil.copyfile(source / name, SHIPPED / name)
        print(f"shipped {source} into {SHIPPED} (update MODEL_CARD.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
