"""``mermaid-verifier doctor``: what this machine is and whether the stance model reads right on it.

For bug reports: the CPU and the integer kernels onnxruntime picks on it, the versions of the runtime
libraries, the model file's SHA-256 and format, whether any of its integer products could saturate on some
CPU (read from the file itself, no ``onnx`` package needed), and the canary self-check the runtime does at
load, pair by pair. Exits 1 when the model would refuse to run here.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel

from mermaid_verifier.cli.options import JsonOpt, stdout
from mermaid_verifier.errors import ModelError, ModelSelfCheckError
from mermaid_verifier.reader.model_check import (
    cpu_flags,
    file_sha256,
    installed_version,
    integer_kernel,
    saturation_risks,
)
from mermaid_verifier.reader.stance import SelfCheck, StanceModel, bundled_model_dir

LIBRARIES = ("mermaid-verifier", "onnxruntime", "numpy", "tokenizers", "pydantic", "langgraph", "spacy", "onnx")


class DoctorReport(BaseModel):
    """What ``doctor`` found (its ``--json`` output)."""

    python: str
    system: str
    machine: str
    cpu_model: str
    cpu_flags: list[str]
    integer_kernel: str
    versions: dict[str, str]
    model_dir: str
    model_sha256: str | None
    model_bytes: int | None
    model_weights: str | None
    saturation_risks: list[str] | None  # None: not checked (the reason is in saturation_check)
    saturation_check: str
    self_check: SelfCheck | None
    problem: str | None  # the one line the runtime would refuse with, if it would


def cpu_model_name(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:  # not Linux: the platform module says what it can
        return platform.processor() or "unknown"
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in {"model name", "Model", "Hardware"}:
            return value.strip()
    return platform.processor() or "unknown"


def examine(model_dir: Path) -> DoctorReport:
    flags = cpu_flags()
    model_path = model_dir / "model.onnx"
    config_path = model_dir / "stance_config.json"
    weights = json.loads(config_path.read_text()).get("weights") if config_path.is_file() else None
    risks: list[str] | None = None
    try:
        risks = saturation_risks(model_path) if model_path.is_file() else None
        how = "checked" if model_path.is_file() else f"no model file at {model_path}"
    except ModelError as error:
        how = f"not checked: {error}"
    model = StanceModel(model_dir)
    problem = None
    try:
        model.load()
    except ModelSelfCheckError as error:
        problem = str(error)
    except ModelError as error:
        problem = str(error)
    return DoctorReport(
        python=platform.python_version(),
        system=f"{platform.system()} {platform.release()}",
        machine=platform.machine(),
        cpu_model=cpu_model_name(),
        cpu_flags=flags,
        integer_kernel=integer_kernel(flags),
        versions={name: installed_version(name) for name in LIBRARIES},
        model_dir=str(model_dir),
        model_sha256=file_sha256(model_path) if model_path.is_file() else None,
        model_bytes=model_path.stat().st_size if model_path.is_file() else None,
        model_weights=weights,
        saturation_risks=risks,
        saturation_check=how,
        self_check=model.checked,
        problem=problem,
    )


def print_report(report: DoctorReport) -> None:
    def say(line: str, **_: object) -> None:
        stdout.print(line, highlight=False, soft_wrap=True)

    say(f"python        {report.python} on {report.system} ({report.machine})")
    say(f"cpu           {report.cpu_model}")
    say(f"cpu flags     {' '.join(report.cpu_flags) or 'none reported'}")
    say(f"int8 kernels  {report.integer_kernel}")
    say("versions      " + ", ".join(f"{k} {v}" for k, v in report.versions.items()))
    say(f"model         {report.model_dir}")
    say(f"  sha256      {report.model_sha256 or 'missing'} ({report.model_bytes or 0:,} bytes)")
    say(f"  weights     {report.model_weights or 'not stated in stance_config.json'}")
    if report.saturation_risks is None:
        say(f"  structure   {report.saturation_check}")
    elif report.saturation_risks:
        say(f"  structure   {len(report.saturation_risks)} integer products can saturate on AVX2 without VNNI:")
        for risk in report.saturation_risks[:5]:
            say(f"              {risk}")
    else:
        say("  structure   no integer product can saturate on any CPU")
    check = report.self_check
    if check is not None:
        verdict = "passed" if check.passed else "FAILED"
        say(
            f"  self-check  {verdict}: largest difference {check.largest_difference:.4f} from the float model "
            f"(tolerance {check.tolerance:.2f}) over {len(check.canaries)} canary pairs"
        )
        for canary in check.canaries:
            read = " ".join(f"{k} {v:.3f}" for k, v in canary.read.items())
            say(f"              {canary.difference:.4f}  {read}  {canary.claim}")
    if report.problem:
        say(f"problem       {report.problem}")


ModelDirOpt = Annotated[
    Path | None,
    typer.Option("--model-dir", help="A stance model directory to examine instead of the bundled one."),
]


def doctor_command(as_json: JsonOpt = False, model_dir: ModelDirOpt = None) -> None:
    """Print this machine's CPU features, runtime versions, the stance model's checksum and its self-check."""
    report = examine(model_dir or bundled_model_dir())
    if as_json:
        stdout.print_json(report.model_dump_json())
    else:
        print_report(report)
    raise typer.Exit(1 if report.problem else 0)
