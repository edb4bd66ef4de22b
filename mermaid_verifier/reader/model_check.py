"""Whether a quantised model file computes the same on every CPU, and what this machine's CPU is.

onnxruntime runs a dynamically quantised MatMul (``DynamicQuantizeLinear`` → ``MatMulInteger``) with u8
activations and the file's stored weights, on kernels chosen by the CPU:

* x86-64 with AVX-512 VNNI or AVX-VNNI (``vpdpbusd``) and AMX add u8 × s8 products in 32 bits: exact;
* x86-64 with AVX2 only multiplies u8 × s8 with ``vpmaddubsw``, which adds two neighbouring products in a
  *saturating* 16-bit sum: 255 · (|w₁| + |w₂|) must stay within 32,767, so a weight beyond ±64 can be
  clipped, silently (onnxruntime's ``reduce_range`` option exists for this);
* u8 × u8 runs on 16-bit multiply-adds (``vpmaddwd``) on x86 and on dot-product instructions on ARM64:
  exact everywhere.

The shipped file quantises its activations per token instead (``training/portable_formats.py``, ``row7``):
u8 within [0, :data:`ROW_LEVELS`] (127), so 127 · (|w₁| + |w₂|) ≤ 32,512 stays within 16 bits with any s8
weights, and it runs on the u8 × s8 kernels.

A file is *portable* when none of its integer matrix products can saturate: its weights are u8, or s8
within ±64, or s8 against activations a ``Clip`` bounds to [0, 127] before they are cast to u8. :func:`saturation_risks` lists the products that are not (it reads the file's protobuf itself,
so it runs as installed, without the ``onnx`` package); the export (``training/train_stance.py``) refuses to
write such a file, and the runtime's canary self-check (:mod:`mermaid_verifier.reader.stance`) catches a wrong
reading on the machine it runs on whatever the cause.
"""

from __future__ import annotations

import hashlib
import math
import platform
import struct
from dataclasses import dataclass, field
from pathlib import Path

from mermaid_verifier.errors import ModelError

SAFE_S8_WEIGHT = 64  # 255 · (64 + 64) = 32,640 ≤ 32,767: two neighbouring products never saturate int16
ROW_LEVELS = 127  # u8 activations within [0, 127]: 127 · (128 + 128) = 32,512 ≤ 32,767 with any s8 weights

# The CPU flags that decide which integer kernels onnxruntime runs (Linux /proc/cpuinfo names).
KERNEL_FLAGS = (
    "avx2",
    "avx512f",
    "avx512bw",
    "avx512_vnni",
    "avx_vnni",
    "avx512_bf16",
    "amx_int8",
    "amx_bf16",
    "asimd",
    "asimddp",
    "i8mm",
)

