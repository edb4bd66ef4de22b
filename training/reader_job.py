"""The reader job: train the shipped stance model on passage-level pairs in one call on a lent GPU.

    # here (the torch venv): mix, compress and check the pairs; prints the device command and what it carries
    /tmp/train/bin/python -m training.reader_job prepare --pairs PAIRS \\
        --labels training/records/mpnet6-gpu/teacher/teacher_labels.json.gz --labelled-pairs PAIRS-25d1cdb --out .devjob
    # on the device, carrying .devjob (the command ``prepare`` printed):
    python3 -m training.reader_job train --job .devjob --out $OUT
    # here, afterwards: rebuild, check and export as the runtime reads it; prints the comparison commands
    /tmp/train/bin/python -m training.reader_job import --returned RETURNED --job .devjob --run-dir training/runs/NAME

(docs/training.md, "The reader job: run first on a lent GPU", has the budget and the shipping rule.)

The student starts from the shipped file itself, ``data/stance_model/model.onnx``: git tracks it, so it travels
with the working tree, and its weights are read back on the device (``onnx_weights.load_onnx_weights``) into the
architecture the job folder names (``config.json``: a 6-layer, 768-wide MPNet, as shipped). Nothing but the
pairs is carried, so one call does everything. The word embeddings stay frozen at the shipped file's values
and do not come back; the other weights come back as int8 rows (``weight_pack.py``) in three files of at most
15 MiB. ``train`` never imports pydantic or orjson: the GPU image has neither.

``prepare`` writes into ``--out`` (git ignores ``.devjob/``): ``train.jsonl.xz`` (every passage-level pair of
``pairs_train_reader.jsonl`` and a seeded replay sample of the single-sentence ``pairs_train.jsonl``, with the
committed teacher probabilities attached by pair where the labelled build holds the pair), each
``pairs_validation*.jsonl`` as ``.xz``, ``config.json`` and ``manifest.json`` (the SHA-256 of every file's
uncompressed bytes, of the sources, and of the shipped model the job starts from). It refuses a folder over the
64 MiB a call may carry, and checks here, before any GPU time is spent, that the architecture reads the shipped
file's canary pairs as its float model did (``stance_config.json``, ``self_check``).

``train`` fits its epochs to ``--seconds`` after a probe of steps/s, stops training at a hard limit that keeps
what was learnt and leaves time to write, writes ``metrics.json`` early (the shipped model's own figures on the
validation files, read there at the job's ``--max-length``) and again at the end, the student's weights as soon
as training stops, and ``log.txt``. With ``--layers K`` the student keeps only K of the shipped model's layers
(``kept_layers``) and learns from the shipped model's readings of every pair besides the gold labels; ``import``
rebuilds the same layers (``metrics.json`` names them).
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from training.device_train import (
    STUDENT_PARTS,
    WORD_EMBEDDINGS,
    figures,
    freeze_bottom,
    label_with,
    run_log,
    train_phase,
)
from training.onnx_weights import initializers, quantised_names
from training.quant_aware import plain, quantisation_aware
from training.reader_model import (
    CANARY_DRIFT,
    MPNET6,
    canary_drift,
    in_repo,
    kept_layers,
    part_sizes,
    shipped_readings,
    student_from_onnx,
    trained_state,
)
from training.train_stance import LABELS, keep_layers
from training.trainer import bytes_sha256, file_sha256, jsonl_bytes, jsonl_rows, use_bf16, write_json
from training.weight_pack import pack_state, unpack_state

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "data" / "stance_model"
CARRY_LIMIT = 64 * 2**20  # what one device call carries: the job folder, the working tree beside it
PART_LIMIT = 15 * 2**20  # each returned weights file (a returned file may be 16 MiB)
READER_FILE = "pairs_train_reader.jsonl"
# single-sentence pairs replayed beside the passage pairs: build_pairs.py's whole training file, or the pool its
# --validation-only run writes from the shared pairs as they are (minutes instead of the 35 of a whole build)
REPLAY_FILES = ("pairs_train.jsonl", "pairs_replay.jsonl")
TRAIN_FILE = "train.jsonl"  # the mixed rows, in the job folder
CARRIED_MODEL = "model.onnx.xz"  # the shipped model, carried: the tracked file and the job overrun one call together
ONNX_NAMES = "onnx_names.json"  # each parameter's initializer in the shipped file, found where the job is prepared


# -- prepare (here) ------------------------------------------------------------------------------------------------
def teacher_by_pair(labels: Path, labelled_pairs: Path) -> dict[tuple, list[float]]:
    """The committed teacher probabilities by pair (claim, title, evidence, label), from the build they were made
    for (checked by SHA-256, as ``teacher_labels.py --labelled-pairs`` does)."""
    from training.teacher_labels import _labelled_rows, _row_key, load_labels  # orjson: here only, never on the device

    known: dict[tuple, list[float]] = {}
    for name, entry in load_labels(labels)["files"].items():
        known |= {_row_key(row): row["teacher"] for row in _labelled_rows(labels, name, entry, labelled_pairs / name)}
    return known


def travelling_bytes() -> int:
    """Bytes of the working tree that travels with every call (tracked, and untracked files git does not ignore)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    return sum((REPO / name).stat().st_size for name in set(listed.decode().split("\0")) if (REPO / name).is_file())


