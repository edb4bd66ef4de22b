"""What runs on a lent GPU in one call: train the all-mpnet-base-v2 teacher on every training pair, label
every pair with it, distil a 6-layer student from it, and write back only small files.

    # here: pack the base (weight_pack.py) and the pairs; a first call copies part 1 to the machine's /tmp
    # (each call carries at most 64 MiB), and the second, carrying part 2 and the pairs (with --teacher-labels,
    # orjson's wheel too: the image lacks it, and only teacher_labels.py needs it):
    PYTHONPATH=/tmp/site python3 -m training.device_train --weights /tmp/pack1 .devpack2 \\
        --pairs .devpack2/pairs --out $OUT --teacher-seconds 230 --student-seconds 160

(docs/training.md, "On a lent GPU", has the whole recipe.)

Each phase fits its wall-time share: a short probe of real training steps measures steps/s, and the number
of epochs is the most that fits (at least one; fewer pairs if not even one fits). Files written to
``--out`` as soon as each is ready, so a call cut short still returns what was done:

- ``metrics.json``: steps, minutes and the validation figures of teacher and student;
- ``teacher_labels.json.gz``: the teacher's (S, R, NEI) probabilities for every row of every pairs file,
  in row order, with each file's SHA-256 (``teacher_labels.py --from-labels`` attaches them);
- ``student-N.safetensors``: the student's weights but its word embeddings, which stay frozen at the
  carried base's (``weight_pack.py`` format; ``import_student.py`` rebuilds and exports the model here).
"""

from __future__ import annotations

import argparse
import copy
import gzip
import hashlib
import json
import lzma
import math
import random
import sys
import time
from pathlib import Path

import torch
from safetensors.torch import save_file
from transformers import AutoTokenizer

from mermaid_verifier.errors import TrainingStopped
from training.train_stance import base_model, keep_layers, score
from training.trainer import (
    LABEL_IDS,
    LABELS,
    MAX_LENGTH,
    Stage,
    Trainer,
    batch_order,
    encode,
    jsonl_rows,
    predict,
    write_json,
)
from training.weight_pack import pack_state, unpack

DEFAULT_STUDENT_LAYERS = [0, 2, 4, 6, 8, 10]  # every other layer of a 12-layer base
STUDENT_PARTS = [["layer.0-1"], ["layer.2-3"], ["layer.4-5"]]  # each part under the 16 MiB a returned file may be
WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


def run_log(path: Path, started: float):
    """A log function for a device call: each line stamped with the seconds since ``started``, printed and
    appended to ``path`` at once (a call cut short still returns what it logged)."""
    log_file = path.open("a")

    def log(line: str) -> None:
        stamped = f"{time.monotonic() - started:7.1f}s {line}"
        print(stamped, flush=True)
        log_file.write(stamped + "\n")
        log_file.flush()

    return log


def read_pairs(directory: Path) -> dict[str, tuple[list[dict], str]]:
    """Each ``pairs_*.jsonl[.gz|.xz]`` file's rows and the SHA-256 of its uncompressed bytes, by file stem."""
    files: dict[str, tuple[list[dict], str]] = {}
    for path in sorted(directory.glob("pairs_*.jsonl*")):
        data = {".gz": gzip.decompress, ".xz": lzma.decompress}.get(path.suffix, bytes)(path.read_bytes())
        stem = path.name.split(".")[0]
        files[stem] = (
            jsonl_rows(data),
            hashlib.sha256(data).hexdigest(),
        )
    if "pairs_train" not in files or "pairs_validation" not in files:
        raise SystemExit(f"{directory} lacks pairs_train.jsonl(.gz) or pairs_validation.jsonl(.gz)")
    return files


