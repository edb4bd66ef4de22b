"""Assemble the package as ``pip install`` lays it out, for tools that read source from disk.

The project's fixed top level grafts ``agents/``, ``tools/``, ``prompts/`` and ``data/`` under
``mermaid_verifier`` (``[tool.setuptools] package-dir``); import-linter and mypy find packages on disk,
not through the editable install's import hook, so they are run on this copy.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def installed_layout(target: Path) -> Path:
    """Copy every package's modules to where the installed package has them; returns ``target``."""
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