def device_command(args) -> str:
    job = in_repo(args.out)
    return (
        f"nvidia-smi -L; PYTHONUNBUFFERED=1 timeout -k 15 {int(args.deadline) + 35} python3"
        f" -m training.reader_job train --job {job} --out $OUT --seconds {args.seconds:g} --deadline"
        f" {args.deadline:g} --max-length {args.max_length} --batch-size {args.batch_size}"
    )


def origin_shares(given: list[str], origins: set) -> dict[str, float]:
    """``--origin-share ORIGIN=SHARE`` as a mapping; an origin no pair has, or a share outside (0, 1], is refused."""
    shares = {}
    for text in given:
        origin, _, share = text.partition("=")
        try:
            value = float(share)
        except ValueError:
            raise SystemExit(f"--origin-share {text}: give ORIGIN=SHARE, a share in (0, 1]") from None
        if not 0 < value <= 1:
            raise SystemExit(f"--origin-share {text}: the share must be in (0, 1]")
        if origin not in origins:
            raise SystemExit(f"--origin-share {text}: no pair has the origin {origin!r} (the pairs' origins:"
                             f" {', '.join(sorted(str(o) for o in origins))})")  # fmt: skip
        shares[origin] = value
    return shares


def prepare(args) -> int:
    pairs = args.pairs
    replay_file = next((name for name in REPLAY_FILES if (pairs / name).is_file()), None)
    for needed in ("pairs_validation.jsonl", args.reader_file, *args.extra_file):
        if not (pairs / needed).is_file():
            raise SystemExit(f"{pairs / needed}: missing (the pairs folder holds {READER_FILE}, the pairs_validation*"
                             ".jsonl files and a replay file; docs/training.md, 'The reader job on the CPU')")  # fmt: skip
    if replay_file is None:
        raise SystemExit(f"{pairs}: no single-sentence pairs to replay ({' or '.join(REPLAY_FILES)}): run"
                         f" build_pairs.py --validation-only --work {pairs} (a few minutes) or the whole build")  # fmt: skip
    if args.out.exists() and any(args.out.iterdir()):
        raise SystemExit(f"{args.out} already holds files: remove it or choose another --out")
    torch.set_num_threads(2)
    sources = {name: (pairs / name).read_bytes() for name in (replay_file, args.reader_file, *args.extra_file)}
    reader = [row for name in (args.reader_file, *args.extra_file) for row in jsonl_rows(sources[name])]
    shares = origin_shares(args.origin_share, {row.get("origin") for row in reader})
    before = len(reader)
    if shares:  # a seeded share of each named origin's pairs, every other pair kept
        draw = random.Random(args.seed + 2)
        reader = [row for row in reader if row.get("origin") not in shares or draw.random() < shares[row["origin"]]]
    single = jsonl_rows(sources[replay_file])
    replay = random.Random(args.seed).sample(single, min(len(single), round(args.replay_ratio * len(reader))))
    rows = [{k: row[k] for k in ("claim", "title", "evidence", "label", "origin")} for row in reader + replay]
    labelled = 0
    if args.labels:
        known = teacher_by_pair(args.labels, args.labelled_pairs or pairs)
        for row in rows:
            probabilities = known.get((row["claim"], row.get("title") or "", row["evidence"], row["label"]))
            if probabilities is not None:
                row["teacher"], labelled = probabilities, labelled + 1
    random.Random(args.seed + 1).shuffle(rows)

    files = {TRAIN_FILE: jsonl_bytes(rows)}
    files |= {path.name: path.read_bytes() for path in sorted(pairs.glob("pairs_validation*.jsonl"))}
    compressed = {name: lzma.compress(data, preset=9) for name, data in files.items()}
    shipped_onnx = args.model_dir / "model.onnx"
    carried_model = lzma.compress(shipped_onnx.read_bytes(), preset=6) if args.carry_model else b""
    total = sum(len(data) for data in compressed.values()) + len(carried_model)
    if total > args.carry_limit:
        raise SystemExit(
            f"the job's files would take {total / 2**20:.1f} MiB, over the {args.carry_limit / 2**20:g} MiB one call"
            f" carries ({len(carried_model) / 2**20:.1f} MiB of it the shipped model): lower --replay-ratio"
            f" ({args.replay_ratio:g}) or sample the reader pairs; nothing written"
        )

    config = json.loads(args.architecture.read_text()) if args.architecture else MPNET6
    tokenizer, model, description, names = student_from_onnx(config, args.model_dir, args.max_length)
    drift = canary_drift(model, tokenizer, args.model_dir)
    if drift > CANARY_DRIFT:
        raise SystemExit(
            f"the job's architecture reads {args.model_dir}'s canary pairs up to {drift:.3f} away from its recorded"
            f" float readings (> {CANARY_DRIFT}): another architecture or tokenizer than the file's; nothing written"
        )
    sizes = part_sizes(trained_state(model))
    if max(sizes) > PART_LIMIT:
        raise SystemExit(f"a returned weights file would take {max(sizes) / 2**20:.1f} MiB (> 15 MiB): regroup"
                         " device_train.STUDENT_PARTS for this architecture")  # fmt: skip

    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in compressed.items():
        (args.out / f"{name}.xz").write_bytes(data)
    if carried_model:
        (args.out / CARRIED_MODEL).write_bytes(carried_model)
    write_json(args.out / "config.json", config)
    write_json(
        args.out / ONNX_NAMES, {name: [onnx_name, transposed] for name, (onnx_name, transposed) in names.items()}
    )
    shipped = json.loads((args.model_dir / "stance_config.json").read_text())
    manifest = {
        "files": {
            name: {"file": f"{name}.xz", "sha256": bytes_sha256(data), "rows": data.count(b"\n"), "xz_bytes": len(compressed[name])}
            for name, data in files.items()
        },  # fmt: skip
        "sources": {
            name: {"sha256": bytes_sha256(data), "rows": data.count(b"\n")} for name, data in sources.items()
        } | ({"labels": {"file": str(args.labels), "sha256": file_sha256(args.labels)}} if args.labels else {}),
        "mix": {
            "reader_rows": len(reader),
            "extra_files": list(args.extra_file),
            **({"origin_shares": shares, "reader_rows_before_shares": before} if shares else {}),
            "replay_rows": len(replay),
            "replay_ratio": args.replay_ratio,
            "replay_file": replay_file,
            "seed": args.seed,
            "with_teacher": labelled,
        },
        "model": {
            "dir": in_repo(args.model_dir),
            "onnx_sha256": file_sha256(shipped_onnx),
            **({"onnx_xz": CARRIED_MODEL} if carried_model else {}),
            "tokenizer_sha256": file_sha256(args.model_dir / "tokenizer.json"),
            "run": shipped.get("run"),
            "description": description,
            "canary_drift": round(drift, 4),
            "returned_part_bytes": sizes,
        },
        "architecture": "config.json",
        "onnx_names": ONNX_NAMES,
        "max_length": args.max_length,
    }  # fmt: skip
    write_json(args.out / "manifest.json", manifest)
    job_bytes = sum(p.stat().st_size for p in args.out.iterdir())
    print(f"{len(rows)} training pairs ({len(reader)} passage-level, {len(replay)} single-sentence replay;"
          f" {labelled} with teacher probabilities) and {len(files) - 1} validation files: {job_bytes / 2**20:.2f} MiB"
          f" in {args.out}; the shipped model read back (canary drift {drift:.4f}); returned parts"
          f" {', '.join(f'{s / 2**20:.1f}' for s in sizes)} MiB")  # fmt: skip
    tree = travelling_bytes()
    if carried_model and shipped_onnx.resolve().is_relative_to(REPO):
        tree -= shipped_onnx.stat().st_size
        print(f"the working tree that travels with it: {tree / 2**20:.1f} MiB once the tracked model is out of it;"
              f" the job carries it. Before the call: rm {in_repo(shipped_onnx)}; after it:"
              f" git checkout -- {in_repo(shipped_onnx)}")  # fmt: skip
    else:
        print(f"the working tree that travels with it: {tree / 2**20:.1f} MiB")
    if tree + job_bytes > CARRY_LIMIT:
        print(f"note: tree and job together are {(tree + job_bytes) / 2**20:.1f} MiB, over the {CARRY_LIMIT / 2**20:g}"
              " MiB the device tool names for what travels; if it refuses, see docs/training.md")  # fmt: skip
    print("device run (one call; timeout_s 600):")
    print(json.dumps({"command": device_command(args), "carry": [in_repo(args.out)], "timeout_s": 600}))
    return 0


