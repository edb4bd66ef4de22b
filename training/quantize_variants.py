"""Which parts of a trained stance model should stay in float when it is quantised to int8?

Exports a finished run's ``final`` model to float ONNX once, quantises it per variant (dynamic int8, per
channel; the MatMuls a variant names stay float), and reads the validation pairs with each one *as the
runtime does* (``mermaid_verifier.stance.StanceModel``, one pair per run):

    python training/quantize_variants.py --run-dir training/runs/NAME --out /tmp/quant-NAME \\
        [--files validation,edits,kinds] [--variants all-int8,head,last-layer,...]

A variant that wins is exported by ``train_stance.py --keep-float ...``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from train_stance import export_fp32, load_pairs, quantize
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from mermaid_verifier.evaluation.metrics import pair_figures
from mermaid_verifier.stance import StanceModel

FLOAT = "float"  # no quantisation: the reference the int8 variants lose against
VARIANTS: dict[str, tuple[str, ...]] = {
    FLOAT: (),
    "all-int8": (),
    "head": ("classifier",),
    "last-layer": ("classifier", "layer.5/"),
    "first-last": ("classifier", "layer.0/", "layer.5/"),
    "ffn-output": ("classifier", "output/dense"),
}
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
    args = parser.parse_args()
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
        shutil.copyfile(args.run_dir / "model" / "stance_config.json", target / "stance_config.json")
        started = time.monotonic()
        figures = {name: pair_figures(rows, read(target, rows)) for name, rows in files.items()}
        results[variant] = {
            "size_mb": round((target / "model.onnx").stat().st_size / 1e6, 1),
            "seconds": round(time.monotonic() - started, 1),
            **{name: f["macro_f1"] for name, f in figures.items()},
        }
        print(json.dumps({variant: results[variant]}), flush=True)
    (args.out / "variants.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
