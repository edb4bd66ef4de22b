"""Every name of the package that the docs write in backticks exists.

Two places speak of the code by name: ``docs/*.md`` and the modules' own docstrings. A name counts when it is
written as code (`name` in Markdown, ``name`` or a Sphinx role such as :func:`name` in a docstring) and has the
shape of a dotted Python name (``a.b.c``, at most a trailing ``()``) whose first part is the package
(``mermaid_verifier.x.y``) or the last part of one of its modules' names (``reconcile.cascade_verdict``,
``tools.sources``). A name written with a role in a docstring is also looked up in that module itself
(:func:`http_app`) and, with a leading dot, in its package (:mod:`.dependencies`). File names
(``judge.py``, ``report.html.j2``) are not names. Each name resolves when its module imports and ``getattr``
finds the rest.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "mermaid_verifier"

# the last part of a file name, not of a Python name
FILE_SUFFIXES = frozenset(
    {"py", "md", "json", "jsonl", "toml", "j2", "html", "txt", "onnx", "yaml", "yml", "csv", "tsv", "zim", "pdf"}
    | {"gz", "zst", "bz2", "xz", "zip", "tar", "db", "sqlite", "log", "cfg", "ini", "sh", "lock", "parquet", "pt"}
)
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
MD_CODE = re.compile(r"(`+)([^`\n]+?)\1")
RST_LITERAL = re.compile(r"``([^`\n]+?)``")
RST_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const):`~?(\.?[\w.]+)`")


@dataclass(frozen=True)
class Mention:
    name: str  # as written, without a trailing "()"
    where: str  # file, for the failure message
    module: str | None = None  # a docstring's own module: a role's name may be local to it
    role: bool = False


def package_modules() -> dict[str, Path]:
    """Every module of the installed package and its source file (``[tool.setuptools]`` maps the directories)."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    modules: dict[str, Path] = {}
    for package in setuptools["packages"]:
        top = max((name for name in mapping if package == name or package.startswith(name + ".")), key=len)
        source = REPO / mapping[top] / package[len(top) :].lstrip(".").replace(".", "/")
        for path in sorted(source.glob("*.py")):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


def short_names(modules: dict[str, Path]) -> dict[str, list[str]]:
    """``reconcile`` -> ``["mermaid_verifier.agents.reconcile"]``: what a name's first part may stand for."""
    short: dict[str, list[str]] = defaultdict(list)
    for module in modules:
        short[module.rsplit(".", 1)[-1]].append(module)
    return dict(short)


def names_in_markdown(text: str, where: str) -> list[Mention]:
    text = FENCE.sub("", text)
    return [Mention(found, where) for _, code in MD_CODE.findall(text) if (found := dotted(code))]


def names_in_docstring(doc: str, where: str, module: str) -> list[Mention]:
    found = [Mention(name, where, module) for code in RST_LITERAL.findall(doc) if (name := dotted(code))]
    found += [Mention(name.removesuffix("()"), where, module, role=True) for name in RST_ROLE.findall(doc)]
    return found


def dotted(code: str) -> str | None:
    """The code span if it is one dotted Python name (a call's empty ``()`` allowed), else None."""
    code = code.strip().removesuffix("()")
    if not DOTTED.fullmatch(code) or code.rsplit(".", 1)[-1] in FILE_SUFFIXES:
        return None
    return code


def candidates(mention: Mention, short: dict[str, list[str]]) -> list[tuple[str, str]]:
    """``(module, rest)`` pairs the mention may mean; none when it is not a name of the package."""
    name = mention.name
    found: list[tuple[str, str]] = []
    if mention.role and mention.module:
        if name.startswith("."):
            package = mention.module.rsplit(".", 1)[0]
            return [(package, name[1:]), (mention.module, name[1:])]
        found.append((mention.module, name))
    first, _, rest = name.partition(".")
    if first == PACKAGE:
        found.append((PACKAGE, rest))
    else:
        found += [(module, rest) for module in short.get(first, [])]
    return found


