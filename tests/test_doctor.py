"""``mermaid-verifier doctor`` checks the model file's structure as installed, without the ``onnx`` package."""

from __future__ import annotations

import sys

from mermaid_verifier.cli.doctor import examine
from mermaid_verifier.reader.stance import bundled_model_dir

from .conftest import stance_model_copy


def test_doctor_checks_the_structure_without_the_onnx_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    report = examine(bundled_model_dir())
    assert report.saturation_check == "checked"
    assert report.saturation_risks == []
    assert report.problem is None


def test_doctor_says_why_a_file_that_is_no_model_was_not_checked(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    (tmp_path / "junk.onnx").write_bytes(b"\xff" * 64)
    report = examine(stance_model_copy(tmp_path / "model", model_file=tmp_path / "junk.onnx"))
    assert report.saturation_risks is None
    assert report.saturation_check.startswith("not checked: ") and "not an ONNX model file" in report.saturation_check
    assert report.problem  # and the runtime refuses it, in its own words
