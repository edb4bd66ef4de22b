"""The torch weights of a shipped stance model, read back from its ONNX file.

A run directory (and its float checkpoint) does not outlive the machine it ran on; the shipped
``data/stance_model/model.onnx`` does, in git. This module turns that file back into the weights of the
torch model it was exported from, so a later run can go on training the shipped model instead of
starting again from the base encoder (``train_stance.py --init-from data/stance_model``).

How: the architecture (``--base`` and ``--keep-layers``) is built in torch, every parameter is filled
with distinct random values, and the model is exported to float ONNX exactly as ``train_stance.py``
exports it. Each parameter is then found among that export's initializers by value (as is, or
transposed: the exporter stores a Linear's weight transposed for MatMul), which gives the ONNX name of
every parameter. The shipped file holds the same names: float initializers as they are, and the weights
int8 quantisation rewrote as ``NAME_quantized`` with ``NAME_scale`` and ``NAME_zero_point`` (per
channel; ``NAME_Transposed_…`` for a Gemm's weight, which the quantiser turns into a MatMul), which are
dequantised. A parameter that cannot be found, or a shape that does not match,
stops with an error: a wrong architecture never loads half its weights.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import torch

QUANTIZED_PARTS = ("quantized", "scale", "zero_point")  # what int8 quantisation stores for a weight NAME: NAME_<part>


class WeightRecoveryError(RuntimeError):
    """The ONNX file does not hold the weights of the given architecture."""


def initializers(path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    return {init.name: numpy_helper.to_array(init) for init in graph.initializer}


def _dequantize(values: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """``(values - zero_point) * scale``, with a per-channel scale broadcast along the axis it matches."""
    values = values.astype(np.float32)
    scale = np.asarray(scale, dtype=np.float32)
    zero_point = np.asarray(zero_point, dtype=np.float32)
    if scale.ndim == 0 or scale.size == 1:
        return (values - zero_point.reshape(())) * scale.reshape(())
    axes = [axis for axis, size in enumerate(values.shape) if size == scale.size]
    if not axes:
        raise WeightRecoveryError(f"a per-channel scale of {scale.size} fits no axis of a {values.shape} weight")
    shape = [1] * values.ndim
    shape[axes[-1]] = scale.size  # onnxruntime quantises a MatMul weight [in, out] per output channel
    return (values - zero_point.reshape(shape)) * scale.reshape(shape)


def parameter_names(model, export) -> dict[str, tuple[str, bool]]:
    """For every parameter of ``model``: (its initializer's name in the ONNX export, stored transposed?).

    ``export(model, path)`` writes the float ONNX file the way the shipped one was written."""
    generator = torch.Generator().manual_seed(0)
    probes = {name: torch.randn(p.shape, generator=generator) for name, p in model.named_parameters()}
    saved = {name: p.detach().clone() for name, p in model.named_parameters()}
    try:
        with torch.no_grad():
            for name, p in model.named_parameters():  # distinct values: each parameter is found by value alone
                p.copy_(probes[name])
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "probe.onnx"
            export(model, path)
            exported = initializers(path)
    finally:
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(saved[name])
    by_key: dict[tuple, str] = {}
    for name, array in exported.items():
        if array.dtype == np.float32 and array.size > 1:
            by_key[(array.shape, array.tobytes())] = name
    found: dict[str, tuple[str, bool]] = {}
    missing = []
    for name, probe_tensor in probes.items():
        probe = probe_tensor.numpy()
        direct = by_key.get((probe.shape, probe.tobytes()))
        transposed = by_key.get((probe.T.shape, np.ascontiguousarray(probe.T).tobytes())) if probe.ndim == 2 else None
        if direct is not None:
            found[name] = (direct, False)
        elif transposed is not None:
            found[name] = (transposed, True)
        else:
            missing.append(name)
    if missing:
        raise WeightRecoveryError(f"{len(missing)} parameters are not initializers of the export: {missing[:5]}")
    return found


def quantised_names(initializers: dict[str, np.ndarray], names: dict[str, tuple[str, bool]]) -> set[str]:
    """The parameters (torch names, with ``parameter_names``' mapping) whose weights the int8 file's
    ``initializers`` store quantised (``NAME_quantized``, or ``NAME_Transposed_quantized`` for a Gemm's)."""
    return {
        name
        for name, (onnx_name, _) in names.items()
        if f"{onnx_name}_quantized" in initializers or f"{onnx_name}_Transposed_quantized" in initializers
    }


def load_onnx_weights(
    model, onnx_path: Path, export=None, names: dict[str, tuple[str, bool]] | None = None
) -> dict[str, int]:
    """Load the weights of the ONNX file at ``onnx_path`` into ``model`` (same architecture).

    ``names`` (from ``parameter_names``) spares the export: another torch or transformers names the export's
    initializers otherwise, so a mapping made where the file was checked travels with a job instead.
    Returns how many parameters were read as float and how many were dequantised from int8."""
    if names is None:
        if export is None:
            raise WeightRecoveryError("neither an export nor the parameters' ONNX names were given")
        names = parameter_names(model, export)
    missing = [name for name, _ in model.named_parameters() if name not in names]
    if missing:
        raise WeightRecoveryError(f"{len(missing)} parameters have no ONNX name in the mapping given: {missing[:5]}")
    shipped = initializers(Path(onnx_path))
    state = {}
    counts = {"float": 0, "dequantised": 0}
    for name, p in model.named_parameters():
        onnx_name, transposed = names[name]
        if onnx_name in shipped:
            array = shipped[onnx_name].astype(np.float32)
            counts["float"] += 1
        elif f"{onnx_name}_quantized" in shipped:
            array = _dequantize(*(shipped[f"{onnx_name}_{part}"] for part in QUANTIZED_PARTS))
            counts["dequantised"] += 1
        elif f"{onnx_name}_Transposed_quantized" in shipped:  # a Gemm (transB) weight the quantiser turned
            array = _dequantize(*(shipped[f"{onnx_name}_Transposed_{part}"] for part in QUANTIZED_PARTS)).T
            counts["dequantised"] += 1
        else:
            raise WeightRecoveryError(
                f"{onnx_path} holds no weight {onnx_name} (the parameter {name}); another architecture, or"
                " weights never trained (the exporter stores equal weights, such as fresh zero biases, once)"
            )
        if transposed:
            array = array.T
        if tuple(array.shape) != tuple(p.shape):
            raise WeightRecoveryError(f"{name}: {tuple(array.shape)} in {onnx_path}, {tuple(p.shape)} in the model")
        state[name] = torch.from_numpy(np.ascontiguousarray(array))
    model.load_state_dict(state, strict=False)
    return counts
