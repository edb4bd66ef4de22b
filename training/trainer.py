"""A resumable fine-tuning loop for the stance cross-encoder.

The run is a fixed sequence of steps: for each stage (its own pairs, epochs and learning rate), for each
epoch, the batches drawn by ``length_grouped_batches`` from a random generator seeded by
(seed, stage, epoch). Nothing about that order depends on earlier steps, so a run can stop anywhere and
continue from a checkpoint: the checkpoint holds the model, the optimiser, the learning-rate schedule,
torch's random state (dropout) and the position of the next batch. A resumed run takes the same steps
with the same random numbers as an uninterrupted one (``tests/test_trainer_resume.py`` checks it on a
tiny model).

Checkpoints are written atomically (a temporary file, then a rename) at least every
``checkpoint_seconds``, at the end of each stage, and when the run stops: at its wall-time limit, or on
SIGTERM/SIGINT.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import random
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from transformers import get_linear_schedule_with_warmup

from mermaid_verifier.errors import TrainingStopped
from mermaid_verifier.reader.model_check import file_sha256  # noqa: F401  (train_stance and the other scripts take it from here)
from mermaid_verifier.stance_format import evidence_segment  # the input format the runtime model is fed

LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]  # class order of the model's logits
LABEL_IDS = {label: i for i, label in enumerate(LABELS)}
MAX_LENGTH = 128
CHECKPOINT_FILE = "checkpoint.pt"


@dataclass(frozen=True)
class Stage:
    name: str
    origins: tuple[str, ...] | None  # pair origins trained on; None: all pairs
    epochs: int
    lr: float


@dataclass
class Position:
    """The next batch to train: stage, epoch and batch index within that epoch's order."""

    stage: int = 0
    epoch: int = 0
    batch: int = 0
    steps_done: int = 0
    train_seconds: float = 0.0
    losses: dict[str, list[float]] = field(default_factory=dict)  # stage name -> mean loss per 100 steps


def batch_order(rows: list[dict], batch_size: int, seed: int, stage: int, epoch: int) -> list[list[int]]:
    """Row indices of each batch: shuffled, then sorted by length within windows of 50 batches.

    Padding stays small; the order depends only on (seed, stage, epoch), never on how the run got here.
    """
    key = hashlib.sha256(f"{seed}/{stage}/{epoch}".encode()).hexdigest()
    rng = random.Random(key)
    order = list(range(len(rows)))
    rng.shuffle(order)
    window = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: len(rows[i]["claim"]) + len(rows[i]["evidence"]))
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


def encode(tokenizer, rows: list[dict], return_tensors: str = "pt", max_length: int = MAX_LENGTH):
    """The model inputs of ``rows`` (token type ids only where the tokenizer makes them: BERT, not MPNet), each
    pair cut to ``max_length`` tokens."""
    return tokenizer(
        [r["claim"] for r in rows],
        [evidence_segment(r.get("title") or "", r["evidence"]) for r in rows],
        truncation="longest_first",
        max_length=max_length,
        padding=True,
        return_tensors=return_tensors,
    )


def teacher_probabilities(rows: list[dict]):
    """The teacher's (S, R, NEI) probabilities each row carries (``teacher_labels.py`` adds them); a row without
    them gets NaN, and learns from its gold label alone (``stance_loss``)."""
    missing = [float("nan")] * len(LABELS)
    return torch.tensor([r.get("teacher", missing) for r in rows], dtype=torch.float32)


def distill_weights(rows: list[dict], default: float):
    """Each row's share of the loss that follows the teacher: its own ``distill`` where it has one (an anchor
    pair, learnt from the teacher alone, has 1.0), else ``default``."""
    return torch.tensor([float(r.get("distill", default)) for r in rows], dtype=torch.float32)