# Integer products and, for each, the input positions of (activation, weight).
_INTEGER_PRODUCTS = {
    "MatMulInteger": (0, 1),
    "ConvInteger": (0, 1),
    "QLinearMatMul": (0, 3),
    "QLinearConv": (0, 3),
    "MatMulIntegerToFloat": (0, 1),
    "DynamicQuantizeMatMul": (0, 1),
}
# Products whose u8 input is all the kernel multiplies (a convolution also pads with the input's zero point).
_BOUNDABLE = {"MatMulInteger", "MatMulIntegerToFloat"}


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> list[str]:
    """The :data:`KERNEL_FLAGS` this CPU reports (Linux), in that order; empty where the OS does not say."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return []
    words: set[str] = set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in {"flags", "Features"}:
            words.update(value.split())
    return [flag for flag in KERNEL_FLAGS if flag in words]


def cpu_summary(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """One line for reports and errors: the architecture and the kernel flags, e.g. ``x86_64: avx2``."""
    flags = cpu_flags(cpuinfo)
    return f"{platform.machine() or 'unknown architecture'}: {' '.join(flags) if flags else 'no flags reported'}"


def integer_kernel(flags: list[str]) -> str:
    """Which u8 × s8 kernel family onnxruntime picks on an x86-64 CPU with ``flags`` (for reports)."""
    if "amx_int8" in flags:
        return "AMX (exact)"
    if "avx512_vnni" in flags or "avx_vnni" in flags:
        return "VNNI (exact)"
    if "avx2" in flags:
        return "AVX2 without VNNI (u8 × s8 saturates beyond ±64)"
    if "asimd" in flags:
        return "ARM64 NEON (exact)"
    return "unknown"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def saturation_risks(model_path: Path) -> list[str]:
    """The integer matrix products of an ONNX file whose result can depend on the CPU, one line each (empty:
    the file is portable). Weights must be constant initializers, u8, or s8 within ±:data:`SAFE_S8_WEIGHT` —
    or any s8 where the activations are bounded: cast to u8 from a ``Clip`` to constant bounds within
    [0, :data:`ROW_LEVELS`]. :class:`~mermaid_verifier.errors.ModelError` when the file cannot be read as an
    ONNX model."""
    import numpy as np

    nodes, initializers = _onnx_graph(Path(model_path))
    producers = {output: node for node in nodes for output in node.outputs}
    risks = []
    for node in nodes:
        if node.op_type not in _INTEGER_PRODUCTS:
            continue
        _, weight_at = _INTEGER_PRODUCTS[node.op_type]
        weight_name = node.inputs[weight_at] if len(node.inputs) > weight_at else ""
        if weight_name not in initializers:
            risks.append(f"{node.name or node.op_type}: its weights are computed at run time and cannot be checked")
            continue
        weights = initializers[weight_name]
        if weights.data_type == _UINT8:
            continue
        if weights.data_type != _INT8:
            kind = _TENSOR_TYPES.get(weights.data_type, f"ONNX type {weights.data_type}")
            risks.append(f"{node.name or node.op_type}: weights of type {kind} are not u8 or s8")
            continue
        activation_at, _ = _INTEGER_PRODUCTS[node.op_type]
        if node.op_type in _BOUNDABLE and _bounded_activations(node.inputs[activation_at], producers, initializers):
            continue
        values = weights.values(Path(model_path).parent)
        largest = int(np.abs(values.astype(np.int16)).max()) if values.size else 0
        if largest > SAFE_S8_WEIGHT:
            risks.append(
                f"{node.name or node.op_type}: s8 weights up to ±{largest} (beyond ±{SAFE_S8_WEIGHT}, the AVX2 kernel "
                "without VNNI can saturate)"
            )
    return risks


def _bounded_activations(name: str, producers: dict[str, _Node], initializers: dict[str, _Tensor]) -> bool:
    """Whether the u8 values named ``name`` are provably within [0, :data:`ROW_LEVELS`]: a ``Cast`` to u8 of a
    ``Clip`` whose bounds are constant, finite floats with 0 ≤ low ≤ high ≤ 127 (a Clip whose low bound passes
    its high one gives the high one, and a negative float cast to u8 can wrap to 255)."""
    cast = producers.get(name)
    if cast is None or cast.op_type != "Cast" or cast.int_attributes.get("to") != _UINT8:
        return False
    clip = producers.get(cast.inputs[0]) if cast.inputs else None
    if clip is None or clip.op_type != "Clip" or len(clip.inputs) != 3:
        return False
    bounds = [initializers.get(bound) for bound in clip.inputs[1:]]
    if any(bound is None or bound.data_type != _FLOAT for bound in bounds):
        return False
    lows, highs = (bound.floats() for bound in bounds if bound is not None)
    if len(lows) != 1 or len(highs) != 1 or not all(math.isfinite(v) for v in (*lows, *highs)):
        return False
    return 0.0 <= lows[0] <= highs[0] <= ROW_LEVELS


# --- the few fields of an ONNX file (protobuf, onnx/onnx.proto) the check reads, without the onnx package
_FLOAT, _UINT8, _INT8 = 1, 2, 3
_TENSOR_TYPES = {
    1: "float32",
    2: "uint8",
    3: "int8",
    4: "uint16",
    5: "int16",
    6: "int32",
    7: "int64",
    8: "string",
    9: "bool",
    10: "float16",
    11: "float64",
    12: "uint32",
    13: "uint64",
    16: "bfloat16",
}


@dataclass(frozen=True)
class _Node:
    op_type: str
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...] = ()
    int_attributes: dict[str, int] = field(default_factory=dict)


@dataclass
class _Tensor:
    data_type: int = 0
    raw: bytes | memoryview = b""
    int32_data: list[int] = field(default_factory=list)
    float_data: list[float] = field(default_factory=list)
    external: dict[str, str] = field(default_factory=dict)
    location: int = 0  # EXTERNAL (1): the values are in the file ``external`` names

    def floats(self) -> list[float]:
        """A float32 tensor's values, when they are stored in the file itself."""
        if len(self.raw) % 4:
            return []  # not a float32 tensor's bytes: no bound can be read from it
        if self.raw:
            return [value for (value,) in struct.iter_unpack("<f", self.raw)]
        return list(self.float_data)

    def values(self, model_dir: Path):
        """The tensor's values as a flat u8 or s8 array (only those two types are read)."""
        import numpy as np

        dtype = np.uint8 if self.data_type == _UINT8 else np.int8
        if self.location == 1:
            location = model_dir / self.external.get("location", "")
            offset = int(self.external.get("offset", 0))
            length = int(self.external["length"]) if "length" in self.external else -1
            try:
                with location.open("rb") as handle:
                    handle.seek(offset)
                    return np.frombuffer(handle.read(length), dtype=dtype)
            except OSError as error:
                raise ModelError(f"cannot read the weights {location} names: {error.strerror or error}") from None
        if self.raw:
            return np.frombuffer(self.raw, dtype=dtype)
        return np.array([v & 0xFF for v in self.int32_data], dtype=np.uint8).view(dtype)


