"""The dependency direction holds: the layers contract in ``pyproject.toml`` (its name writes the order out, and
``docs/architecture.md`` states the same order), the client side never imports a tool server, no cycles between the
modules of a package (import-linter contracts in ``pyproject.toml``); and only the command line
(``mermaid_verifier.cli``) imports Rich: every other module hands over records, which ``cli.render`` shows.

import-linter reads the package from disk, but the installed layout grafts the top-level ``agents/``,
``tools/``, ``prompts/`` and ``data/`` directories under ``mermaid_verifier``; the test assembles that
layout in a temporary directory (``scripts/installed_layout.py``) and lints it there.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

from scripts.installed_layout import installed_layout

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


def test_the_layer_order_is_written_once_and_stated_in_the_docs():
    """The layers contract's name is its layers in order (each by its modules' names below the package, the
    layers under ``tools`` as ``core``), and docs/architecture.md states that order as it is written there."""
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["type"] == "layers"]
    written = contract["name"].split(" -> ")
    named = [
        " | ".join(m.strip().removeprefix("mermaid_verifier.") for m in layer.split("|"))
        for layer in contract["layers"]
    ]
    assert written == named[: named.index("tools") + 1] + ["core"]
    assert f"Imports go one way only: `{contract['name']}`." in (REPO / "docs" / "architecture.md").read_text()


def test_an_upward_import_breaks_the_contract(tmp_path):
    """The check is not vacuous: core importing the graph is reported."""
    root = installed_layout(tmp_path / "site")
    models = root / "mermaid_verifier" / "models.py"
    models.write_text(models.read_text() + "\nimport mermaid_verifier.graph  # an upward import\n")
    done = run_lint(root)
    assert done.returncode != 0 and "mermaid_verifier.models -> mermaid_verifier.graph" in done.stdout


def rich_importers(package: Path) -> list[str]:
    """``file:line`` of every import of Rich outside the command line, read from the source (an import under
    ``if TYPE_CHECKING:`` or inside a function counts too)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if package / "cli" in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            if any(name == "rich" or name.startswith("rich.") for name in names):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    return found


def test_only_the_command_line_imports_rich(tmp_path):
    package = installed_layout(tmp_path / "site") / "mermaid_verifier"
    assert rich_importers(package) == []
    # the check is not vacuous: a core module that imports Rich is named, and so is a grafted one (tools/)
    (package / "models.py").write_text((package / "models.py").read_text() + "\nfrom rich.text import Text\n")
    (package / "tools" / "rich_use.py").write_text("def show():\n    import rich.console\n")
    assert [place.rsplit(":", 1)[0] for place in rich_importers(package)] == [
        "mermaid_verifier/models.py",
        "mermaid_verifier/tools/rich_use.py",
    ]