# -- train (on the device) ------------------------------------------------------------------------------------------
def read_job(job: Path) -> tuple[dict, dict[str, list[dict]]]:
    """(manifest, rows by file name), every file checked against the manifest's SHA-256."""
    manifest = json.loads((job / "manifest.json").read_text())
    rows = {}
    for name, entry in manifest["files"].items():
        data = lzma.decompress((job / entry["file"]).read_bytes())
        if bytes_sha256(data) != entry["sha256"]:
            raise SystemExit(
                f"{job / entry['file']} is not the file the manifest names (SHA-256 differs): prepare again"
            )
        rows[name] = jsonl_rows(data)
    return manifest, rows


def job_names(job: Path, manifest: dict) -> dict[str, tuple[str, bool]] | None:
    """The parameters' ONNX names ``prepare`` found and checked by the canaries (None for an older job)."""
    if "onnx_names" not in manifest:
        return None
    return {
        name: (onnx_name, bool(t))
        for name, (onnx_name, t) in json.loads((job / manifest["onnx_names"]).read_text()).items()
    }


def check_model(manifest: dict, job: Path | None = None, work: Path | None = None) -> tuple[Path, Path]:
    """(the shipped model directory the job was prepared against, its ONNX file), checked by SHA-256.

    Where the tracked ONNX file is not in the working tree (it is left out of a device call, whose tree and
    carried files must stay under ``CARRY_LIMIT``), the job's compressed copy is unpacked into ``work``."""
    model_dir = REPO / manifest["model"]["dir"]
    onnx_path = model_dir / "model.onnx"
    carried = manifest["model"].get("onnx_xz")
    if not onnx_path.is_file() and carried and job is not None and work is not None:
        onnx_path = work / "model.onnx"
        with lzma.open(job / carried) as packed, onnx_path.open("wb") as unpacked:
            shutil.copyfileobj(packed, unpacked)
    if not onnx_path.is_file():
        raise SystemExit(
            f"{onnx_path}: missing; the job carries a copy for the device only: git checkout -- {in_repo(onnx_path)}"
            if carried
            else f"{onnx_path}: missing, and the job carries no copy of it (prepare with --carry-model)"
        )
    for path, key in ((onnx_path, "onnx_sha256"), (model_dir / "tokenizer.json", "tokenizer_sha256")):
        if file_sha256(path) != manifest["model"][key]:
            raise SystemExit(f"{path} is not the file the job was prepared against: prepare again")
    return model_dir, onnx_path


