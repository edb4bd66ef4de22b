"""Measurements: speed, quality and sameness checks, each a command whose figures go to ``bench/results/``.

Each runs from the repository root as a module, e.g. ``python -m bench.grounding score …``. Not installed with
the package, never run in CI (the tests import what they check directly).
"""

from __future__ import annotations

import json
from pathlib import Path


def print_report(report: dict, out: Path | None, indent: int = 2) -> None:
    """Print a command's report as JSON and, where ``out`` is given, write the same text there (folders made)."""
    text = json.dumps(report, indent=indent)
    print(text)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
