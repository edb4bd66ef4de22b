"""The dependency direction holds: ``cli -> service -> evaluation -> text_graph | grounding -> graph -> wiring ->
agents | memory -> tools -> core``, the client side never imports a tool server, no cycles between the modules of a
package (import-linter contracts in ``pyproject.toml``).

import-linter reads the package from disk, but the installed layout grafts the top-level ``agents/``,
``tools/``, ``prompts/`` and ``data/`` directories under ``mermaid_verifier``; the test assembles that
layout in a temporary directory (``scripts/installed_layout.py``) and lints it there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from installed_layout import installed_layout  # scripts/ is on the tests' path (pyproject: pytest pythonpath)

REPO = Path(__file__).resolve().parents[1]


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
    assert "Contracts: 3 kept, 0 broken." in done.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    """The check is not vacuous: core importing the graph is reported."""
    root = installed_layout(tmp_path / "site")
    models = root / "mermaid_verifier" / "models.py"
    models.write_text(models.read_text() + "\nimport mermaid_verifier.graph  # an upward import\n")
    done = run_lint(root)
    assert done.returncode != 0 and "mermaid_verifier.models -> mermaid_verifier.graph" in done.stdout