def named_label(probabilities: list[float]) -> str:
    """The label a reading names: the one it gives the highest probability (the first of equals)."""
    return LABELS[probabilities.index(max(probabilities))]


def budget(args) -> tuple[float, float, Path]:
    """(training seconds, whole-run seconds, work folder) of a run: a GPU call's are fixed by the call (360 s of
    training within 540 s); on a CPU the training time is the caller's to give, and checkpoints go under
    training/runs/ so that the run can be resumed."""
    cpu = args.device == "cpu"
    if args.seconds is None:
        if cpu and not args.steps:
            raise SystemExit("--seconds: on a CPU give the training time this run may take (e.g. 5400 for 1.5 h);"
                             " the epochs are fitted to it after a probe")  # fmt: skip
        args.seconds = 360.0
    if args.deadline is None:  # room to score the shipped model and the student on the validation files
        args.deadline = args.seconds * 1.15 + 1800 if cpu else 540.0
    work = args.work or (args.out.with_name(f"{args.out.name}-work") if cpu else Path("/tmp/reader-job"))
    return args.seconds, args.deadline, work


def train(args) -> int:
    started = time.monotonic()
    if not 0 <= args.average_from < 1 or args.average_every < 1:
        raise SystemExit("--average-from takes a share of the planned steps in [0, 1) and --average-every a"
                         " positive number of steps")  # fmt: skip
    args.seconds, args.deadline, args.work = budget(args)
    deadline = started + args.deadline
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    log = run_log(args.out / "log.txt", started)
    if args.device == "cpu":
        torch.set_num_threads(args.threads)
    bf16 = args.device != "cpu" or use_bf16(args.precision)
    log(f"device {args.device}, {'bf16' if bf16 else 'fp32'}; training within {args.seconds:g} s, all within"
        f" {args.deadline:g} s; checkpoints in {args.work}")  # fmt: skip
    manifest, rows = read_job(args.job)
    model_dir, onnx_path = check_model(manifest, args.job, args.work)
    train_rows = rows.pop(TRAIN_FILE)
    if args.steps:  # a fixed number of steps (measurements, smoke runs) instead of what fits --seconds
        train_rows = random.Random(args.seed).sample(train_rows, min(len(train_rows), args.steps * args.batch_size))
    validation = {name.removesuffix(".jsonl"): (r[: args.score_limit or None], "") for name, r in rows.items()}
    metrics: dict = {
        "device": torch.cuda.get_device_name() if args.device == "cuda" else args.device,
        "versions": {"torch": torch.__version__, "python": sys.version.split()[0]},
        "job_sha256": file_sha256(args.job / "manifest.json"),
        "pairs": manifest["files"],
        "mix": manifest["mix"],
    }
    tokenizer, student, description, names = student_from_onnx(
        json.loads((args.job / manifest["architecture"]).read_text()),
        model_dir,
        args.max_length,
        job_names(args.job, manifest),
        onnx_path,
    )
    student.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    rounding = None
    if args.quant_aware:  # every pair read, shipped model's figures included, as the int8 export reads it
        rounding = quantisation_aware(student, quantised_names(initializers(onnx_path), names))
        description += (f"; quantisation-aware: {rounding['linears']} Linears read s8 weights and per-token u8"
                        f" inputs, {rounding['frozen']} embedding tables frozen")  # fmt: skip
    student.to(args.device)
    log(f"read {len(train_rows)} training pairs and {len(validation)} validation files; {description}")

    earlier = json.loads((args.out / "metrics.json").read_text()) if (args.out / "metrics.json").is_file() else {}
    if args.resume and earlier.get("job_sha256") == metrics["job_sha256"] and "shipped" in earlier:
        metrics["shipped"], scoring = earlier["shipped"], earlier.get("shipped_scoring_seconds", 0.0)
        log("shipped model's validation figures: from the run being resumed")
    else:
        scoring = time.monotonic()
        metrics["shipped"] = {"validation": figures(student, tokenizer, validation, args.device, "shipped", log,
                                                    args.max_length, bf16)}  # fmt: skip
        scoring = time.monotonic() - scoring
    metrics["shipped_scoring_seconds"] = round(scoring, 1)
    metrics["seconds"] = round(time.monotonic() - started, 1)
    write_json(args.out / "metrics.json", metrics)
    metrics["student"] = {"base": description, "word_embeddings": "frozen", "quantisation_aware": rounding}
    if args.freeze_layers:
        trainable = freeze_bottom(student, args.freeze_layers)
        metrics["student"]["frozen_layers"] = args.freeze_layers
        log(f"froze the embeddings, the bottom {args.freeze_layers} layers and the shared attention bias:"
            f" {trainable:,} parameters train")  # fmt: skip
    total = student.config.num_hidden_layers
    kept = kept_layers(total, args.layers) if args.layers else None  # a wrong --layers stops before any labelling
    anchors = [row for row in train_rows if row["label"] is None]  # anchor pairs: the starting reading alone
    if anchors and not (args.keep_shipped or args.layers):
        raise SystemExit(f"{len(anchors)} training pairs carry no label (anchor pairs, training/anchor_pairs.py):"
                         " they learn the starting model's reading alone; train with --keep-shipped")  # fmt: skip
    if args.keep_shipped or args.layers:  # the shipped model's own reading of each row, learnt beside its label
        unlabelled = [row for row in train_rows if "teacher" not in row]

        def heard(line: str) -> None:
            log(f"labelling with the shipped model: {line}")

        source = args.shipped_readings
        if source == "auto":  # onnxruntime reads on the host's CPU: on a GPU the weights read there are far faster
            source = "onnx" if args.device == "cpu" else "torch"
        readings = None
        if source == "onnx":
            readings = shipped_readings(onnx_path, model_dir, tokenizer, unlabelled, threads=args.threads,
                                        max_length=args.max_length, progress=heard)  # fmt: skip
            if readings is None:
                log("onnxruntime is not installed here: the shipped model's readings are its weights' in torch")
        if readings is None:
            metrics["student"]["shipped_readings"] = (
                f"torch on {args.device}" + (", int8 roundings" if rounding else "") + (", bf16" if bf16 else "")
            )
            log(f"the shipped model's readings: its weights read in {metrics['student']['shipped_readings']}")
            label_with(student, tokenizer, unlabelled, args.device, batch_size=128, bf16=bf16,
                       max_length=args.max_length, progress=heard)  # fmt: skip
        else:
            metrics["student"]["shipped_readings"] = "onnxruntime, the int8 file"
            for row, reading in zip(unlabelled, readings):
                row["teacher"] = reading
        metrics["student"]["shipped_model_labelled"] = len(unlabelled)
        log(f"{len(unlabelled)} training pairs labelled by the shipped model (distill weight {args.distill_weight})")
        for row in anchors:  # its reading is the whole target: the label it names, and the teacher's share all of it
            row["label"], row["distill"] = named_label(row["teacher"]), 1.0
        if anchors:
            metrics["student"]["anchor_pairs"] = len(anchors)
            log(f"{len(anchors)} of them anchor pairs: learnt from that reading alone")
        if args.keep_shipped == "agreeing" and not args.layers:  # what it reads wrong is learnt from the label alone
            wrong = [row for row in unlabelled if named_label(row["teacher"]) != row["label"]]
            for row in wrong:
                del row["teacher"]
            metrics["student"]["shipped_model_wrong"] = len(wrong)
            log(f"{len(wrong)} of them read otherwise than their label: learnt from the label alone")
    if kept is not None:  # a shallower student, taught by the shipped model it starts from, read above on every pair
        keep_layers(student, kept)
        metrics["student"]["layers"] = {"kept": kept, "of": total, "shipped_model_labelled": len(unlabelled)}
        log(f"student: layers {kept} of {total}")

    reserve = 1.5 * scoring + 30  # writing the weights, then scoring the student as the shipped model was scored
    hard = min(args.seconds * 1.15, deadline - time.monotonic() - reserve)
    log(f"training within {args.seconds:g} s (hard stop after {hard:.0f} s; {reserve:.0f} s kept to write and score)")
    metrics["student"] |= train_phase(
        "student", student, tokenizer, train_rows, lr=args.lr, seconds=args.seconds if not args.steps else 1e9,
        most_epochs=args.epochs if not args.steps else 1, batch_size=args.batch_size, device=args.device,
        seed=args.seed, distill=args.distill_weight, work=args.work, log=log, max_length=args.max_length,
        hard_seconds=max(hard, 1.0), probe_steps=args.probe_steps, bf16=bf16,
        checkpoint_seconds=args.checkpoint_minutes * 60, resume=args.resume, log_every=args.log_every,
        average_from=args.average_from, average_every=args.average_every,
    )  # fmt: skip
    metrics["student"]["with_teacher"] = sum("teacher" in row for row in train_rows)
    if metrics["student"]["stopped_by_signal"]:
        metrics["seconds"] = round(time.monotonic() - started, 1)
        write_json(args.out / "metrics.json", metrics)
        log(f"stopped: {metrics['student']['stopped_early']} (the checkpoint is in {args.work}); no student written")
        return 130
    if rounding:
        plain(student)  # each weight at its rounded value: the export rounds it to the same integers
    state = trained_state(student)
    returned = {}
    for number, part in enumerate(pack_state(state, STUDENT_PARTS), start=1):
        path = args.out / f"student-{number}.safetensors"
        save_file(part, str(path))
        returned[path.name] = path.stat().st_size
    metrics["returned"] = returned
    log(f"student written: {json.dumps(returned)}")
    metrics["seconds"] = round(time.monotonic() - started, 1)
    write_json(args.out / "metrics.json", metrics)
    if time.monotonic() + scoring * 1.2 < deadline:
        metrics["student"]["validation"] = figures(student, tokenizer, validation, args.device, "student", log,
                                                   args.max_length, bf16)  # fmt: skip
    else:
        log("no time left to score the student here: import scores it")
    metrics["seconds"] = round(time.monotonic() - started, 1)
    write_json(args.out / "metrics.json", metrics)
    log("done")
    return 0