def steps_per_second(
    model,
    tokenizer,
    rows: list[dict],
    batch_size: int,
    device: str,
    steps: int = 24,
    max_length: int = MAX_LENGTH,
    bf16: bool = True,
    seed: int = 0,
) -> float:
    """Whole training steps per second (forward, backward, clipping and the AdamW step) on the batches training
    takes first: ``trainer.batch_order``'s, sorted by length within windows, so padding is what training pads.
    The steps run on a copy of ``model``: the model itself is left as it was."""
    probe = copy.deepcopy(model)
    probe.train()
    optimizer = torch.optim.AdamW([p for p in probe.parameters() if p.requires_grad], lr=1e-9)
    order = batch_order(rows, batch_size, seed, 0, 0)
    timed = 0.0
    for step in range(steps + 4):  # the first 4 warm the kernels up and are not timed
        batch = [rows[i] for i in order[step % len(order)]]
        inputs = encode(tokenizer, batch, max_length=max_length).to(device)
        labels = torch.tensor([LABEL_IDS[r["label"]] for r in batch], device=device)
        if device == "cuda":
            torch.cuda.synchronize()
        started = time.monotonic()
        with torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=bf16):
            loss = torch.nn.functional.cross_entropy(probe(**inputs).logits.float(), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(probe.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if device == "cuda":
            torch.cuda.synchronize()
        if step >= 4:
            timed += time.monotonic() - started
    del probe, optimizer
    return steps / timed


PLAN_MARGIN = 1.1  # the probe times whole steps; tokenising and logging add a little


def fit_epochs(rate: float, pairs: int, batch_size: int, seconds: float, most: int) -> tuple[int, int]:
    """(epochs, pairs per epoch) that fit ``seconds`` at ``rate`` whole steps/s, with ``PLAN_MARGIN`` to spare."""
    affordable_steps = rate * seconds / PLAN_MARGIN
    epochs = min(most, int(affordable_steps // math.ceil(pairs / batch_size)))
    if epochs >= 1:
        return epochs, pairs
    return 1, max(batch_size, int(affordable_steps * batch_size))


def rows_digest(rows: list[dict]) -> str:
    """SHA-256 of the training rows as trained (a resumed run must train on the very rows its plan was made for)."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


def freeze_bottom(model, layers: int) -> int:
    """Freeze the embeddings and the bottom ``layers`` encoder layers, and with them anything every layer shares
    (MPNet's ``relative_attention_bias``, which otherwise keeps backward running through every layer); returns
    the number of parameters left to train."""
    if layers <= 0:
        return sum(p.numel() for p in model.parameters() if p.requires_grad)
    encoder = model.base_model.encoder
    if layers >= len(encoder.layer):
        raise SystemExit(f"--freeze-layers {layers}: the model has {len(encoder.layer)} layers; freeze fewer")
    for module in [model.base_model.embeddings, *encoder.layer[:layers]]:
        module.requires_grad_(False)
    for name, parameter in encoder.named_parameters():
        if not name.startswith("layer."):  # shared by every layer (MPNet: relative_attention_bias)
            parameter.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def train_phase(
    name, model, tokenizer, rows, *, lr, seconds, most_epochs, batch_size, device, seed, distill, work, log,
    max_length=MAX_LENGTH, hard_seconds=None, probe_steps=24, bf16=True, checkpoint_seconds=1e9, resume=False,
    log_every=100, average_from=0.0, average_every=10,
):  # fmt: skip
    """Train ``model`` on ``rows`` within ``seconds``; returns what the phase did. Training stops, keeping what
    it learnt, after ``hard_seconds`` (default: 15 % more than ``seconds``, should the probe be optimistic).
    With ``average_from`` (a share of the planned steps, above 0) the model ends as the mean of its weights
    taken every ``average_every`` steps from that point on, instead of its last weights.

    The plan (probe rate, epochs, pairs) is written to ``work/name/plan.json`` and the trainer checkpoints into
    ``work/name`` every ``checkpoint_seconds``; with ``resume`` a run continues from both, on the same rows."""
    run_dir = work / name
    run_dir.mkdir(parents=True, exist_ok=True)
    plan_file = run_dir / "plan.json"
    digest = rows_digest(rows)
    if resume and plan_file.exists():
        plan = json.loads(plan_file.read_text())
        if plan["rows_sha256"] != digest or plan["batch_size"] != batch_size or plan["lr"] != lr:
            raise SystemExit(f"{plan_file}: the run there trained on other rows or settings; resume it with the same"
                             " job and options, or start in another --work")  # fmt: skip
        rate, epochs, used = plan["probe_steps_per_second"], plan["epochs"], plan["pairs"]
        log(f"{name}: resuming the plan in {plan_file}")
    else:
        if resume:
            log(f"{name}: nothing to resume in {run_dir}; starting")
        rate = steps_per_second(model, tokenizer, rows, batch_size, device, probe_steps, max_length, bf16, seed)
        epochs, used = fit_epochs(rate, len(rows), batch_size, seconds, most_epochs)
        plan = {"probe_steps_per_second": rate, "epochs": epochs, "pairs": used, "rows_sha256": digest,
                "batch_size": batch_size, "lr": lr, "max_length": max_length, "bf16": bf16}  # fmt: skip
        write_json(plan_file, plan)
    if used < len(rows):
        rows = random.Random(seed).sample(rows, used)
    log(f"{name}: probe {rate:.3g} steps/s; {epochs} epoch(s) of {len(rows)} pairs at lr {lr}")
    planned = epochs * math.ceil(len(rows) / batch_size)
    first_averaged = max(1, int(average_from * planned)) if average_from > 0 else None
    trainer = Trainer(
        model,
        tokenizer,
        rows,
        [Stage(name, None, epochs, lr)],
        run_dir,
        seed=seed,
        batch_size=batch_size,
        bf16=bf16,
        checkpoint_seconds=checkpoint_seconds,
        max_seconds=seconds * 1.15 if hard_seconds is None else hard_seconds,
        distill_weight=distill,
        device=device,
        max_length=max_length,
        log=log,
        log_every=log_every,
        average_from=first_averaged,
        average_every=average_every,
    )
    started = time.monotonic()
    stopped = None
    try:
        position = trainer.train(resume=resume)
    except TrainingStopped as stop:
        stopped, position = str(stop), trainer.position
    averaged = None
    if first_averaged is not None and not trainer.stopped_by_signal:
        if trainer.average is None:
            log(f"{name}: stopped before step {first_averaged}, where averaging begins: the last weights are kept")
        else:
            averaged = {"from_step": first_averaged, "every": average_every, "weights": trainer.use_average()}
            log(f"{name}: the mean of {averaged['weights']} weights taken every {average_every} steps from step"
                f" {first_averaged} replaces the last weights")  # fmt: skip
    return {
        "probe_steps_per_second": round(rate, 4),
        "epochs": epochs,
        "pairs": len(rows),
        "lr": lr,
        "batch_size": batch_size,
        "distill_weight": distill,
        "seed": seed,
        "max_length": max_length,
        "bf16": bf16,
        "steps": position.steps_done,
        "planned_steps": planned,
        "averaged": averaged,
        "train_seconds": round(position.train_seconds, 1),
        "seconds": round(time.monotonic() - started, 1),
        "stopped_early": stopped,
        "stopped_by_signal": trainer.stopped_by_signal,
        "loss_per_100_steps": position.losses,
    }


def figures(model, tokenizer, files, device, name: str, log, max_length: int = MAX_LENGTH, bf16: bool = True) -> dict:
    """The figures of ``model`` on every pairs file but the training one, read at up to ``max_length`` tokens;
    logs their macro-F1."""
    out = {
        stem: score(model, tokenizer, rows, batch_size=256, bf16=bf16, device=device, max_length=max_length)
        for stem, (rows, _) in files.items()
        if stem != "pairs_train"
    }
    log(f"{name} validation: {json.dumps({stem: f.get('macro_f1') for stem, f in out.items()})}")
    return out


def attach_teacher(files, labels_file: Path, base_dir: Path, metrics: dict):
    """Give every row the probabilities ``labels_file`` holds for it; returns the base's tokenizer."""
    from training.teacher_labels import load_labels  # needs orjson, which the GPU image lacks: only this path reads it

    labels = load_labels(labels_file)
    for stem, (rows, sha) in files.items():
        entry = labels["files"].get(f"{stem}.jsonl")
        if entry is None or entry["sha256"] != sha or len(entry["probabilities"]) != len(rows):
            raise SystemExit(f"{labels_file} holds no probabilities for this {stem}.jsonl (SHA-256 {sha[:16]}…)")
        for row, probabilities in zip(rows, entry["probabilities"]):
            row["teacher"] = probabilities
    metrics["teacher"] = {"labels_from": str(labels_file), "teacher": labels.get("teacher")}
    return AutoTokenizer.from_pretrained(str(base_dir))


def label_with(model, tokenizer, rows: list[dict], device: str, *, batch_size: int, bf16: bool = True,
               max_length: int = MAX_LENGTH, progress=None) -> None:  # fmt: skip
    """Each row's ``teacher``: ``model``'s probabilities for it (LABELS order, four decimals)."""
    probabilities = predict(model, tokenizer, rows, batch_size=batch_size, bf16=bf16, device=device,
                            max_length=max_length, progress=progress)  # fmt: skip
    for row, probs in zip(rows, probabilities):
        row["teacher"] = [round(float(p), 4) for p in probs]


def train_teacher(files, base_dir: Path, args, metrics: dict, log):
    """Train the full base on every training pair, score it, and write its probabilities for every row of
    every pairs file (each row also keeps them, for the student); returns the tokenizer."""
    train = files["pairs_train"][0]
    tokenizer, teacher, description = base_model(str(base_dir), args.seed)
    teacher.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    teacher.to(args.device)
    metrics["teacher"] = {"base": description, "word_embeddings": "frozen"}
    metrics["teacher"] |= train_phase(
        "teacher", teacher, tokenizer, train, lr=args.teacher_lr, seconds=args.teacher_seconds,
        most_epochs=args.teacher_epochs, batch_size=args.batch_size, device=args.device, seed=args.seed,
        distill=0.0, work=args.work, log=log,
    )  # fmt: skip
    metrics["teacher"]["validation"] = figures(teacher, tokenizer, files, args.device, "teacher", log)
    write_json(args.out / "metrics.json", metrics)

    labels = {"labels": LABELS, "teacher": description, "files": {}}
    for stem, (rows, sha) in files.items():
        label_with(teacher, tokenizer, rows, args.device, batch_size=256)
        labels["files"][f"{stem}.jsonl"] = {"sha256": sha, "probabilities": [row["teacher"] for row in rows]}
    (args.out / "teacher_labels.json.gz").write_bytes(
        gzip.compress(json.dumps(labels, separators=(",", ":")).encode(), mtime=0)
    )
    log("teacher labels written")
    teacher.cpu()
    del teacher
    if args.device == "cuda":
        torch.cuda.empty_cache()

    return tokenizer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Teacher, labels and student on a lent GPU, in one call.")
    parser.add_argument("--weights", type=Path, nargs="+", required=True, help="folders of weight_pack.py parts")
    parser.add_argument("--pairs", type=Path, required=True, help="folder of pairs_*.jsonl (or .jsonl.gz, .jsonl.xz)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/device-train"))
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument(
        "--teacher-labels",
        type=Path,
        default=None,
        help="a teacher_labels.json.gz of an earlier run for these very pairs: no teacher is trained, the student"
        " learns from these",
    )
    parser.add_argument("--teacher-seconds", type=float, default=190)
    parser.add_argument("--student-seconds", type=float, default=150)
    parser.add_argument("--teacher-epochs", type=int, default=3, help="at most this many")
    parser.add_argument("--student-epochs", type=int, default=4, help="at most this many")
    parser.add_argument("--teacher-lr", type=float, default=2e-5)
    parser.add_argument("--student-lr", type=float, default=4e-5)
    parser.add_argument("--distill-weight", type=float, default=0.5)
    parser.add_argument(
        "--student-layers",
        default=",".join(map(str, DEFAULT_STUDENT_LAYERS)),
        help="the base's encoder layers the student keeps, in order",
    )
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--limit", type=int, default=0, help="first N rows of each pairs file (smoke tests)")
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)
    started = time.monotonic()
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    log = run_log(args.out / "log.txt", started)
    metrics: dict = {"device": torch.cuda.get_device_name() if args.device == "cuda" else args.device}
    metrics["versions"] = {"torch": torch.__version__, "python": sys.version.split()[0]}
    base_dir = unpack(args.weights, args.work / "base")
    files = read_pairs(args.pairs)
    if args.limit:
        files = {stem: (rows[: args.limit], sha) for stem, (rows, sha) in files.items()}
    metrics["pairs"] = {stem: {"rows": len(rows), "sha256": sha} for stem, (rows, sha) in files.items()}
    train = files["pairs_train"][0]
    log(f"unpacked the base and read {sum(len(r) for r, _ in files.values())} pairs on {metrics['device']}")

    if args.teacher_labels:
        tokenizer = attach_teacher(files, args.teacher_labels, base_dir, metrics)
        log(f"teacher probabilities from {args.teacher_labels}")
    else:
        tokenizer = train_teacher(files, base_dir, args, metrics, log)
    layers = [int(i) for i in args.student_layers.split(",")]
    _, student, description = base_model(str(base_dir), args.seed)
    student = keep_layers(student, layers)
    student.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    student.to(args.device)
    metrics["student"] = {"base": f"{description}, encoder layers {layers} kept", "layers": layers}
    metrics["student"]["word_embeddings"] = "frozen"
    metrics["student"] |= train_phase(
        "student", student, tokenizer, train, lr=args.student_lr, seconds=args.student_seconds,
        most_epochs=args.student_epochs, batch_size=args.batch_size, device=args.device, seed=args.seed + 1,
        distill=args.distill_weight, work=args.work, log=log,
    )  # fmt: skip
    metrics["student"]["validation"] = figures(student, tokenizer, files, args.device, "student", log)
    state = {k: v.detach().cpu() for k, v in student.state_dict().items() if not k.endswith(WORD_EMBEDDINGS)}
    for number, part in enumerate(pack_state(state, STUDENT_PARTS), start=1):
        save_file(part, str(args.out / f"student-{number}.safetensors"))
    metrics["seconds"] = round(time.monotonic() - started, 1)
    write_json(args.out / "metrics.json", metrics)
    log("student written; done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
