"""Every file of the repository that the docs and docstrings name exists.

A path counts when it is written as code in ``docs/*.md`` or ``README.md`` (`bench/grounding.py`,
`cli/commands.py`), or anywhere in a module's docstring (``python -m scripts.x``, "for tune_judge.py"), and ends
in a source suffix. One with a folder must be the end of a file's path in the working tree (the installed prefix
``mermaid_verifier/agents/`` read as ``agents/``); a bare ``name.py`` must be the name of one. Not checked: paths
into the shared data (``grounding/wice_dev.jsonl``), into a run's output (``runs/``, ``DIR/``, placeholders in
capitals), outside the repository (``../``), dot-folders of other tools (``.cursor/mcp.json``), files of other
projects listed in :data:`ELSEWHERE`, and a path on a line that names the commit it was at, which is looked up
at that commit (where the clone holds it).
"""

from __future__ import annotations

import ast
import re
import subprocess
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)*\.(?:py|md|j2|toml|json|jsonl|sh|html|txt|yml|yaml)")
SHARED_FOLDERS = ("corpus/", "fever/", "grounding/", "scifact/", "text/", "train/")
ELSEWHERE = {  # files of other projects the docs cite by their path there
    "data/training_stage1/CG2C_musique_minhop3_rbt_mnli_failed.json": "AlignScore's repository",
    "data/training_stage2/CG2C_doc.json": "AlignScore's repository",
}
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
MD_CODE = re.compile(r"(`+)([^`\n]+?)\1")
COMMIT = re.compile(r"\bcommit ([0-9a-f]{7,40})\b")
SKIPPED = ("../", "./", "~", "-", ".", "runs/", "$")


@lru_cache(maxsize=1)
def repository_files() -> tuple[str, ...]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, text=True
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the files cannot be listed")
    return tuple(listed.stdout.split())


@lru_cache(maxsize=1)
def installed_prefixes() -> dict[str, str]:
    """``mermaid_verifier/agents/`` -> ``agents/``: where an installed package's files are in the tree."""
    mapping = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return {name.replace(".", "/") + "/": folder + "/" for name, folder in mapping.items() if name != folder}


def at_commit(commit: str, path: str) -> bool:
    """The path was in the tree of that commit; taken as so where the clone does not hold the commit (shallow)."""
    found = subprocess.run(["git", "ls-tree", "-r", "--name-only", commit], cwd=REPO, capture_output=True, text=True)
    if found.returncode != 0:
        return True
    return any(f == path or f.endswith("/" + path) for f in found.stdout.split())


def exists(path: str, files: tuple[str, ...]) -> bool:
    for installed, folder in installed_prefixes().items():
        if path.startswith(installed):
            path = folder + path[len(installed) :]
    if "/" not in path:
        return any(f.rsplit("/", 1)[-1] == path for f in files)
    return any(f == path or f.endswith("/" + path) for f in files)


def checked(code: str) -> bool:
    """A path of this repository that must exist (see the module's docstring for what is left out)."""
    code = code.strip()
    if not PATH.fullmatch(code) or code.startswith(SKIPPED) or code in ELSEWHERE:
        return False
    if "/" not in code:
        return code.endswith(".py")
    return not code.startswith(SHARED_FOLDERS) and not re.search(r"(^|/)[A-Z][A-Z_]+(/|$)", code)


def missing_in(text: str, where: str, files: tuple[str, ...], *, markdown: bool) -> list[str]:
    out = []
    for line in (FENCE.sub("", text) if markdown else text).splitlines():
        codes = [code for _, code in MD_CODE.findall(line)] if markdown else re.findall(r"[\w./-]+", line)
        for code in filter(checked, (c.strip().rstrip(".,:;") for c in codes)):
            commit = COMMIT.search(line)
            if not (at_commit(commit.group(1), code) if commit else exists(code, files)):
                out.append(f"{where}: {code}")
    return out


def test_every_file_the_docs_and_docstrings_name_exists():
    files = repository_files()
    missing = []
    for doc in [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]:
        missing += missing_in(doc.read_text(encoding="utf-8"), doc.name, files, markdown=True)
    for folder in ("mermaid_verifier", "agents", "tools", "bench", "training", "scripts"):
        for path in sorted((REPO / folder).rglob("*.py")):
            docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False) or ""
            missing += missing_in(docstring, str(path.relative_to(REPO)), files, markdown=False)
    assert missing == []


@pytest.mark.parametrize(
    ("text", "markdown", "missing"),
    [
        ("the command tree is in `cli/commands.py`; see `bench/grounding.py`", True, []),
        ("the command tree is in `app.py`", True, ["x: app.py"]),
        ("see `bench/no_such_bench.py` and `mermaid_verifier/agents/slots.py`", True, ["x: bench/no_such_bench.py"]),
        ("data: `grounding/wice_dev.jsonl`, `runs/x/metrics.json`, `DIR/results.jsonl`, `notes.md`", True, []),
        ("    python -m scripts.evaluate_fever --out runs/x   # for tune_judge.py", False, ["x: tune_judge.py"]),
    ],
)
def test_the_rule(text, markdown, missing):
    assert missing_in(text, "x", repository_files(), markdown=markdown) == missing
