"""The claim–evidence stance model: a MiniLM cross-encoder run with onnxruntime (no torch).

It reads claim and evidence together and gives P(supports), P(refutes), P(does not settle).
Weights, tokenizer and training metrics live in ``data/stance_model/`` (see its MODEL_CARD.md);
``training/train_stance.py`` reproduces them.
"""

from __future__ import annotations

import asyncio
import json
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mermaid_verifier.errors import ModelError
from mermaid_verifier.models import Stance

_CLASS_TO_STANCE = {"SUPPORTS": Stance.SUPPORTS, "REFUTES": Stance.REFUTES, "NOT ENOUGH INFO": Stance.NEUTRAL}


def bundled_model_dir() -> Path:
    return Path(str(resources.files("mermaid_verifier.data") / "stance_model"))


def evidence_segment(title: str, text: str) -> str:
    """How evidence is shown to the model; must match training (``training/train_stance.py``)."""
    return f"{title}: {text}" if title else text


class StanceModel:
    """Thread-safe, lazily loaded ONNX cross-encoder.

    Pairs are read one per run by default: the int8 model quantises its activations dynamically, with
    one scale for the whole batch (padding included), so a pair read beside other pairs can get other
    probabilities than read alone (a REFUTES probability moved by 0.08 between two batchings of the same
    claim's evidence). One pair per run makes each reading the same whatever it is read with, at about
    the same speed on 2 cores (30 pairs: 0.33 s in one batch, 0.36 s one by one)."""

    def __init__(self, model_dir: Path | None = None, batch_size: int = 1):
        self.model_dir = Path(model_dir) if model_dir else bundled_model_dir()
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._session: Any = None  # an onnxruntime InferenceSession once loaded
        self._tokenizer: Any = None  # a tokenizers Tokenizer once loaded
        self._stances: list[str] = []  # stance value of each logit
        self._inputs: list[str] = []  # the inputs the ONNX graph declares

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
            options.intra_op_num_threads = 2
            options.log_severity_level = 3
            try:
                session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own untyped errors for corrupt files
                raise ModelError(f"cannot load stance model {model_path}: {exc}") from exc
            self._stances = [_CLASS_TO_STANCE[label].value for label in config["labels"]]
            self._inputs = [i.name for i in session.get_inputs()]
            self._tokenizer, self._session = tokenizer, session

    def probabilities(self, claim: str, evidence: list[tuple[str, str]]) -> list[dict[str, float]]:
        """For each (title, text) item, ``{"supports": p, "refutes": p, "neutral": p}`` towards ``claim``."""
        if not evidence:
            return []
        self.load()
        out: list[dict[str, float]] = []
        for start in range(0, len(evidence), self.batch_size):
            batch = evidence[start : start + self.batch_size]
            encodings = self._tokenizer.encode_batch([(claim, evidence_segment(t, x)) for t, x in batch])
            feeds = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            feeds = {name: feeds[name] for name in self._inputs}  # an MPNet-style model takes no token types
            logits = self._session.run(None, feeds)[0]
            exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
            probs = exp / exp.sum(axis=-1, keepdims=True)
            out += [dict(zip(self._stances, map(float, row))) for row in probs]
        return out

    async def aprobabilities(self, claim: str, evidence: list[tuple[str, str]]) -> list[dict[str, float]]:
        return await asyncio.to_thread(self.probabilities, claim, evidence)