def stance_loss(logits, labels, teacher=None, distill_weight=0.0):
    """Cross-entropy on the gold labels, mixed with cross-entropy on the teacher's probabilities.

    ``distill_weight`` 0: gold labels only; 1: the teacher's soft labels only (knowledge distillation
    at temperature 1, as the teacher's probabilities are what the student should reproduce); a tensor gives
    each row its own share. Rows whose teacher probabilities are NaN (pairs the teacher never labelled) take
    the gold term alone."""
    hard = torch.nn.functional.cross_entropy(logits, labels, reduction="none")
    if not torch.is_tensor(distill_weight) and not distill_weight:
        return hard.mean()
    labelled = ~teacher.isnan().any(-1)
    soft = -(teacher.nan_to_num(0.0) * torch.nn.functional.log_softmax(logits, -1)).sum(-1)
    mixed = torch.where(labelled, (1 - distill_weight) * hard + distill_weight * soft, hard)
    return mixed.mean()


def stage_rows(rows: list[dict], stage: Stage) -> list[dict]:
    if stage.origins is None:
        return rows
    return [r for r in rows if r["origin"] in stage.origins]


class Trainer:
    """Trains ``model`` through ``stages`` on ``rows``, checkpointing into ``run_dir``."""

    def __init__(
        self,
        model,
        tokenizer,
        rows: list[dict],
        stages: list[Stage],
        run_dir: Path,
        *,
        seed: int,
        batch_size: int = 32,
        bf16: bool = True,
        checkpoint_seconds: float = 600,
        max_seconds: float | None = None,
        distill_weight: float = 0.0,
        device: str = "cpu",
        max_length: int = MAX_LENGTH,
        log: Callable[[str], None] = print,
        log_every: int = 100,
        average_from: int | None = None,
        average_every: int = 10,
    ):
        self.model, self.tokenizer, self.rows, self.stages = model, tokenizer, rows, stages
        # a running mean of the weights, taken every ``average_every`` steps once ``average_from`` steps are done
        # (None: no average); it travels in the checkpoint, so a resumed run averages the same weights
        self.average_from, self.average_every = average_from, average_every
        self.average: dict[str, torch.Tensor] | None = None
        self.averaged = 0  # weights taken into the average so far
        self.log_every = log_every  # steps between progress lines (loss, pairs/s, time left)
        self.stopped_by_signal = False
        self.distill_weight = distill_weight  # share of the loss that follows the teacher's probabilities
        self.run_dir = Path(run_dir)
        self.seed, self.batch_size, self.bf16 = seed, batch_size, bf16
        self.device = torch.device(device)  # "cuda" on a lent GPU; the model must already be there
        self.checkpoint_seconds, self.max_seconds = checkpoint_seconds, max_seconds
        self.max_length = max_length  # tokens of a pair kept (passages need more than single sentences)
        self.log = log
        self.position = Position()
        self._signal: int | None = None

    # -- checkpoints -------------------------------------------------------------------------------
    @property
    def checkpoint_path(self) -> Path:
        return self.run_dir / CHECKPOINT_FILE

    def save_checkpoint(self, optimizer, scheduler) -> None:
        state = {
            "model": self.model.state_dict(),
            "optimizer": optimizer.state_dict() if optimizer is not None else None,
            "scheduler": scheduler.state_dict() if scheduler is not None else None,
            "torch_rng": torch.get_rng_state(),
            "position": asdict(self.position),
            "average": {"state": self.average, "count": self.averaged} if self.average is not None else None,
        }
        tmp = self.checkpoint_path.with_suffix(".tmp")
        torch.save(state, tmp)
        os.replace(tmp, self.checkpoint_path)
        self.log(
            f"checkpoint: stage {self.position.stage} epoch {self.position.epoch} batch {self.position.batch}"
            f" ({self.position.steps_done} steps)"
        )

    def load_checkpoint(self) -> dict:
        state = torch.load(self.checkpoint_path, weights_only=False)
        self.model.load_state_dict(state["model"])
        torch.set_rng_state(state["torch_rng"])
        self.position = Position(**state["position"])
        if state.get("average") is not None:
            self.average, self.averaged = state["average"]["state"], state["average"]["count"]
        return state

    # -- the weight average ------------------------------------------------------------------------
    def _take_into_average(self) -> None:
        """Fold the current floating-point weights into the running mean (kept in float32 on the CPU)."""
        weights = {k: v.detach().float().cpu() for k, v in self.model.state_dict().items() if v.is_floating_point()}
        self.averaged += 1
        if self.average is None:
            self.average = {k: v.clone() for k, v in weights.items()}
            return
        for key, value in weights.items():
            self.average[key] += (value - self.average[key]) / self.averaged

    def use_average(self) -> int:
        """Load the running mean into the model (its integer buffers stay as they are); returns how many weights
        it averages. Raises ValueError when nothing was averaged."""
        if self.average is None:
            raise ValueError("no weights were averaged: the run stopped before its averaging began")
        current = self.model.state_dict()
        self.model.load_state_dict(
            {k: (self.average[k].to(v.dtype).to(v.device) if k in self.average else v) for k, v in current.items()}
        )
        return self.averaged

    # -- the loop ----------------------------------------------------------------------------------
    def _optimizer(self, stage: Stage, rows: list[dict]):
        trained = [p for p in self.model.parameters() if p.requires_grad]  # frozen embeddings stay as they are
        optimizer = torch.optim.AdamW(trained, lr=stage.lr, weight_decay=0.01)
        steps = stage.epochs * math.ceil(len(rows) / self.batch_size)
        return optimizer, get_linear_schedule_with_warmup(optimizer, int(0.06 * steps), steps)

    def _step(self, batch: list[dict], optimizer, scheduler) -> float:
        inputs = encode(self.tokenizer, batch, max_length=self.max_length).to(self.device)
        labels = torch.tensor([LABEL_IDS[r["label"]] for r in batch], device=self.device)
        teacher = teacher_probabilities(batch).to(self.device) if self.distill_weight else None
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bf16):
            logits = self.model(**inputs).logits
        weight = distill_weights(batch, self.distill_weight).to(self.device) if self.distill_weight else 0.0
        loss = stance_loss(logits.float(), labels, teacher, weight)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        return loss.item()

    def _progress(self, stage, epoch, batch_index, batches, planned, steps_before, seconds_before) -> str:
        """One progress line: where the run is, the recent loss, pairs/s of this process and the time left."""
        done = self.position.steps_done - steps_before
        seconds = self.position.train_seconds - seconds_before
        rate = done / seconds if seconds > 0 else 0.0
        left = (planned - self.position.steps_done) / rate if rate else float("nan")
        recent = self.position.losses.get(stage.name)
        loss = f"loss {recent[-1]:.3f} (last 100 steps)" if recent else "loss not yet averaged"
        return (
            f"{stage.name} epoch {epoch + 1}/{stage.epochs} batch {batch_index + 1}/{batches}"
            f" step {self.position.steps_done}/{planned} {loss},"
            f" {rate * self.batch_size:.2f} pairs/s, {self.position.train_seconds / 60:.1f} min trained,"
            f" about {left / 60:.0f} min left"
        )

    def _on_signal(self, signum, _frame) -> None:
        self._signal = signum

    def train(self, resume: bool = False) -> Position:
        """Run (or continue) every stage; raises TrainingStopped after checkpointing if stopped early."""
        state = self.load_checkpoint() if resume and self.checkpoint_path.exists() else None
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        started = last_checkpoint = time.monotonic()
        planned = sum(
            stage.epochs * math.ceil(len(stage_rows(self.rows, stage)) / self.batch_size) for stage in self.stages
        )
        steps_before, seconds_before = self.position.steps_done, self.position.train_seconds
        try:
            self.model.train()
            for stage_index in range(self.position.stage, len(self.stages)):
                stage = self.stages[stage_index]
                rows = stage_rows(self.rows, stage)
                optimizer, scheduler = self._optimizer(stage, rows)
                if state is not None:  # the checkpoint was taken inside this stage
                    if state["optimizer"] is not None:
                        optimizer.load_state_dict(state["optimizer"])
                        scheduler.load_state_dict(state["scheduler"])
                    state = None
                losses = self.position.losses.setdefault(stage.name, [])
                window: list[float] = []
                for epoch in range(self.position.epoch, stage.epochs):
                    batches = batch_order(rows, self.batch_size, self.seed, stage_index, epoch)
                    for batch_index in range(self.position.batch, len(batches)):
                        step_started = time.monotonic()
                        window.append(self._step([rows[i] for i in batches[batch_index]], optimizer, scheduler))
                        self.position.train_seconds += time.monotonic() - step_started
                        self.position.batch, self.position.steps_done = batch_index + 1, self.position.steps_done + 1
                        if len(window) == 100:
                            losses.append(round(sum(window) / len(window), 4))
                            window = []
                        if (
                            self.average_from is not None
                            and self.position.steps_done >= self.average_from
                            and (self.position.steps_done - self.average_from) % self.average_every == 0
                        ):
                            self._take_into_average()
                        if self.position.steps_done % self.log_every == 0:
                            self.log(self._progress(stage, epoch, batch_index, len(batches), planned,
                                                    steps_before, seconds_before))  # fmt: skip
                        now = time.monotonic()
                        stop = self._signal is not None or (
                            self.max_seconds is not None and now - started >= self.max_seconds
                        )
                        if stop or now - last_checkpoint >= self.checkpoint_seconds:
                            self.save_checkpoint(optimizer, scheduler)
                            last_checkpoint = now
                        if stop:
                            self.stopped_by_signal = self._signal is not None
                            why = f"signal {self._signal}" if self._signal is not None else "wall-time limit"
                            raise TrainingStopped(f"stopped at {why}; continue with --resume")
                    self.position.epoch, self.position.batch = epoch + 1, 0
                self.position.stage, self.position.epoch, self.position.batch = stage_index + 1, 0, 0
                self.save_checkpoint(None, None)
                last_checkpoint = time.monotonic()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        return self.position


