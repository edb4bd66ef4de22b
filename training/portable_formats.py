"""Formats of one trained stance model that compute the same on every CPU, built and compared.

The run directory of a lent-GPU student does not outlive its machine; its int8 file does. From such a file
(s8 weights per channel, or the u8 weights made from them; u8 activations quantised per call, or per token
for ``float``) this builds the other formats of the same weights:

* ``float``: every weight dequantised, float MatMuls (the reference the others are compared with);
* ``fp16``: the dequantised weights stored in half precision, cast to float when the session loads;
* ``u8``: the s8 weights shifted to u8 (w + 128, zero point 128) — the same integers, so the same products
  as the s8 file on an exact (VNNI) kernel, run on u8 × u8 kernels that never saturate;
* ``s7``: the s8 weights halved and rounded to ±64 (scales doubled), onnxruntime's ``reduce_range``;
* ``s8``: the file as it is (on AVX2 without VNNI, its products saturate);
* ``row7`` (ships): the s8 weights (from an s8 or a u8 file) with activations quantised per token (per row
  of each MatMul's input) to u8 within [0, 127]: no pair of neighbouring products can leave int16 on any
  kernel (127 × (128 + 128) < 2^15), so it runs on the u8 × s8 kernels, and a pair reads the same whatever
  it is batched with.

Each variant is read as the runtime reads it (``mermaid_verifier.reader.stance.StanceModel``, one pair per run),
natively or under an emulated CPU (``qemu-x86_64 -cpu Haswell python …``: AVX2, no AVX-512, no VNNI):

    python -m training.portable_formats build --from data/stance_model --out /tmp/formats --variants float
    python -m training.portable_formats build --from <an s8 or u8 file's folder> --out /tmp/formats
    python -m training.portable_formats clean --pairs PAIRS.jsonl --out pairs.clean.jsonl
    python -m training.portable_formats read --model /tmp/formats/u8 --pairs pairs.clean.jsonl --out probs-u8.json
    python -m training.portable_formats compare probs-float.json probs-u8.json …

``read`` writes the probabilities with the CPU flags of the machine (or emulated CPU) that read them;
``compare`` reports argmax agreement with the first file, macro-F1 against the pairs' labels and the largest
probability difference.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from mermaid_verifier.errors import ModelSelfCheckError
from mermaid_verifier.reader.model_check import ROW_LEVELS, cpu_summary, saturation_risks
from mermaid_verifier.reader.stance import StanceModel

ROW7_FORMAT = (
    "s8 weights per channel, u8 activations within [0, 127] quantised per token: no product can saturate on any "
    "kernel, and a pair reads the same whatever it is batched with"
)
FORMATS = {
    "float": "float32 MatMuls on the dequantised weights",
    "fp16": "float16 weights cast to float32 at load, float32 MatMuls",
    "u8": "u8 weights per channel (zero point 128), u8 activations quantised per call: exact on every CPU",
    "s7": "s8 weights within ±64 per channel (reduce_range), u8 activations quantised per call",
    "s8": "s8 weights per channel on [-127, 127], u8 activations quantised per call: saturates on AVX2 without VNNI",
    "row7": ROW7_FORMAT,
}
VARIANTS = tuple(FORMATS)
LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
STANCES = ("supports", "refutes", "neutral")


def _graph_maps(graph):
    producer = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    return producer, consumers


def _drop_dead_nodes(graph) -> None:
    """Remove nodes none of whose outputs is read (repeat until none is left)."""
    outputs = {o.name for o in graph.output}
    while True:
        read = {name for node in graph.node for name in node.input} | outputs
        dead = [node for node in graph.node if not any(out in read for out in node.output)]
        if not dead:
            break
        for node in dead:
            graph.node.remove(node)
    used = {name for node in graph.node for name in node.input}
    for init in [i for i in graph.initializer if i.name not in used]:
        graph.initializer.remove(init)


def float_weights(model, half: bool = False):
    """Every ``DynamicQuantizeLinear → MatMulInteger → Cast → Mul`` chain of ``model`` as a float MatMul on
    the dequantised weights (stored in fp16 and cast back when ``half``)."""
    import onnx
    from onnx import helper, numpy_helper

    graph = model.graph
    producer, consumers = _graph_maps(graph)
    initializers = {init.name: init for init in graph.initializer}
    new_initializers: dict[str, np.ndarray] = {}
    for node in [n for n in graph.node if n.op_type == "MatMulInteger"]:
        activation_q, weight_q, _, weight_zp = node.input
        activation = _float_activation(activation_q, producer, node.name)
        scale_mul = _float_product(node, consumers)
        weight_scale = weight_q.removesuffix("_quantized") + "_scale"
        values = numpy_helper.to_array(initializers[weight_q]).astype(np.float32)
        zero = numpy_helper.to_array(initializers[weight_zp]).astype(np.float32)
        scale = numpy_helper.to_array(initializers[weight_scale]).astype(np.float32)
        name = weight_q.removesuffix("_quantized") + "_float"
        if name not in new_initializers:
            new_initializers[name] = (values - zero.reshape(1, -1)) * scale.reshape(1, -1)
        weight = name
        if half:
            weight = name + "_cast"
            graph.node.append(helper.make_node("Cast", [name], [weight], to=onnx.TensorProto.FLOAT))
        graph.node.append(helper.make_node("MatMul", [activation, weight], [scale_mul.output[0]]))
        graph.node.remove(scale_mul)  # what computed its input is left unread, and dropped below
    for name, array in new_initializers.items():
        graph.initializer.append(numpy_helper.from_array(array.astype(np.float16) if half else array, name))
    _drop_dead_nodes(graph)
    sorted_nodes = _topological(graph)
    del graph.node[:]
    graph.node.extend(sorted_nodes)
    return model


def _float_activation(activation_q: str, producer: dict, where: str) -> str:
    """The float tensor a MatMulInteger's u8 input was quantised from: the input of ``DynamicQuantizeLinear``,
    or of the per-token chain :func:`row_quantised` writes (``Div → Round → Add → Clip → Cast``)."""
    node = producer[activation_q]
    if node.op_type == "DynamicQuantizeLinear":
        return node.input[0]
    for op_type in ("Cast", "Clip", "Add", "Round", "Div"):
        if node.op_type != op_type:
            raise ValueError(f"{where}: its activations are not quantised in a form this reads ({node.op_type})")
        if op_type != "Div":
            node = producer[node.input[0]]
    return node.input[0]


def _float_product(node, consumers: dict):
    """The ``Mul`` that scales ``node``'s integer product back to float (after a ``Cast``, and in the per-token
    form after the zero points' correction)."""
    (after,) = consumers[node.output[0]]
    if after.op_type == "Sub":
        (after,) = consumers[after.output[0]]
    if after.op_type != "Cast":
        raise ValueError(f"{node.name}: its product is not cast to float where expected ({after.op_type})")
    (scale_mul,) = consumers[after.output[0]]
    return scale_mul


