"""mypy over the package as installed (see ``installed_layout.py``); exits with mypy's status.

python -m scripts.typecheck
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from scripts.installed_layout import REPO, installed_layout


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mermaid-typecheck-") as directory:
        root = installed_layout(Path(directory))
        command = [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(REPO / "pyproject.toml"),
            "-p",
            "mermaid_verifier",
        ]
        return subprocess.run(command, cwd=root).returncode


if __name__ == "__main__":
    sys.exit(main())
