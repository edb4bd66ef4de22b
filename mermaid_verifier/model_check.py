"""Whether a quantised model file computes the same on every CPU, and what this machine's CPU is.

onnxruntime runs a dynamically quantised MatMul (``DynamicQuantizeLinear`` → ``MatMulInteger``) with u8
activations and the file's stored weights, on kernels chosen by the CPU:

* x86-64 with AVX-512 VNNI or AVX-VNNI (``vpdpbusd``) and AMX add u8 × s8 products in 32 bits: exact;
* x86-64 with AVX2 only multiplies u8 × s8 with ``vpmaddubsw``, which adds two neighbouring products in a
  *saturating* 16-bit sum: 255 · (|w₁| + |w₂|) must stay within 32,767, so a weight beyond ±64 can be
  clipped, silently (onnxruntime's ``reduce_range`` option exists for this);
* u8 × u8 runs on 16-bit multiply-adds (``vpmaddwd``) on x86 and on dot-product instructions on ARM64:
  exact everywhere.

A file is *portable* when none of its integer matrix products can saturate: its weights are u8, or s8
within ±64. :func:`saturation_risks` lists the products that are not (it needs the ``onnx`` package, a
development and training dependency); the export (``training/train_stance.py``) refuses to write such a
file, and the runtime's canary self-check (:mod:`mermaid_verifier.stance`) catches a wrong reading on the
machine it runs on whatever the cause.
"""

from __future__ import annotations

import hashlib
import platform
from pathlib import Path

SAFE_S8_WEIGHT = 64  # 255 · (64 + 64) = 32,640 ≤ 32,767: two neighbouring products never saturate int16

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
    the file is portable). Weights must be constant initializers, u8, or s8 within ±:data:`SAFE_S8_WEIGHT`."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model_path)).graph
    initializers = {init.name: init for init in graph.initializer}
    risks = []
    for node in graph.node:
        if node.op_type not in _INTEGER_PRODUCTS:
            continue
        _, weight_at = _INTEGER_PRODUCTS[node.op_type]
        weight_name = node.input[weight_at] if len(node.input) > weight_at else ""
        if weight_name not in initializers:
            risks.append(f"{node.name or node.op_type}: its weights are computed at run time and cannot be checked")
            continue
        weights = numpy_helper.to_array(initializers[weight_name])
        if weights.dtype == np.uint8:
            continue
        if weights.dtype != np.int8:
            risks.append(f"{node.name or node.op_type}: weights of type {weights.dtype} are not u8 or s8")
            continue
        largest = int(np.abs(weights.astype(np.int16)).max()) if weights.size else 0
        if largest > SAFE_S8_WEIGHT:
            risks.append(
                f"{node.name or node.op_type}: s8 weights up to ±{largest} (beyond ±{SAFE_S8_WEIGHT}, the AVX2 kernel "
                "without VNNI can saturate)"
            )
    return risks


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