def resolves(module: str, rest: str) -> bool:
    """``module`` imports and each part of ``rest`` is an attribute of what came before, or a submodule of it.

    A module that needs an optional package which is not installed is read instead: the first part of ``rest``
    must be defined at its top level."""
    try:
        target: object = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and error.name.split(".")[0] != PACKAGE and module in MODULES:
            return not rest or rest.split(".")[0] in top_level_names(MODULES[module])
        return False
    except ImportError:
        return False
    parts = rest.split(".") if rest else []
    for i, part in enumerate(parts):
        if hasattr(target, part):
            target = getattr(target, part)
        elif isinstance(target, ModuleType) and hasattr(target, "__path__"):
            return resolves(f"{target.__name__}.{part}", ".".join(parts[i + 1 :]))
        else:
            return False
    return True


def top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def unresolved(mentions: list[Mention], short: dict[str, list[str]]) -> list[str]:
    missing = []
    for mention in mentions:
        options = candidates(mention, short)
        if options and not any(resolves(module, rest) for module, rest in options):
            missing.append(f"{mention.where}: {mention.name}")
    return sorted(set(missing))


def all_mentions(modules: dict[str, Path]) -> list[Mention]:
    mentions: list[Mention] = []
    for doc in sorted((REPO / "docs").glob("*.md")):
        mentions += names_in_markdown(doc.read_text(encoding="utf-8"), str(doc.relative_to(REPO)))
    for module, path in modules.items():
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
        if docstring:
            mentions += names_in_docstring(docstring, str(path.relative_to(REPO)), module)
    return mentions


MODULES = package_modules()
SHORT = short_names(MODULES)


def test_every_name_the_docs_give_exists():
    mentions = all_mentions(MODULES)
    assert len([m for m in mentions if candidates(m, SHORT)]) > 50, "the collector found too few names"
    assert unresolved(mentions, SHORT) == []


@pytest.mark.parametrize(
    ("markdown", "missing"),
    [
        ("the offline path keeps its label (`reconcile.cascade_verdict`)", []),
        ("the offline path keeps its label (`judge.cascade_verdict`)", ["x.md: judge.cascade_verdict"]),
        (
            "`mermaid_verifier.graph.build_graph()` and `mermaid_verifier.graph.no_such_node`",
            ["x.md: mermaid_verifier.graph.no_such_node"],
        ),
        ("`mermaid_verifier.no_such_module.thing`", ["x.md: mermaid_verifier.no_such_module.thing"]),
        ("`tools.sources.toolbox_started_early` and `tools.no_such_module`", ["x.md: tools.no_such_module"]),
        # not names of the package: a file, a record's field, a call with arguments, a module of another project
        (
            "`agents/judge.py`, `judge.py`, `report.html.j2`, `evidence[i].trust`, `stats.seconds`,"
            " `judge.assess(x)`, `langgraph.json`, `os.path.join`",
            [],
        ),
        ("```python\nfrom mermaid_verifier.graph import nothing_here\nmermaid_verifier.graph.nothing_here\n```", []),
    ],
)
def test_the_rule_on_markdown(markdown, missing):
    assert unresolved(names_in_markdown(markdown, "x.md"), SHORT) == missing


def test_the_rule_on_a_docstring():
    doc = (
        "Served by :func:`http_app`, not by :func:`serve_http`; see :mod:`.routes` and :mod:`.no_such_sibling`,"
        " ``mermaid_verifier.config.Settings.from_env`` and ``config.no_such_setting``."
    )
    found = names_in_docstring(doc, "mcp_server.py", "mermaid_verifier.service.mcp_server")
    assert unresolved(found, SHORT) == [
        "mcp_server.py: .no_such_sibling",
        "mcp_server.py: config.no_such_setting",
        "mcp_server.py: serve_http",
    ]


def test_a_module_whose_optional_package_is_missing_is_read(monkeypatch):
    monkeypatch.delitem(sys.modules, "mermaid_verifier.tools.tantivy_index", raising=False)
    monkeypatch.setitem(sys.modules, "orjson", None)  # the module imports it at the top
    assert resolves("mermaid_verifier.tools.tantivy_index", "TantivyCorpusIndex")
    assert not resolves("mermaid_verifier.tools.tantivy_index", "NoSuchIndex")
