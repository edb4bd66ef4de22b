"""The shipped reader in torch: its architecture (``MPNET6``) holding the weights of its int8 ONNX file, read
with its tokenizer as the runtime reads pairs; the check that the rebuilt model reads the shipped canaries as
the file does; which layers a shallower student keeps; what a trained student sends back."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from training.device_train import STUDENT_PARTS, WORD_EMBEDDINGS
from training.train_stance import LABELS, export_fp32, model_inputs
from training.trainer import ReadingProgress, encode, predict
from training.weight_pack import pack_state

REPO = Path(__file__).resolve().parents[1]
CANARY_DRIFT = 0.05  # the rebuilt float model's canary readings against the shipped record's float readings
# The shipped model's architecture (data/stance_model/stance_config.json: layers 0, 2, …, 10 of
# all-mpnet-base-v2, 768 wide, with a fresh 3-way head); its weights come from the ONNX file.
MPNET6 = {
    "model_type": "mpnet",
    "vocab_size": 30527,
    "hidden_size": 768,
    "num_hidden_layers": 6,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1,
    "max_position_embeddings": 514,
    "relative_attention_num_buckets": 32,
    "layer_norm_eps": 1e-05,
    "initializer_range": 0.02,
    "pad_token_id": 1,
    "bos_token_id": 0,
    "eos_token_id": 2,
    "num_labels": len(LABELS),
    "id2label": dict(enumerate(LABELS)),
    "label2id": {label: i for i, label in enumerate(LABELS)},
}


def student_from_onnx(
    config: dict, model_dir: Path, max_length: int, names: dict | None = None, onnx_path: Path | None = None
):
    """(tokenizer, model, description): ``config``'s architecture holding the weights of ``model_dir/model.onnx``
    and reading pairs with ``model_dir/tokenizer.json``, as the runtime does. ``names`` (each parameter's
    initializer in the file, as ``onnx_weights.parameter_names`` finds it) is the job's mapping on the device:
    another torch or transformers names an export's initializers otherwise. Returns the mapping used too."""
    from tokenizers import Tokenizer
    from transformers import AutoConfig, AutoModelForSequenceClassification, PreTrainedTokenizerFast

    from training.onnx_weights import WeightRecoveryError, load_onnx_weights, parameter_names

    settings = dict(config)
    architecture = AutoConfig.for_model(settings.pop("model_type"), **settings)
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_config(architecture)
    backend = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    pad = (backend.padding or {}).get("pad_token") or backend.id_to_token(architecture.pad_token_id or 0)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token=pad, model_input_names=model_inputs(model), model_max_length=max_length
    )
    sample = [{"claim": "A claim.", "title": "Title", "evidence": "A sentence of evidence."}] * 2
    onnx_path = onnx_path or model_dir / "model.onnx"
    try:
        if names is None:
            names = parameter_names(model, lambda m, path: export_fp32(m, tokenizer, path, sample))
        counts = load_onnx_weights(model, onnx_path, names=names)
    except WeightRecoveryError as error:
        raise SystemExit(f"{onnx_path} does not hold the job's architecture: {error}") from error
    shipped = json.loads((model_dir / "stance_config.json").read_text())
    description = (
        f"{architecture.model_type}, {architecture.num_hidden_layers} layers of {architecture.hidden_size}, weights"
        f" from {in_repo(model_dir / 'model.onnx')} (run"
        f" {shipped.get('run')}; {counts['float']} float and {counts['dequantised']} dequantised int8 parameters)"
    )
    return tokenizer, model, description, names


def canary_drift(model, tokenizer, model_dir: Path) -> float:
    """The largest difference between ``model``'s probabilities for the shipped file's canary pairs and the float
    readings its ``stance_config.json`` records for them (the same weights, so only a wrong architecture or
    tokenizer moves them)."""
    recorded = json.loads((model_dir / "stance_config.json").read_text()).get("self_check", {}).get("pairs", [])
    if not recorded:
        raise SystemExit(f"{model_dir / 'stance_config.json'} holds no self_check pairs to check the architecture by")
    stances = ["supports", "refutes", "neutral"]  # LABELS' order, as the runtime names them
    read = predict(model, tokenizer, recorded)
    return max(abs(float(p[i]) - pair["float"][s]) for p, pair in zip(read, recorded) for i, s in enumerate(stances))


def kept_layers(total: int, keep: int) -> list[int]:
    """Which ``keep`` of a model's ``total`` encoder layers a shallower student starts from: evenly spaced, the
    first and the last among them (6 -> 4 keeps 0, 2, 3, 5), as DistilBERT's student took every other layer."""
    if not 1 <= keep <= total:
        raise SystemExit(f"--layers {keep}: the shipped model has {total} layers; keep between 1 and {total}")
    if keep == 1:
        return [0]
    return [round(i * (total - 1) / (keep - 1)) for i in range(keep)]


def trained_state(model) -> dict[str, torch.Tensor]:
    """What comes back from the device: every weight but the (frozen, shipped) word embeddings."""
    return {k: v.detach().cpu() for k, v in model.state_dict().items() if not k.endswith(WORD_EMBEDDINGS)}


def part_sizes(state: dict[str, torch.Tensor]) -> list[int]:
    """Bytes of each ``student-N.safetensors`` that ``state`` makes (tensor bytes and a header's allowance)."""
    return [
        sum(t.numel() * t.element_size() for t in part.values()) + 65_536 for part in pack_state(state, STUDENT_PARTS)
    ]


def in_repo(path: Path) -> str:
    """``path`` as the device names it: relative to the repository root where it lies inside it."""
    return str(path.resolve().relative_to(REPO)) if path.resolve().is_relative_to(REPO) else str(path)


def shipped_readings(onnx_path: Path, model_dir: Path, tokenizer, rows: list[dict], *, threads: int, max_length: int,
                     progress=None) -> list[list[float]] | None:  # fmt: skip
    """The shipped int8 file's probabilities for each row (LABELS order, four decimals), each pair read alone by
    onnxruntime as the runtime reads it (integer products: the same on every CPU kind), at up to ``max_length``
    tokens; None where onnxruntime is not installed (a device image), for the caller to say so and read the
    weights in torch. ``progress`` hears how far it is about once a minute."""
    try:
        import onnxruntime
    except ImportError:
        return None
    import numpy as np

    config_path = model_dir / "stance_config.json"
    named = json.loads(config_path.read_text()).get("labels")
    if sorted(named or []) != sorted(LABELS):
        raise SystemExit(f"{config_path}: 'labels' must name the file's logits ({', '.join(LABELS)}), not {named}")
    order = [named.index(label) for label in LABELS]
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    readings, told = [], ReadingProgress(len(rows), progress)
    for done, row in enumerate(rows, 1):
        inputs = encode(tokenizer, [row], return_tensors="np", max_length=max_length)
        logits = session.run(None, {name: np.asarray(inputs[name], dtype=np.int64) for name in names})[0][0][order]
        probabilities = np.exp(logits - logits.max())
        readings.append([round(float(p), 4) for p in probabilities / probabilities.sum()])
        told.read(done)
    return readings
