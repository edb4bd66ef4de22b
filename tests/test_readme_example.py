"""The README's Python example runs as written (on the test corpus, local source only)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .conftest import WIKI_MINI

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_subgraph_example_runs_as_written(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = next(block for block in blocks if "StateGraph(MyState)" in block)
    script = tmp_path / "example.py"
    script.write_text(example)
    env = {
        **os.environ,
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
        "MERMAID_SOURCES": "local",
        "MERMAID_CORPUS": str(WIKI_MINI),
        "MERMAID_MEMORY": "0",
    }
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert first.split()[0] in {"SUPPORTS", "REFUTES", "NOT"}
    assert second.split()[0] in {"SUPPORTS", "REFUTES", "NOT"}
