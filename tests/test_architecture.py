"""The dependency direction holds: ``cli -> evaluation -> graph -> agents | memory -> tools -> core``, no
cycles between the modules of a package (import-linter contracts in ``pyproject.toml``).

import-linter reads the package from disk, but the installed layout grafts the top-level ``agents/``,
``tools/``, ``prompts/`` and ``data/`` directories under ``mermaid_verifier``; the test assembles that
layout in a temporary directory (as ``pip install`` does, from ``[tool.setuptools] package-dir``) and
lints it there.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def installed_layout(target: Path) -> Path:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    for package in setuptools["packages"]:
        top = next(
            name for name in sorted(mapping, key=len, reverse=True) if package == name or package.startswith(name + ".")
        )
        source = REPO / mapping[top] / package[len(top) :].lstrip(".").replace(".", "/")
        destination = target / package.replace(".", "/")
        destination.mkdir(parents=True, exist_ok=True)
        for module in source.glob("*.py"):
            shutil.copyfile(module, destination / module.name)
    return target


def lint_command() -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
    ]


def run_lint(root: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*lint_command(), "--config", str(REPO / "pyproject.toml"), *extra],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )


def test_the_import_contracts_hold(tmp_path):
    done = run_lint(installed_layout(tmp_path / "site"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    """The check is not vacuous: core importing the graph is reported."""
    root = installed_layout(tmp_path / "site")
    models = root / "mermaid_verifier" / "models.py"
    models.write_text(models.read_text() + "\nimport mermaid_verifier.graph  # an upward import\n")
    done = run_lint(root)
    assert done.returncode != 0 and "mermaid_verifier.models -> mermaid_verifier.graph" in done.stdout
