"""The claim–evidence stance model: a cross-encoder run with onnxruntime (no torch).

It reads claim and evidence together and gives P(supports), P(refutes), P(does not settle).
Weights, tokenizer and training metrics live in ``data/stance_model/`` (see its MODEL_CARD.md);
``training/train_stance.py`` reproduces them.

The first time a process loads it, it reads the canary pairs its export stored with the float model's
probabilities (``self_check`` in ``stance_config.json``) and refuses to answer — :class:`ModelSelfCheckError`,
one line naming the CPU and onnxruntime — when one comes out more than the stored tolerance away: an integer
kernel that computes differently on this CPU must never give silent wrong verdicts
(:mod:`mermaid_verifier.reader.model_check`).
"""

from __future__ import annotations

import asyncio
import json
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from mermaid_verifier.errors import ModelError, ModelSelfCheckError
from mermaid_verifier.models import Stance
from mermaid_verifier.reader.model_check import cpu_summary
from mermaid_verifier.stance_format import evidence_segment

_CLASS_TO_STANCE = {"SUPPORTS": Stance.SUPPORTS, "REFUTES": Stance.REFUTES, "NOT ENOUGH INFO": Stance.NEUTRAL}


def bundled_model_dir() -> Path:
    return Path(str(resources.files("mermaid_verifier.data") / "stance_model"))


class CanaryReading(BaseModel):
    """One canary pair of a model's self-check: the float model's probabilities and this machine's."""

    claim: str
    evidence: str
    expected: dict[str, float]
    read: dict[str, float]
    difference: float  # the largest absolute difference of the three probabilities


class SelfCheck(BaseModel):
    """The canary pairs of ``stance_config.json`` read on this machine, against ``tolerance``."""

    passed: bool
    tolerance: float
    largest_difference: float
    canaries: list[CanaryReading]
    cpu: str
    onnxruntime: str

    def failure(self, model_path: Path) -> str:
        """The one line that says why the model refuses to run here, and what to do."""
        worst = max(self.canaries, key=lambda c: c.difference)
        expected, read = (max(p, key=p.__getitem__) for p in (worst.expected, worst.read))
        return (
            f"the stance model {model_path} failed its self-check on this machine ({self.cpu}; onnxruntime "
            f"{self.onnxruntime}): a canary pair read {read} {worst.read[read]:.2f} where the float model reads "
            f"{expected} {worst.expected[expected]:.2f} (difference {worst.difference:.2f} > {self.tolerance:.2f}), "
            "so its verdicts cannot be trusted here and it gives none; run `mermaid-verifier doctor` (it names the "
            "file's SHA-256, to compare with the one shipped) and attach its output to a bug report; an LLM judge can "
            "decide without it (--backend llm with MERMAID_JUDGE_CHECK=off)"
        )