# -- import (here) --------------------------------------------------------------------------------------------------
def rebuild(returned: Path, job: Path, manifest: dict, kept: list[int] | None = None):
    """(tokenizer, model, description): the shipped model in the job's architecture with the returned weights;
    with ``kept``, only those of its layers (the device run's ``--layers``)."""
    tokenizer, model, description, _ = student_from_onnx(
        json.loads((job / manifest["architecture"]).read_text()),
        check_model(manifest)[0],
        manifest["max_length"],
        job_names(job, manifest),
    )
    if kept is not None:
        description += f"; a student of its layers {kept}, taught by it"
        keep_layers(model, kept)
    parts = sorted(returned.glob("student-*.safetensors"))
    if not parts:
        raise SystemExit(f"no student-N.safetensors in {returned}")
    missing, unexpected = model.load_state_dict(unpack_state([load_file(str(p)) for p in parts]), strict=False)
    if unexpected or [k for k in missing if not k.endswith(WORD_EMBEDDINGS)]:
        raise SystemExit(f"{returned}: the student's weights do not fit (missing {missing}, unexpected {unexpected})")
    return tokenizer, model, f"{description}, trained on passage-level pairs on a GPU (reader job)"


def import_run(args) -> int:
    from training.train_stance import finish_run

    torch.set_num_threads(2)
    device_metrics = json.loads((args.returned / "metrics.json").read_text())
    if device_metrics["job_sha256"] != file_sha256(args.job / "manifest.json"):
        raise SystemExit(f"{args.returned} was trained on another job than {args.job} (manifest SHA-256 differs)")
    manifest, rows = read_job(args.job)
    if "student" not in device_metrics or "returned" not in device_metrics:
        raise SystemExit(f"{args.returned / 'metrics.json'}: the device run wrote no student (see its log.txt)")
    layers = device_metrics["student"].get("layers")
    tokenizer, model, description = rebuild(args.returned, args.job, manifest, layers and layers["kept"])
    run = args.run_dir
    (run / "pairs").mkdir(parents=True, exist_ok=True)
    for name, data in rows.items():
        if name != TRAIN_FILE:
            (run / "pairs" / name).write_bytes(jsonl_bytes(data))
    student = device_metrics["student"]
    settings = {
        "train_pairs": manifest["files"][TRAIN_FILE]["rows"],
        "job": manifest["mix"],
        "student": {k: student[k] for k in ("epochs", "lr", "pairs", "distill_weight", "steps", "max_length")}
        | ({"layers": layers} if layers else {}),
    }
    record = {"device_run": device_metrics, "job": {"manifest_sha256": device_metrics["job_sha256"]} | manifest}
    finish_run(run, model, tokenizer, rows["pairs_validation.jsonl"], run / "pairs", description, settings, record,
               limit=args.score_limit or None, max_length=manifest["max_length"])  # fmt: skip
    print(comparison_commands(run))
    return 0


