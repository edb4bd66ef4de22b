"""docs/architecture.md, "Settings: which lives where", names every class of the package that holds settings (a
name ending in Config, Policy, Settings, Options, Limits or Overrides, outside the error classes), with the module
it is defined in; a class added without a row fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = ("mermaid_verifier", "agents", "tools")
SETTINGS_NAME = re.compile(r"(Config|Policy|Settings|Options|Limits|Overrides)$")


def settings_classes() -> dict[str, str]:
    """Class name -> file (relative to the repository) for every settings-holding class of the package."""
    found: dict[str, str] = {}
    for folder in PACKAGE_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef) or not SETTINGS_NAME.search(node.name):
                    continue
                bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
                if node.name.endswith("Error") or bases & {"Exception", "UsageError", "ConfigError"}:
                    continue
                found[node.name] = path.relative_to(REPO).as_posix()
    return found


def table_rows() -> dict[str, str]:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Settings: which lives where", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| `([\w/.]+)` \|", section, re.M)
    return dict(rows)


def test_every_settings_class_has_a_row_naming_its_module():
    classes, rows = settings_classes(), table_rows()
    assert {"Settings", "Overrides", "JudgeConfig", "GroundingConfig", "Limits"} <= classes.keys()
    assert classes == rows, (
        f"missing from the table: {sorted(classes.keys() - rows.keys())}; "
        f"named but not found: {sorted(rows.keys() - classes.keys())}; "
        f"in another module: {sorted(n for n in classes.keys() & rows.keys() if classes[n] != rows[n])}"
    )