def _topological(graph) -> list:
    known = {i.name for i in graph.input} | {i.name for i in graph.initializer} | {""}
    pending, ordered = list(graph.node), []
    while pending:
        ready = [n for n in pending if all(i in known for i in n.input)]
        if not ready:
            raise ValueError("the rewritten graph has a cycle or a missing input")
        for node in ready:
            ordered.append(node)
            known.update(node.output)
            pending.remove(node)
    return ordered


def integer_weights(model, kind: str):
    """The s8 weights of every ``MatMulInteger`` as ``u8`` (w + 128, zero point 128: the same integers) or
    ``s7`` (round(w / 2) within ±64, scale doubled)."""
    from onnx import numpy_helper

    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    done: set[str] = set()
    for node in [n for n in graph.node if n.op_type == "MatMulInteger"]:
        weight_q, weight_zp = node.input[1], node.input[3]
        if weight_q in done:
            continue
        done.add(weight_q)
        values = numpy_helper.to_array(initializers[weight_q])
        zero = numpy_helper.to_array(initializers[weight_zp])
        if values.dtype != np.int8 or np.any(zero != 0):
            raise ValueError(f"{weight_q}: expected symmetric s8 weights (zero point 0)")
        if kind == "u8":
            new, new_zero = (values.astype(np.int16) + 128).astype(np.uint8), np.full(zero.shape, 128, np.uint8)
        elif kind == "s7":
            new, new_zero = np.clip(np.round(values.astype(np.float32) / 2), -64, 64).astype(np.int8), zero
            scale_name = weight_q.removesuffix("_quantized") + "_scale"
            scale = numpy_helper.to_array(initializers[scale_name]) * 2
            initializers[scale_name].CopyFrom(numpy_helper.from_array(scale.astype(np.float32), scale_name))
        else:
            raise ValueError(kind)
        initializers[weight_q].CopyFrom(numpy_helper.from_array(new, weight_q))
        initializers[weight_zp].CopyFrom(numpy_helper.from_array(new_zero, weight_zp))
    return model


