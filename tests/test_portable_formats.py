"""The per-token int8 form the export writes (``training/portable_formats.py``, ``row_quantised``), on a one-MatMul
model quantised as the export quantises: the integer arithmetic it stands for, its bound against saturation, a row
read the same alone and in a batch, and the float model recovered from it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="these tests build ONNX files with the onnx package (dev extra)")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from mermaid_verifier.reader.model_check import saturation_risks  # noqa: E402
from training import portable_formats  # noqa: E402

K, N = 48, 16


def exported(tmp_path: Path) -> tuple[Path, np.ndarray]:
    """A float ``x @ W`` quantised dynamically, per channel, s8 weights (as ``train_stance.quantize`` does
    before it rewrites the file); its weights span the whole s8 range. Returns the file and W."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    weights = np.random.default_rng(3).normal(0, 1, (K, N)).astype(np.float32)
    weights[0, :] = 4.0  # one large row: every channel's scale is set by it, the others use the whole range
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="product")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "sequence", K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "sequence", N])],
        [numpy_helper.from_array(weights, "w")],
    )
    float_path = tmp_path / "float.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(float_path))
    quantized = tmp_path / "dynamic.onnx"
    quantize_dynamic(str(float_path), str(quantized), weight_type=QuantType.QInt8, per_channel=True)
    return quantized, weights


def run(path: Path, x: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def inputs() -> np.ndarray:
    x = np.random.default_rng(4).normal(0, 1, (3, 5, K)).astype(np.float32)
    x[1, 2] *= 40  # one token with a far wider range than the rest
    x[2, 4] = 0.0  # a token of zeros (padding reads like this after a layer norm's bias is removed)
    return x


@pytest.fixture
def row_file(tmp_path):
    quantized, weights = exported(tmp_path)
    model = portable_formats.row_quantised(onnx.load(str(quantized)))
    onnx.checker.check_model(model)
    path = tmp_path / "row7.onnx"
    onnx.save(model, str(path))
    return path, quantized, weights


def stored(path: Path) -> dict[str, np.ndarray]:
    return {init.name: numpy_helper.to_array(init) for init in onnx.load(str(path)).graph.initializer}


def test_it_computes_the_per_token_integer_product_it_describes(row_file):
    path, _, _ = row_file
    values = stored(path)
    (signed,) = [v for v in values.values() if v.dtype == np.int8 and v.shape == (K, N)]
    (weight_scale,) = [v for name, v in values.items() if name.endswith("_scale") and v.shape == (N,)]
    assert np.abs(signed.astype(np.int16)).max() == 127  # the whole s8 range: beyond ±64
    x = inputs()
    low = np.minimum(x.min(axis=-1, keepdims=True), 0)
    high = np.maximum(x.max(axis=-1, keepdims=True), 0)
    scale = np.maximum((high - low) / np.float32(127), np.float32(1e-30))
    zero = np.clip(np.round(-(low / scale)), 0, 127)
    q = np.clip(np.round(x / scale) + zero, 0, 127)
    exact = (q.astype(np.int64) - zero.astype(np.int64)) @ signed.astype(np.int64)
    expected = exact.astype(np.float32) * (scale * weight_scale)
    np.testing.assert_allclose(run(path, x), expected, rtol=1e-6, atol=1e-6)


def test_no_product_can_saturate_and_the_per_call_file_could(row_file):
    path, quantized, _ = row_file
    assert saturation_risks(path) == []
    assert len(saturation_risks(quantized)) == 1  # the same s8 weights against activations on [0, 255]


def test_a_row_reads_the_same_alone_and_in_a_batch_beside_a_wider_one(row_file):
    path, quantized, _ = row_file
    x = inputs()
    batched = run(path, x)
    for b in range(x.shape[0]):
        alone = run(path, x[b : b + 1])
        assert np.array_equal(alone[0], batched[b])
    # quantised per call, the wide token of the second pair sets the scale of the first pair's tokens too
    assert not np.array_equal(run(quantized, x[:1])[0], run(quantized, x)[0])


def test_it_stays_close_to_the_float_product_and_gives_back_the_float_model(row_file, tmp_path):
    path, _, weights = row_file
    x = inputs()
    reference = x @ weights
    read = run(path, x)
    spread = np.abs(reference).max(axis=-1, keepdims=True)
    assert np.abs(read - reference).max(axis=None) <= 0.05 * spread.max()
    assert (np.abs(read - reference) <= 0.05 * spread).all()
    values = stored(path)
    (signed,) = [v for v in values.values() if v.dtype == np.int8 and v.shape == (K, N)]
    (weight_scale,) = [v for name, v in values.items() if name.endswith("_scale") and v.shape == (N,)]
    recovered = portable_formats.float_weights(onnx.load(str(path)))  # the s8 weights dequantised, float MatMul
    onnx.save(recovered, str(tmp_path / "recovered.onnx"))
    assert all(node.op_type != "MatMulInteger" for node in recovered.graph.node)
    dequantised = signed.astype(np.float32) * weight_scale
    np.testing.assert_allclose(run(tmp_path / "recovered.onnx", x), x @ dequantised, rtol=1e-5, atol=1e-5)