def _onnx_graph(path: Path) -> tuple[list[_Node], dict[str, _Tensor]]:
    """The main graph's nodes and its initializers by name."""
    try:
        data = memoryview(path.read_bytes())
    except OSError as error:
        raise ModelError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        graphs = [_bytes(value) for number, value in _fields(data) if number == 7]  # ModelProto.graph
        if not graphs:
            raise ValueError("no graph")
        nodes: list[_Node] = []
        initializers: dict[str, _Tensor] = {}
        for number, value in _fields(graphs[-1]):
            if number == 1:  # GraphProto.node
                nodes.append(_node(_bytes(value)))
            elif number == 5:  # GraphProto.initializer
                name, tensor = _tensor(_bytes(value))
                initializers[name] = tensor
    except (ValueError, IndexError, UnicodeDecodeError, OverflowError, struct.error) as error:
        raise ModelError(f"{path} is not an ONNX model file ({error})") from None
    return nodes, initializers


def _node(data: memoryview) -> _Node:
    op_type, name, inputs, outputs, attributes = "", "", [], [], {}
    for number, value in _fields(data):
        if number == 1:
            inputs.append(_text(value))
        elif number == 2:
            outputs.append(_text(value))
        elif number == 3:
            name = _text(value)
        elif number == 4:
            op_type = _text(value)
        elif number == 5:  # AttributeProto: name (1), i (3); only integer attributes are kept
            fields = dict(_fields(_bytes(value)))
            if 1 in fields and isinstance(fields.get(3), int):
                attributes[_text(fields[1])] = _signed(fields[3])
    return _Node(op_type, name, tuple(inputs), tuple(outputs), attributes)


def _signed(value: int) -> int:
    """A protobuf int64 read as a varint (negative numbers arrive as their 64-bit two's complement)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _tensor(data: memoryview) -> tuple[str, _Tensor]:
    name, tensor = "", _Tensor()
    for number, value in _fields(data):
        if number == 2:
            tensor.data_type = _int(value)
        elif number == 5:  # int32_data: packed, or one value per field
            tensor.int32_data.extend(_packed(value) if isinstance(value, memoryview) else [value])
        elif number == 4:  # float_data: packed fixed32, or one value per field
            raw = bytes(value) if isinstance(value, memoryview) else value.to_bytes(4, "little")
            tensor.float_data.extend(v for (v,) in struct.iter_unpack("<f", raw))
        elif number == 8:
            name = _text(value)
        elif number == 9:
            tensor.raw = _bytes(value)
        elif number == 13:  # external_data: key (1) and value (2) pairs
            entry = {key: _text(text) for key, text in _fields(_bytes(value))}
            tensor.external[entry.get(1, "")] = entry.get(2, "")
        elif number == 14:  # data_location: DEFAULT (0) or EXTERNAL (1)
            tensor.location = _int(value)
    return name, tensor


def _fields(data: memoryview):
    """``(field number, value)`` of a protobuf message: an int for varint and fixed-width fields, the bytes of a
    length-delimited one."""
    at, end = 0, len(data)
    while at < end:
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
            yield number, value
        elif wire == 2:
            length, at = _varint(data, at)
            if at + length > end:
                raise ValueError("a field runs past the end of its message")
            yield number, data[at : at + length]
            at += length
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if at + width > end:
                raise ValueError("a field runs past the end of its message")
            yield number, int.from_bytes(data[at : at + width], "little")
            at += width
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")


def _varint(data: memoryview, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
        if shift > 63:
            raise ValueError("a varint longer than 10 bytes")


def _packed(data: memoryview) -> list[int]:
    values, at = [], 0
    while at < len(data):
        value, at = _varint(data, at)
        values.append(value)
    return values


def _int(value: int | memoryview) -> int:
    if not isinstance(value, int):
        raise ValueError("a number field holds bytes")
    return value


def _bytes(value: int | memoryview) -> memoryview:
    if isinstance(value, int):
        raise ValueError("a message field holds a number")
    return value


def _text(value: int | memoryview) -> str:
    return bytes(_bytes(value)).decode("utf-8")


def installed_version(distribution: str) -> str:
    """The installed version of ``distribution`` (package metadata: nothing is imported), or "not installed"."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine_record() -> dict[str, object]:
    """What a measured figure needs beside it: the CPU kind decides which kernels (and so which numbers and
    speeds) onnxruntime gives, so every benchmark and batch run writes this with its figures."""
    import os

    flags = cpu_flags()
    return {
        "architecture": platform.machine(),
        "cpus": os.cpu_count(),
        "cpu_flags": flags,
        "integer_kernel": integer_kernel(flags),
        "python": platform.python_version(),
        "onnxruntime": installed_version("onnxruntime"),
    }


def measurement_record() -> dict[str, object]:
    """:func:`machine_record` with what a benchmark's figures also need: the platform, the load when they were
    measured, and the date."""
    import datetime
    import os

    return machine_record() | {
        "platform": platform.platform(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    }
