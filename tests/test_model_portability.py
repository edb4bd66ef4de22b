"""The shipped stance model computes the same on every CPU, and refuses to answer where it would not.

* Structure: no integer product of the shipped file can saturate onnxruntime's AVX2 kernel (u8 weights, s8
  within ±64, or any s8 against u8 activations bounded to [0, 127]), and the check itself tells a saturating
  file from a safe one.
* Canaries: the shipped file reads its canary pairs like the float model it was exported from, on this
  machine; a file that does not (or has no canaries) is refused with one line naming the CPU and runtime.
* Emulated AVX2 (``qemu-x86_64 -cpu Haswell``: AVX2 without VNNI, whatever this machine is): the shipped
  file passes there, and the same file with its activations on the whole u8 range [0, 255] — products such as
  those of the file that read every pair as "supports" on such CPUs — fails there. On a machine that is such a CPU the check runs natively; elsewhere it
  is skipped where qemu-user is not installed.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mermaid_verifier.errors import ModelError, ModelSelfCheckError
from mermaid_verifier.reader.model_check import SAFE_S8_WEIGHT, cpu_flags, integer_kernel, saturation_risks
from mermaid_verifier.reader.stance import StanceModel, bundled_model_dir

from .conftest import CLI, stance_model_copy, swapped_canaries

onnx = pytest.importorskip("onnx", reason="these tests build and edit ONNX files with the onnx package (dev extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

SHIPPED = bundled_model_dir()


def integer_matmul(path: Path, weights: np.ndarray, weight_zero_point: np.ndarray) -> Path:
    """A one-node graph: float input quantised to u8, times ``weights`` (an initializer), as the exporter writes."""
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, weights.shape[0]])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1, weights.shape[1]])],
        [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(weight_zero_point, "wz")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_the_shipped_file_has_no_product_that_can_saturate():
    assert saturation_risks(SHIPPED / "model.onnx") == []
    config = json.loads((SHIPPED / "stance_config.json").read_text())
    assert config["weights"].startswith("s8 weights per channel, u8 activations within [0, 127]")


def test_the_structural_check_tells_a_saturating_file_from_a_safe_one(tmp_path):
    rng = np.random.default_rng(0)
    full = rng.integers(-127, 128, size=(8, 4)).astype(np.int8)
    full[0, 0] = 127
    zero = np.zeros(4, np.int8)
    (risk,) = saturation_risks(integer_matmul(tmp_path / "s8.onnx", full, zero))
    assert "s8 weights up to ±127" in risk
    halved = np.clip(full // 2, -SAFE_S8_WEIGHT, SAFE_S8_WEIGHT).astype(np.int8)
    assert saturation_risks(integer_matmul(tmp_path / "s7.onnx", halved, zero)) == []
    shifted = (full.astype(np.int16) + 128).astype(np.uint8)
    assert saturation_risks(integer_matmul(tmp_path / "u8.onnx", shifted, np.full(4, 128, np.uint8))) == []
    just_over = halved.copy()
    just_over[3, 2] = -SAFE_S8_WEIGHT - 1
    assert len(saturation_risks(integer_matmul(tmp_path / "over.onnx", just_over, zero))) == 1


def bounded_matmul(
    path: Path, weights: np.ndarray, high: float, to: int = TensorProto.UINT8, low: float = 0.0, raw: bool = True
) -> Path:
    """A one-node product whose activations are clipped to [``low``, ``high``] and cast (to u8 by default) first;
    the bounds stored as raw bytes, or in the tensor's float fields (``raw=False``)."""
    nodes = [
        helper.make_node("Clip", ["x", "low", "high"], ["xc"]),
        helper.make_node("Cast", ["xc"], ["xq"], to=to),
        helper.make_node("MatMulInteger", ["xq", "w"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, weights.shape[0]])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1, weights.shape[1]])],
        [
            numpy_helper.from_array(weights, "w"),
            *(
                numpy_helper.from_array(np.array(value, np.float32), name)
                if raw
                else helper.make_tensor(name, TensorProto.FLOAT, [], [value])
                for name, value in (("low", low), ("high", high))
            ),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_full_range_s8_weights_are_safe_only_against_activations_bounded_to_127(tmp_path):
    """127 · (128 + 128) = 32,512 fits int16, so u8 activations within [0, 127] may meet any s8 weights; a bound
    of 128 or more, activations cast to s8, or a bound that is not a constant leaves the products at risk."""
    full = np.full((8, 4), -128, np.int8)
    assert saturation_risks(bounded_matmul(tmp_path / "row.onnx", full, 127.0)) == []
    assert len(saturation_risks(bounded_matmul(tmp_path / "wide.onnx", full, 128.0))) == 1
    assert len(saturation_risks(bounded_matmul(tmp_path / "signed.onnx", full, 127.0, TensorProto.INT8))) == 1
    # a negative low bound (cast to u8 it can wrap to 255), bounds the wrong way round (Clip gives the high one)
    for name, low, high in (("negative", -1.0, 127.0), ("crossed", 100.0, 50.0), ("minus_inf", 0.0, -np.inf)):
        assert len(saturation_risks(bounded_matmul(tmp_path / f"{name}.onnx", full, high, low=low))) == 1, name
    unbounded = onnx.load(str(bounded_matmul(tmp_path / "input.onnx", full, 127.0)))
    unbounded.graph.initializer.pop()  # "high" is now a graph input, known only when the model runs
    unbounded.graph.input.append(helper.make_tensor_value_info("high", TensorProto.FLOAT, []))
    onnx.save(unbounded, str(tmp_path / "input.onnx"))
    assert len(saturation_risks(tmp_path / "input.onnx")) == 1


def test_the_structural_check_reads_the_file_without_the_onnx_package(tmp_path, monkeypatch):
    """The check runs as installed (the onnx package is a development dependency): values stored raw, as int32
    fields, or in a file beside the model are read alike, and a file that is no ONNX model is a ModelError."""
    full = np.array([[-100, 3], [5, -7]], np.int8)
    raw = integer_matmul(tmp_path / "raw.onnx", full, np.zeros(2, np.int8))
    as_int32 = onnx.load(str(raw))
    as_int32.graph.initializer[0].CopyFrom(helper.make_tensor("w", TensorProto.INT8, [2, 2], full.flatten().tolist()))
    assert not as_int32.graph.initializer[0].HasField("raw_data")
    onnx.save(as_int32, str(tmp_path / "int32.onnx"))
    s8_file = wide_activation_twin(SHIPPED / "model.onnx", tmp_path / "s8.onnx")
    model = onnx.load(str(s8_file))  # what the onnx package reads there: the products beyond ±64, by node
    weights = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    beyond = [
        node.name
        for node in model.graph.node
        if node.op_type == "MatMulInteger" and np.abs(weights[node.input[1]].astype(np.int16)).max() > SAFE_S8_WEIGHT
    ]
    (tmp_path / "external").mkdir()
    onnx.save(
        model,
        str(tmp_path / "external" / "model.onnx"),
        save_as_external_data=True,
        location="weights.bin",
        size_threshold=0,
    )
    (tmp_path / "not.onnx").write_bytes(b"%PDF-1.4 not a model at all" * 10)
    full_range = np.full((8, 4), -128, np.int8)
    bounded = bounded_matmul(tmp_path / "bounded.onnx", full_range, 127.0, raw=False)
    unbounded = bounded_matmul(tmp_path / "unbounded.onnx", full_range, 255.0, raw=False)
    assert not onnx.load(str(bounded)).graph.initializer[1].HasField("raw_data")

    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    for path in (raw, tmp_path / "int32.onnx"):
        (risk,) = saturation_risks(path)
        assert "s8 weights up to ±100" in risk
    assert saturation_risks(SHIPPED / "model.onnx") == []
    assert beyond and [risk.split(":")[0] for risk in saturation_risks(s8_file)] == beyond
    assert saturation_risks(tmp_path / "external" / "model.onnx") == saturation_risks(s8_file)
    with pytest.raises(ModelError, match="not an ONNX model file"):
        saturation_risks(tmp_path / "not.onnx")
    assert saturation_risks(bounded) == [] and len(saturation_risks(unbounded)) == 1


def test_the_shipped_file_reads_its_canaries_like_the_float_model_on_this_machine():
    model = StanceModel()
    model.load()
    check = model.checked
    assert check is not None and check.passed
    assert len(check.canaries) == 8
    assert check.largest_difference <= check.tolerance
    labels = [max(c.read, key=c.read.__getitem__) for c in check.canaries]
    assert labels == ["supports"] * 3 + ["refutes"] * 3 + ["neutral"] * 2


def model_copy(tmp_path: Path, edit_config=None, model_file: Path | None = None) -> Path:
    return stance_model_copy(tmp_path / "model", edit_config, model_file)


def test_a_pair_reads_the_same_alone_as_in_a_batch_beside_longer_pairs():
    """The shipped file quantises each token's activations on their own, so neither the other pairs of a batch
    nor the padding they bring move a reading (a file quantised per call moved one by 0.027 here)."""
    claim = "The Eiffel Tower is in Paris."
    evidence = [
        ("Eiffel Tower", "The tower is in Paris."),
        ("Eiffel Tower", "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."),
        (
            "Paris",
            "Paris is the capital and most populous city of France, with an estimated population of two "
            "million residents in an area of more than 105 square kilometres, and the centre of the Île-de-France.",
        ),
        ("Lyon", "Lyon is the third-largest city of France."),
    ]
    alone = StanceModel(batch_size=1).probabilities(claim, evidence)
    together = StanceModel(batch_size=len(evidence)).probabilities(claim, evidence)
    for one, batched in zip(alone, together, strict=True):
        assert max(abs(one[stance] - batched[stance]) for stance in one) <= 1e-5


def test_a_model_that_misreads_its_canaries_is_refused_with_one_line_naming_the_machine(tmp_path):
    model = StanceModel(model_copy(tmp_path, swapped_canaries))
    with pytest.raises(ModelSelfCheckError) as caught:
        model.load()
    message = str(caught.value)
    assert "\n" not in message
    assert "failed its self-check on this machine" in message
    assert platform.machine() in message and "onnxruntime" in message
    assert "mermaid-verifier doctor" in message
    with pytest.raises(ModelSelfCheckError):  # and it stays refused: no reading slips through afterwards
        model.probabilities("The Eiffel Tower is in Paris.", [("Eiffel Tower", "It is in Paris.")])


def test_a_model_without_canaries_is_refused(tmp_path):
    model = StanceModel(model_copy(tmp_path, lambda c: {k: v for k, v in c.items() if k != "self_check"}))
    with pytest.raises(ModelSelfCheckError, match="has no canary pairs"):
        model.load()


def test_verify_refuses_with_one_line_when_the_model_fails_its_self_check(tmp_path):
    env = os.environ | {"MERMAID_STANCE_MODEL": str(model_copy(tmp_path, swapped_canaries)), "MERMAID_SOURCES": "local"}
    env |= {
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
        "MERMAID_CORPUS": str(Path(__file__).parent / "fixtures" / "wiki_mini.jsonl"),
    }
    done = subprocess.run(
        [*CLI, "verify", "--no-memory", "The Eiffel Tower is in Berlin."],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "failed its self-check" in line


def test_doctor_reports_the_machine_the_file_and_the_canaries(tmp_path):
    done = subprocess.run([*CLI, "doctor", "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["machine"] == platform.machine()
    assert report["cpu_flags"] == cpu_flags()
    assert report["integer_kernel"] == integer_kernel(cpu_flags())
    assert len(report["model_sha256"]) == 64
    assert report["saturation_risks"] == []
    assert report["self_check"]["passed"] is True and report["problem"] is None
    assert report["versions"]["onnxruntime"] != "not installed"

    broken = subprocess.run(
        [*CLI, "doctor", "--model-dir", str(model_copy(tmp_path, swapped_canaries))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert broken.returncode == 1
    assert "self-check  FAILED" in broken.stdout
    assert "problem" in broken.stdout and "failed its self-check" in broken.stdout


# ----------------------------------------------------------------------------- emulated AVX2 without VNNI

QEMU = shutil.which("qemu-x86_64")
AVX2_HOST = integer_kernel(cpu_flags()).startswith("AVX2 without VNNI")  # this machine is the kind emulated
needs_qemu = pytest.mark.skipif(
    not AVX2_HOST and (QEMU is None or platform.machine() != "x86_64"),
    reason="needs qemu-user (apt-get install qemu-user) on an x86-64 host to emulate an AVX2-only CPU",
)
SELF_CHECK = (
    "import sys\n"
    "from mermaid_verifier.errors import ModelSelfCheckError\n"
    "from mermaid_verifier.reader.stance import StanceModel\n"
    "model = StanceModel(sys.argv[1])\n"
    "try:\n"
    "    model.load()\n"
    "except ModelSelfCheckError as error:\n"
    "    print('REFUSED', error)\n"
    "else:\n"
    "    print('PASSED', model.checked.largest_difference)\n"
)


def on_emulated_avx2(model_dir: Path) -> str:
    """The self-check's outcome when the model loads on an emulated Haswell (AVX2, FMA; no AVX-512, no VNNI); on
    a machine that is such a CPU, natively (the same kernels, without the emulator's minutes)."""
    emulator = [] if AVX2_HOST else [QEMU, "-cpu", "Haswell"]
    done = subprocess.run(
        [*emulator, sys.executable, "-c", SELF_CHECK, str(model_dir)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def wide_activation_twin(shipped: Path, target: Path) -> Path:
    """The shipped file with its activations quantised to the whole u8 range [0, 255] instead of [0, 127]: the
    same s8 weights, met by products whose neighbouring pairs can leave int16 (as the first shipped file's did)."""
    model = onnx.load(str(shipped))
    (levels,) = [init for init in model.graph.initializer if init.name == "row7_levels"]
    assert float(numpy_helper.to_array(levels)) == 127.0
    levels.CopyFrom(numpy_helper.from_array(np.array(255.0, np.float32), levels.name))
    onnx.save(model, str(target))
    return target


@needs_qemu
def test_on_an_emulated_avx2_cpu_the_shipped_file_passes_and_its_wide_activation_twin_is_refused(tmp_path):
    assert on_emulated_avx2(SHIPPED).startswith("PASSED")
    twin = wide_activation_twin(SHIPPED / "model.onnx", tmp_path / "s8.onnx")
    assert len(saturation_risks(twin)) > 0
    twin_dir = model_copy(tmp_path, model_file=twin)
    native = StanceModel(twin_dir)
    if AVX2_HOST:
        with pytest.raises(ModelSelfCheckError):  # this machine is such a CPU: refused natively too
            native.load()
    else:
        native.load()  # the same integers read right on exact kernels (VNNI, AMX, ARM64 dot products) ...
    outcome = on_emulated_avx2(twin_dir)
    assert outcome.startswith("REFUSED"), outcome  # ... and are refused on AVX2 without VNNI
    assert "failed its self-check" in outcome