def _signed_weights(values: np.ndarray, zero: np.ndarray, name: str) -> np.ndarray:
    """Per-channel s8 weights from an s8 file (zero point 0) or the u8 file made from one (zero point 128)."""
    if values.dtype == np.int8 and np.all(zero == 0):
        return values
    if values.dtype == np.uint8 and np.all(zero == 128):
        return (values.astype(np.int16) - 128).astype(np.int8)
    raise ValueError(f"{name}: expected symmetric s8 weights, or u8 weights with zero point 128")


def row_quantised(model):
    """Every ``DynamicQuantizeLinear → MatMulInteger → Cast → Mul`` chain of ``model`` with the activations
    quantised per token instead of per call, to u8 within [0, :data:`ROW_LEVELS`], against s8 weights.

    For each row x of a MatMul's input: lo = min(min(x), 0), hi = max(max(x), 0), scale = (hi - lo) / 127,
    zero point z = round(-lo / scale), q = clip(round(x / scale) + z, 0, 127). The integer product is
    q · W − z · colsum(W) (exact in int32), times scale · the weights' per-channel scale. Each row's
    quantisation depends on that row alone, so neither padding nor the other pairs of a batch move a reading;
    and as q ≤ 127 and |W| ≤ 128, the pairwise int16 sums of the AVX2 u8 × s8 kernel cannot saturate."""
    import onnx
    from onnx import helper, numpy_helper

    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if opset >= 18:  # ReduceMin / ReduceMax take their axes as an input from opset 18
        raise ValueError(f"row_quantised writes opset-17 reductions; this model imports opset {opset}")
    graph = model.graph
    producer, consumers = _graph_maps(graph)
    initializers = {init.name: init for init in graph.initializer}
    new_initializers: dict[str, np.ndarray] = {
        "row7_zero": np.array(0.0, np.float32),
        "row7_levels": np.array(float(ROW_LEVELS), np.float32),
        "row7_smallest_scale": np.array(1e-30, np.float32),  # a row of zeros: every q is its zero point
    }
    rows: dict[str, tuple[str, str, str]] = {}  # activation → (q, scale, zero point as int32)
    weights: dict[str, str] = {}  # quantised weight → the name of its column sums
    for node in [n for n in graph.node if n.op_type == "MatMulInteger"]:
        activation_q, weight_q, _, weight_zp = node.input
        quantize = producer[activation_q]
        if quantize.op_type != "DynamicQuantizeLinear":
            raise ValueError(f"{node.name}: its activations do not come from DynamicQuantizeLinear")
        x = quantize.input[0]
        if x not in rows:
            p = f"{x}_row7"
            graph.node.extend(
                [
                    helper.make_node("ReduceMin", [x], [f"{p}_min"], axes=[-1], keepdims=1),
                    helper.make_node("ReduceMax", [x], [f"{p}_max"], axes=[-1], keepdims=1),
                    helper.make_node("Min", [f"{p}_min", "row7_zero"], [f"{p}_lo"]),
                    helper.make_node("Max", [f"{p}_max", "row7_zero"], [f"{p}_hi"]),
                    helper.make_node("Sub", [f"{p}_hi", f"{p}_lo"], [f"{p}_range"]),
                    helper.make_node("Div", [f"{p}_range", "row7_levels"], [f"{p}_step"]),
                    helper.make_node("Max", [f"{p}_step", "row7_smallest_scale"], [f"{p}_scale"]),
                    helper.make_node("Div", [f"{p}_lo", f"{p}_scale"], [f"{p}_lo_steps"]),
                    helper.make_node("Neg", [f"{p}_lo_steps"], [f"{p}_zero_steps"]),
                    helper.make_node("Round", [f"{p}_zero_steps"], [f"{p}_zero_rounded"]),
                    helper.make_node("Clip", [f"{p}_zero_rounded", "row7_zero", "row7_levels"], [f"{p}_zero"]),
                    helper.make_node("Div", [x, f"{p}_scale"], [f"{p}_steps"]),
                    helper.make_node("Round", [f"{p}_steps"], [f"{p}_rounded"]),
                    helper.make_node("Add", [f"{p}_rounded", f"{p}_zero"], [f"{p}_shifted"]),
                    helper.make_node("Clip", [f"{p}_shifted", "row7_zero", "row7_levels"], [f"{p}_clipped"]),
                    helper.make_node("Cast", [f"{p}_clipped"], [f"{p}_q"], to=onnx.TensorProto.UINT8),
                    helper.make_node("Cast", [f"{p}_zero"], [f"{p}_zero_int"], to=onnx.TensorProto.INT32),
                ]
            )
            rows[x] = (f"{p}_q", f"{p}_scale", f"{p}_zero_int")
        q, scale, zero = rows[x]
        if weight_q not in weights:  # s8 under the same names (training/onnx_weights.py reads them back)
            zero_point = numpy_helper.to_array(initializers[weight_zp])
            signed = _signed_weights(numpy_helper.to_array(initializers[weight_q]), zero_point, weight_q)
            initializers[weight_q].CopyFrom(numpy_helper.from_array(signed, weight_q))
            initializers[weight_zp].CopyFrom(numpy_helper.from_array(np.zeros(zero_point.shape, np.int8), weight_zp))
            column_sums = f"{weight_q.removesuffix('_quantized')}_column_sums"
            new_initializers[column_sums] = signed.astype(np.int32).sum(axis=0).astype(np.int32)
            weights[weight_q] = column_sums
        column_sums = weights[weight_q]
        scale_mul = _float_product(node, consumers)
        weight_scale = weight_q.removesuffix("_quantized") + "_scale"
        scales = producer.get(scale_mul.input[1])  # Mul(activation scale, weight scale), as the quantiser writes
        if weight_scale not in initializers or scales is None or weight_scale not in scales.input:
            raise ValueError(f"{node.name}: its weights' scale is not where the quantiser puts it ({weight_scale})")
        o = f"{node.output[0]}_row7"
        graph.node.extend(
            [
                helper.make_node("MatMulInteger", [q, weight_q, "", weight_zp], [f"{o}_products"], name=node.name),
                helper.make_node("Mul", [zero, column_sums], [f"{o}_zero_products"]),
                helper.make_node("Sub", [f"{o}_products", f"{o}_zero_products"], [f"{o}_exact"]),
                helper.make_node("Cast", [f"{o}_exact"], [f"{o}_float"], to=onnx.TensorProto.FLOAT),
                helper.make_node("Mul", [scale, weight_scale], [f"{o}_scale"]),
                helper.make_node("Mul", [f"{o}_float", f"{o}_scale"], [scale_mul.output[0]]),
            ]
        )
        graph.node.remove(scale_mul)  # what computed its input is left unread, and dropped below
    for name, array in new_initializers.items():
        graph.initializer.append(numpy_helper.from_array(array, name))
    _drop_dead_nodes(graph)
    sorted_nodes = _topological(graph)
    del graph.node[:]
    graph.node.extend(sorted_nodes)
    return model


