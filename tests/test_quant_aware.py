"""Quantisation-aware fine-tuning (``training/quant_aware.py``): the student computes what the per-token int8 file
computes, its gradients pass the rounding untouched, and the weights it leaves behind export to the integers it
trained with. Needs the ``training`` extra; skipped without torch."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
onnx = pytest.importorskip("onnx", reason="the training extra (onnx) is not installed")
pytest.importorskip("onnxruntime")
from onnx import numpy_helper  # noqa: E402

from training import portable_formats  # noqa: E402
from training.quant_aware import plain, quantisation_aware, rounded_rows, rounded_weight  # noqa: E402

from .test_portable_formats import K, N, exported, inputs, run  # noqa: E402


class OneProduct(torch.nn.Module):
    def __init__(self, weights: np.ndarray):
        super().__init__()
        self.product = torch.nn.Linear(K, N, bias=False)
        self.table = torch.nn.Embedding(4, K)
        with torch.no_grad():
            self.product.weight.copy_(torch.from_numpy(weights.T.copy()))

    def forward(self, x):
        return self.product(x)


def test_the_student_computes_what_the_per_token_int8_file_computes(tmp_path):
    quantized, weights = exported(tmp_path)
    row_file = tmp_path / "row7.onnx"
    onnx.save(portable_formats.row_quantised(onnx.load(str(quantized))), str(row_file))
    model = OneProduct(weights)
    x = inputs()
    with torch.no_grad():
        as_float = model(torch.from_numpy(x)).numpy()
    counts = quantisation_aware(model, {"product.weight", "table.weight"})
    assert counts == {"linears": 1, "frozen": 1}
    assert not model.table.weight.requires_grad
    with torch.no_grad():
        as_trained = model(torch.from_numpy(x)).numpy()
    as_shipped = run(row_file, x)
    spread = np.abs(as_shipped).max()
    assert np.abs(as_trained - as_shipped).max() <= 1e-5 * spread
    assert np.abs(as_float - as_shipped).max() > 100 * np.abs(as_trained - as_shipped).max()


def test_gradients_pass_the_rounding_untouched():
    weight = torch.randn(5, 7, requires_grad=True)
    x = torch.randn(3, 7, requires_grad=True)
    upstream = torch.randn(5, 7)
    (rounded_weight(weight) * upstream).sum().backward()
    assert torch.equal(weight.grad, upstream)
    (rounded_rows(x) * 2.0).sum().backward()
    assert torch.equal(x.grad, torch.full_like(x, 2.0))


def test_rounded_weights_sit_on_the_s8_grid_of_each_channel_and_stay_there():
    weight = torch.randn(6, 40) * torch.linspace(0.01, 3.0, 6)[:, None]
    rounded = rounded_weight(weight).detach()
    scale = weight.abs().amax(dim=1, keepdim=True) / 127
    levels = rounded / scale
    assert torch.allclose(levels, levels.round(), atol=1e-4)
    assert torch.equal(levels.abs().amax(dim=1).round(), torch.full((6,), 127.0))
    assert torch.allclose(rounded_weight(rounded).detach(), rounded, rtol=0, atol=1e-7)


def test_a_small_update_moves_the_latent_weight_not_the_reading_until_it_crosses_a_step(tmp_path):
    _, weights = exported(tmp_path)
    model = OneProduct(weights)
    quantisation_aware(model, {"product.weight"})
    latent = model.product.parametrizations.weight.original
    with torch.no_grad():  # as a student starts: from the shipped file's dequantised weights, on the grid
        latent.copy_(rounded_weight(latent))
    x = torch.from_numpy(inputs())
    before = model(x).detach()
    scale = latent.detach().abs().amax(dim=1, keepdim=True) / 127
    with torch.no_grad():
        latent[:, 1:] += 0.2 * scale  # a fifth of a step: the rounding takes every weight back (none sits at .5)
    assert torch.equal(model(x).detach(), before)
    with torch.no_grad():
        latent[:, 1:] += 0.6 * scale  # 0.8 of a step in all: most weights now round to the next level
    assert not torch.equal(model(x).detach(), before)


def test_the_weights_left_behind_export_to_the_integers_trained_with(tmp_path):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    _, weights = exported(tmp_path)
    model = OneProduct(weights)
    quantisation_aware(model, {"product.weight"})
    with torch.no_grad():
        model.product.parametrizations.weight.original.add_(torch.randn(N, K) * 0.01)
        trained_levels = rounded_weight(model.product.parametrizations.weight.original)
        trained_levels = trained_levels / (trained_levels.abs().amax(dim=1, keepdim=True) / 127)
    plain(model)
    assert not hasattr(model.product, "parametrizations")
    left = model.product.weight.detach().numpy().T.copy()
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["b", K])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["b", N])],
        [numpy_helper.from_array(left, "w")],
    )
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]), str(tmp_path / "f.onnx"))
    quantize_dynamic(str(tmp_path / "f.onnx"), str(tmp_path / "q.onnx"), weight_type=QuantType.QInt8, per_channel=True)
    stored = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(tmp_path / "q.onnx")).graph.initializer}
    (exported_levels,) = [v for name, v in stored.items() if name.endswith("_quantized")]
    assert np.array_equal(exported_levels.astype(np.int64).T, trained_levels.round().numpy().astype(np.int64))