@torch.no_grad()
def predict(
    model,
    tokenizer,
    rows: list[dict],
    batch_size: int = 64,
    bf16: bool = False,
    device: str = "cpu",
    max_length: int = MAX_LENGTH,
    progress: Callable[[str], None] | None = None,
):
    """Softmax probabilities (numpy, LABELS order) for each row, read at up to ``max_length`` tokens; ``model``
    must be on ``device``. Rows are read in batches of similar length, longest first (less padding; the time
    left is over- rather than underestimated), and ``progress``, when given, hears how far it is once a minute."""
    import numpy as np

    model.eval()
    order = sorted(range(len(rows)), key=lambda i: -len(rows[i]["claim"]) - len(rows[i]["evidence"]))  # longest first
    out = np.zeros((len(rows), len(LABELS)), dtype=np.float32)
    told = ReadingProgress(len(rows), progress)
    for start in range(0, len(rows), batch_size):
        chunk = order[start : start + batch_size]
        with torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=bf16):
            inputs = encode(tokenizer, [rows[i] for i in chunk], max_length=max_length).to(device)
            logits = model(**inputs).logits
        out[chunk] = torch.softmax(logits.float(), -1).cpu().numpy()
        told.read(start + len(chunk))
    return out


class ReadingProgress:
    """Tells ``progress`` (when given) how far a reading of ``total`` pairs is, about once a minute and at the end."""

    def __init__(self, total: int, progress: Callable[[str], None] | None, every: float = 60.0):
        self.total, self.progress, self.every = total, progress, every
        self.started = self.last = time.monotonic()

    def read(self, done: int) -> None:
        now = time.monotonic()
        if self.progress is None or (now - self.last < self.every and done < self.total):
            return
        rate = done / max(now - self.started, 1e-9)
        self.progress(f"read {done} of {self.total} pairs, {rate:.1f} pairs/s, {(self.total - done) / rate:.0f} s left")
        self.last = now


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":", 1)[1].split()}


def cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown"
    return next(
        (line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("model name")), "unknown"
    )


def use_bf16(precision: str, flags: set[str] | None = None) -> bool:
    """bf16 autocast only where the CPU computes in bf16 natively: without those units it is 5-20x slower."""
    if precision != "auto":
        return precision == "bf16"
    flags = cpu_flags() if flags is None else flags
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def bytes_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def jsonl_bytes(rows: list[dict]) -> bytes:
    """One compact JSON line a row (what :func:`jsonl_rows` reads back)."""
    return b"".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for row in rows)


def jsonl_rows(data: bytes) -> list[dict]:
    """The rows of a JSON-lines file's bytes, blank lines skipped (the standard library's parser: the GPU
    machines that train run without orjson)."""
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def write_json(path: Path, data) -> None:
    tmp = Path(path).with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