def build(source: Path, out: Path, variants: list[str]) -> None:
    import onnx

    per_token = "row7_levels" in {init.name for init in onnx.load(str(source / "model.onnx")).graph.initializer}
    if per_token and set(variants) - {"float", "fp16"}:
        raise SystemExit(
            f"{source} holds a file quantised per token: only --variants float,fp16 are built from it (the others "
            "start from the export's per-call file, an s8 or u8 one)"
        )
    for variant in variants:
        target = out / variant
        target.mkdir(parents=True, exist_ok=True)
        model = onnx.load(str(source / "model.onnx"))
        if variant in ("float", "fp16"):
            model = float_weights(model, half=variant == "fp16")
        elif variant in ("u8", "s7"):
            model = integer_weights(model, variant)
        elif variant == "row7":
            model = row_quantised(model)
        onnx.checker.check_model(model)
        onnx.save(model, str(target / "model.onnx"))
        shutil.copyfile(source / "tokenizer.json", target / "tokenizer.json")
        config = json.loads((source / "stance_config.json").read_text())
        config["weights"] = FORMATS[variant]
        config["size_bytes"] = (target / "model.onnx").stat().st_size
        config.pop("self_check", None)  # the canaries' readings belong to a float reference: `canaries` adds them
        (target / "stance_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        risks = saturation_risks(target / "model.onnx")
        size = (target / "model.onnx").stat().st_size
        print(json.dumps({"variant": variant, "bytes": size, "saturation_risks": len(risks)}), flush=True)


def load_rows(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.open() if line.strip()]
    if rows and "true_claim" in rows[0]:  # the contrast set: a true and a false claim on one passage
        rows = [
            {"claim": row[key], "title": row["title"], "evidence": row["evidence"], "label": label}
            for row in rows
            for key, label in (("true_claim", "SUPPORTS"), ("false_claim", "REFUTES"))
        ]
    return rows


def clean(pairs: Path, out: Path) -> None:
    """The pairs with FEVER's escapes undone (as the runtime's corpus does), for a reader that should import
    no more than the stance model (an emulated ARM64 Python has only onnxruntime, tokenizers and pydantic)."""
    from mermaid_verifier.tools.corpus_index import clean_fever_text

    with out.open("w") as handle:
        for row in load_rows(pairs):
            row = row | {"claim": clean_fever_text(row["claim"]), "evidence": clean_fever_text(row["evidence"])}
            handle.write(json.dumps(row) + "\n")


def read(model_dir: Path, pairs: Path, out: Path, limit: int | None, emulated: str | None = None) -> None:
    """Read cleaned pairs (:func:`clean`) with the model in ``model_dir`` as the runtime reads them."""
    rows = load_rows(pairs)[:limit]
    model = StanceModel(model_dir, self_check=False)
    model.load()
    started = time.perf_counter()
    probabilities = []
    for row in rows:
        (p,) = model.probabilities(row["claim"], [(row.get("title") or "", row["evidence"])])
        probabilities.append([round(p[s], 6) for s in STANCES])
    seconds = time.perf_counter() - started
    out.write_text(
        json.dumps(
            {
                "model": str(model_dir),
                "pairs": str(pairs),
                "cpu": f"emulated {emulated} (host {cpu_summary()})" if emulated else cpu_summary(),
                "python": platform.python_version(),
                "seconds_per_pair": round(seconds / max(len(rows), 1), 5),
                "labels": [row["label"] for row in rows],
                "probabilities": probabilities,
            }
        )
        + "\n"
    )
    print(f"{out}: {len(rows)} pairs, {seconds / max(len(rows), 1) * 1000:.1f} ms a pair ({cpu_summary()})")


def write_canaries(float_dir: Path, model_dirs: list[Path]) -> None:
    """Store the canary pairs (``training/canaries.py``) with the float model's probabilities in each model
    directory's ``stance_config.json``, and read them there as the runtime's self-check does."""
    from training.canaries import self_check_spec

    reader = StanceModel(float_dir, self_check=False)

    def float_probabilities(pairs: list[dict[str, str]]) -> list[dict[str, float]]:
        return [reader.probabilities(p["claim"], [(p["title"], p["evidence"])])[0] for p in pairs]

    spec = self_check_spec(float_probabilities, "the float model: this file's weights dequantised, float MatMuls")
    for model_dir in model_dirs:
        config_path = model_dir / "stance_config.json"
        config = json.loads(config_path.read_text()) | {"self_check": spec}
        config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        model = StanceModel(model_dir)
        try:
            model.load()
        except ModelSelfCheckError as error:
            print(f"{model_dir}: {error}")
            continue
        assert model.checked is not None
        print(f"{model_dir}: self-check passed, largest difference {model.checked.largest_difference:.4f}")


def compare(paths: list[Path]) -> None:
    from mermaid_verifier.evaluation.metrics import macro_f1

    runs = [json.loads(p.read_text()) for p in paths]
    reference = np.array(runs[0]["probabilities"])
    for path, run in zip(paths, runs):
        probs = np.array(run["probabilities"])
        if probs.shape != reference.shape:
            raise SystemExit(f"{path}: {probs.shape[0]} pairs, the reference has {reference.shape[0]}")
        predicted = [LABELS[i] for i in probs.argmax(-1)]
        print(
            json.dumps(
                {
                    "file": str(path),
                    "cpu": run["cpu"],
                    "agreement_with_first": round(float((probs.argmax(-1) == reference.argmax(-1)).mean()), 4),
                    "max_abs_difference": round(float(np.abs(probs - reference).max()), 4),
                    "macro_f1": round(macro_f1(run["labels"], predicted), 4),
                    "ms_per_pair": round(run["seconds_per_pair"] * 1000, 1),
                }
            )
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument(
        "--from",
        dest="source",
        type=Path,
        required=True,
        help="a model directory: an s8 or u8 file for every variant, the shipped per-token file for float and fp16",
    )
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--variants", default=",".join(VARIANTS))
    k = sub.add_parser("clean")
    k.add_argument("--pairs", type=Path, required=True)
    k.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("read")
    r.add_argument("--model", type=Path, required=True)
    r.add_argument("--pairs", type=Path, required=True, help="pairs jsonl (claim, title, evidence, label) or contrast")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--limit", type=int, default=None)
    r.add_argument("--emulated", default=None, help="the emulated CPU this runs under (qemu reports the host's flags)")
    w = sub.add_parser("canaries")
    w.add_argument("--float", dest="float_dir", type=Path, required=True, help="the float variant's directory")
    w.add_argument("models", type=Path, nargs="+", help="model directories whose stance_config.json gets them")
    c = sub.add_parser("compare")
    c.add_argument("files", type=Path, nargs="+", help="read outputs; the first is the reference")
    args = parser.parse_args()
    if args.command == "build":
        build(args.source, args.out, args.variants.split(","))
    elif args.command == "clean":
        clean(args.pairs, args.out)
    elif args.command == "canaries":
        write_canaries(args.float_dir, args.models)
    elif args.command == "read":
        read(args.model, args.pairs, args.out, args.limit, args.emulated)
    else:
        compare(args.files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