class StanceModel:
    """Thread-safe, lazily loaded ONNX cross-encoder.

    The int8 model quantises each token's activations on their own (``training/portable_formats.py``,
    ``row7``), so a pair reads the same alone or in a batch, padding included. Pairs are still read one per
    run by default (``batch_size``): on 2 AVX2 cores a claim's 8 evidence items in one batch, padded to the
    longest, read at 0.8× the speed of one by one; the integer products are most of the time, whatever
    their batch.

    Each run uses two threads (``threads``) that sleep when idle rather than spin: onnxruntime's spinning
    workers burned the core that another claim read concurrently needed (60 FEVER claims at concurrency 2:
    17-20 s of CPU, against 12-15 s with one thread a run). Measured on 2 AVX2 cores: the 1,287 tuning claims
    at concurrency 2, 7.35 claims/s (one thread a run: 8.03); ``tests/test_shipped_stance_model.py``, which
    reads one claim at a time, 164 s when it read the whole VitaminC slice (one thread: 226 s; spinning threads:
    154 s). Readings are the same whatever the threads: integer products are exact, and the threads split rows,
    not the sums within one."""

    def __init__(self, model_dir: Path | None = None, batch_size: int = 1, self_check: bool = True, threads: int = 2):
        self.model_dir = Path(model_dir) if model_dir else bundled_model_dir()
        self.batch_size = batch_size
        self.threads = threads
        self.self_check = self_check  # off only for tools that measure a file as it reads (training/)
        self.checked: SelfCheck | None = None  # the self-check's result once the model has loaded
        self._lock = threading.Lock()
        self._session: Any = None  # an onnxruntime InferenceSession once loaded
        self._tokenizer: Any = None  # a tokenizers Tokenizer once loaded
        self._stances: list[str] = []  # stance value of each logit
        self._inputs: list[str] = []  # the inputs the ONNX graph declares
        self._longer: dict[int, Any] = {}  # tokenizers that keep more tokens of a pair (passages), by length

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime
            from tokenizers import Tokenizer

            config_path = self.model_dir / "stance_config.json"
            model_path = self.model_dir / "model.onnx"
            if not model_path.is_file() or not config_path.is_file():
                raise ModelError(
                    f"stance model not found in {self.model_dir} (expected model.onnx and stance_config.json)"
                )
            config = json.loads(config_path.read_text())
            tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tokenizer.enable_truncation(max_length=int(config["max_length"]), strategy="longest_first")
            tokenizer.enable_padding()
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.log_severity_level = 3
            try:
                session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own untyped errors for corrupt files
                raise ModelError(f"cannot load stance model {model_path}: {exc}") from exc
            self._stances = [_CLASS_TO_STANCE[label].value for label in config["labels"]]
            self._inputs = [i.name for i in session.get_inputs()]
            if self.self_check:
                check = self._read_canaries(config, tokenizer, session, onnxruntime.__version__)
                self.checked = check
                if not check.passed:
                    raise ModelSelfCheckError(check.failure(model_path))
            self._tokenizer, self._session = tokenizer, session

    def _read_canaries(self, config: dict, tokenizer: Any, session: Any, runtime: str) -> SelfCheck:
        """Read the canary pairs the export stored (``self_check`` in ``stance_config.json``) as every pair
        is read, and compare with the float model's probabilities. A model without them cannot be checked
        and is refused: it could be answering wrongly on this CPU without anyone knowing."""
        spec = config.get("self_check")
        if not spec or not spec.get("pairs"):
            raise ModelSelfCheckError(
                f"the stance model in {self.model_dir} has no canary pairs ('self_check' in stance_config.json), "
                "so whether it reads right on this CPU cannot be checked; re-export it with training/train_stance.py "
                "(or training/portable_formats.py canaries) to add them"
            )
        tolerance = float(spec["tolerance"])
        readings = []
        for pair in spec["pairs"]:
            (read,) = self._run(tokenizer, session, pair["claim"], [(pair.get("title") or "", pair["evidence"])])
            expected = {stance: float(pair["float"][stance]) for stance in read}
            readings.append(
                CanaryReading(
                    claim=pair["claim"],
                    evidence=pair["evidence"],
                    expected=expected,
                    read={s: round(p, 4) for s, p in read.items()},
                    difference=round(max(abs(read[s] - expected[s]) for s in read), 4),
                )
            )
        largest = max(r.difference for r in readings)
        return SelfCheck(
            passed=largest <= tolerance,
            tolerance=tolerance,
            largest_difference=largest,
            canaries=readings,
            cpu=cpu_summary(),
            onnxruntime=runtime,
        )

    def probabilities(
        self, claim: str, evidence: list[tuple[str, str]], max_length: int | None = None
    ) -> list[dict[str, float]]:
        """For each (title, text) item, ``{"supports": p, "refutes": p, "neutral": p}`` towards ``claim``.
        ``max_length`` keeps more tokens of each pair than the model was trained with (a passage of a few
        sentences, not one), up to what its position embeddings allow."""
        if not evidence:
            return []
        self.load()
        tokenizer = self._tokenizer if max_length is None else self._tokenizer_for(max_length)
        out: list[dict[str, float]] = []
        for start in range(0, len(evidence), self.batch_size):
            out += self._run(tokenizer, self._session, claim, evidence[start : start + self.batch_size])
        return out

    def _tokenizer_for(self, max_length: int) -> Any:
        if not 16 <= max_length <= 512:
            raise ValueError(f"max_length must be between 16 and 512 tokens, not {max_length}")
        with self._lock:
            if max_length not in self._longer:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_str(self._tokenizer.to_str())
                tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
                tokenizer.enable_padding()
                self._longer[max_length] = tokenizer
            return self._longer[max_length]

    def _run(self, tokenizer: Any, session: Any, claim: str, batch: list[tuple[str, str]]) -> list[dict[str, float]]:
        encodings = tokenizer.encode_batch([(claim, evidence_segment(t, x)) for t, x in batch])
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        feeds = {name: feeds[name] for name in self._inputs}  # an MPNet-style model takes no token types
        logits = session.run(None, feeds)[0]
        exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
        probs = exp / exp.sum(axis=-1, keepdims=True)
        return [dict(zip(self._stances, map(float, row))) for row in probs]

    async def aprobabilities(
        self, claim: str, evidence: list[tuple[str, str]], max_length: int | None = None
    ) -> list[dict[str, float]]:
        return await asyncio.to_thread(self.probabilities, claim, evidence, max_length)


class StanceForUncheckedJudge(StanceModel):
    """The stance model where the LLM judge decides alone (``--backend llm`` with ``MERMAID_JUDGE_CHECK=off``).

    Nothing there needs its readings to decide, so a model that fails its self-check on this CPU does not
    stop the run: it gives no readings (the evidence goes unscored: the executor searches its whole budget
    and the LLM judge reads the passages themselves), and :attr:`problem` says why, for every result's
    stats. Wherever the stance model decides or checks a verdict, :class:`StanceModel` refuses instead."""

    def __init__(self, model_dir: Path | None = None, batch_size: int = 1):
        super().__init__(model_dir, batch_size)
        self.problem: str | None = None  # the self-check's one line, once it failed

    def load(self) -> None:
        if self.problem is not None:
            return
        try:
            super().load()
        except ModelSelfCheckError as error:
            self.problem = str(error)

    def probabilities(
        self, claim: str, evidence: list[tuple[str, str]], max_length: int | None = None
    ) -> list[dict[str, float]]:
        self.load()
        if self.problem is not None:
            return [{} for _ in evidence]  # unscored
        return super().probabilities(claim, evidence, max_length)