def comparison_commands(run: Path) -> str:
    """What decides whether the imported model ships (docs/training.md: the shipping rule)."""
    model = run / "model"
    files = " ".join(str(p) for p in sorted((run / "pairs").glob("pairs_validation*.jsonl")))
    return "\n".join([
        "compare with the shipped model (each line once as it is, for the shipped model, and once as shown):",
        f"  for f in {files}; do python -m bench.stance_pairs $f --model-dir {model}; done",
        f"  python -m bench.given_evidence contrast --model-dir {model}",
        f"  MERMAID_STANCE_MODEL={model} python -m bench.grounding run --out {run}/grounding_ledger.jsonl.gz"
        " --sets wice_deleted wice unmentioned --limit 200",
        f"  MERMAID_STANCE_MODEL={model} python -m bench.grounding run --out {run}/grounding_ledger.jsonl.gz"
        " --sets lfqa --limit 78",
        f"  python -m bench.grounding score --ledger {run}/grounding_ledger.jsonl.gz    # the shipped file's, same"
        " texts: bench/results/grounding/shipped-file/scores.json (read with the code of that folder's ledger.run.json)",
        f"  mermaid-verifier doctor --model-dir {model}    # on an AVX2-only and on an AVX-512 machine",
        f"then, only if it wins on all of them: cp {model}/{{model.onnx,tokenizer.json,stance_config.json}}"
        " data/stance_model/, refit the judge on the train part, and run paper_test_rest once",
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The reader job: prepare here, train on a lent GPU, import here.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="mix, compress and check the pairs; print the device command")
    p.add_argument(
        "--pairs", type=Path, required=True, help=f"folder of pairs_train.jsonl, {READER_FILE} and validation"
    )
    p.add_argument("--reader-file", default=READER_FILE, help="the passage-level training pairs in --pairs")
    p.add_argument("--extra-file", action="append", default=[],
                   help="more passage-level pairs in --pairs, trained on beside --reader-file (repeatable),"
                        " e.g. scifact_passages.py's pairs_train_scifact.jsonl")  # fmt: skip
    p.add_argument("--labels", type=Path, default=None, help="a teacher_labels.json.gz (training/records/…)")
    p.add_argument("--labelled-pairs", type=Path, default=None,
                   help="the build --labels was made for (default: --pairs), checked by SHA-256")  # fmt: skip
    p.add_argument("--origin-share", action="append", default=[], metavar="ORIGIN=SHARE",
                   help="keep a seeded share of the passage-level pairs of this origin (repeatable; e.g."
                        " reader-own-page-nei=0.5): the label balance, changed by what the pairs are")  # fmt: skip
    p.add_argument("--replay-ratio", type=float, default=1.0, help="single-sentence pairs replayed per reader pair")
    p.add_argument("--out", type=Path, default=REPO / ".devjob")
    p.add_argument("--model-dir", type=Path, default=SHIPPED, help="the shipped model the student starts from")
    p.add_argument("--architecture", type=Path, default=None, help="a config.json (default: the shipped MPNet, 6x768)")
    p.add_argument(
        "--carry-model",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="carry the shipped model, compressed, in the job (the device call leaves the tracked file out)",
    )
    p.add_argument("--carry-limit", type=int, default=CARRY_LIMIT, help="bytes one call carries")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--seconds", type=float, default=360, help="training time the printed command asks for")
    p.add_argument("--deadline", type=float, default=540, help="the printed command's whole budget, in seconds")
    p.add_argument("--max-length", type=int, default=320)
    p.add_argument("--batch-size", type=int, default=32)

    t = sub.add_parser("train", help="on the device: train the student, write metrics, weights and log to --out")
    t.add_argument("--job", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--work", type=Path, default=None,
                   help="checkpoints and the plan (default: /tmp/reader-job on a GPU; on a CPU OUT-work beside --out,"
                        " e.g. training/runs/NAME/out-work)")  # fmt: skip
    t.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    t.add_argument("--seconds", type=float, default=None,
                   help="training time of this run; epochs fit it after a probe (a GPU call: 360; a CPU: required)")  # fmt: skip
    t.add_argument("--deadline", type=float, default=None,
                   help="everything ends by then (a GPU call: 540, as a call may run 600 s; a CPU: --seconds x 1.15"
                        " + 1800)")  # fmt: skip
    t.add_argument("--resume", action="store_true",
                   help="continue the run whose plan and checkpoint are in --work (the same job and options)")  # fmt: skip
    t.add_argument("--checkpoint-minutes", type=float, default=10, help="a checkpoint at least this often")
    t.add_argument("--log-every", type=int, default=25, help="steps between progress lines")
    t.add_argument("--freeze-layers", type=int, default=0,
                   help="freeze the embeddings, this many bottom layers and the attention bias every layer shares"
                        " (faster steps where a whole pass does not fit)")  # fmt: skip
    t.add_argument(
        "--quant-aware",
        action="store_true",
        help="train and score as the int8 export reads: s8 weights per channel, u8 inputs per token",
    )
    t.add_argument("--average-from", type=float, default=0.0,
                   help="the student is the mean of its weights from this share of the planned steps on (0.5: the"
                        " second half), taken every --average-every steps, instead of its last weights (0: off)")  # fmt: skip
    t.add_argument("--average-every", type=int, default=10, help="steps between the weights --average-from takes")
    t.add_argument("--epochs", type=int, default=3, help="at most this many")
    t.add_argument("--steps", type=int, default=0, help="exactly this many steps instead (measurements, smoke runs)")
    t.add_argument("--probe-steps", type=int, default=24)
    t.add_argument("--lr", type=float, default=2e-5)
    t.add_argument("--layers", type=int, default=0,
                   help="train a shallower student: this many of the shipped model's layers (evenly spaced), taught "
                        "by the shipped model's readings of every pair (default: all layers)")  # fmt: skip
    t.add_argument(
        "--distill-weight",
        type=float,
        default=0.5,
        help="share of the loss that follows the teacher's (or with --keep-shipped the shipped model's) readings",
    )
    t.add_argument(
        "--keep-shipped",
        nargs="?",
        const="all",
        choices=("all", "agreeing"),
        help="every row without teacher probabilities learns the shipped model's reading of it beside its gold"
        " label: what the new pairs do not speak to stays as the shipped reader reads it; 'agreeing' keeps that"
        " reading only where it names the gold label (the rows it reads wrong learn from the label alone)",
    )
    t.add_argument(
        "--shipped-readings",
        choices=("auto", "onnx", "torch"),
        default="auto",
        help="how --keep-shipped reads the shipped model: onnxruntime on the CPU (its int8 file exactly) or its"
        " weights in torch on --device (with --quant-aware, at the int8 roundings); auto: onnx on a CPU, torch on a GPU",
    )
    t.add_argument("--max-length", type=int, default=320, help="tokens of a pair kept (passages: several sentences)")
    t.add_argument("--batch-size", type=int, default=32)
    t.add_argument("--score-limit", type=int, default=0, help="first N rows of each validation file (0: all)")
    t.add_argument("--precision", choices=("auto", "bf16", "fp32"), default="auto",
                   help="on a CPU: auto is bf16 where the CPU has bf16 units (a GPU always trains in bf16)")  # fmt: skip
    t.add_argument("--threads", type=int, default=2, help="torch threads on a CPU")
    t.add_argument("--seed", type=int, default=31)

    i = sub.add_parser("import", help="here: rebuild, check and export the returned student")
    i.add_argument("--returned", type=Path, required=True, help="the device run's $OUT, as it came back")
    i.add_argument("--job", type=Path, default=REPO / ".devjob")
    i.add_argument("--run-dir", type=Path, required=True)
    i.add_argument("--score-limit", type=int, default=0, help="first N rows of each validation file (0: all)")
    args = parser.parse_args(argv)
    return {"prepare": prepare, "train": train, "import": import_run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
