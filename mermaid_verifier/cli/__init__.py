"""Command line: one module per command (``verify``, ``check``, ``serve``, ``mcp``, ``fever``, ``calibrate``,
``memory``, ``review``, ``doctor``), shared options in ``options``, what the commands show in ``render`` (no module
outside ``cli`` imports Rich), the command tree in ``commands``.

The names below are imported when first asked for: the ``verify`` console script loads the verify command alone,
not the command tree with every other command's imports."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mermaid_verifier.cli.commands import app, main
    from mermaid_verifier.cli.verify import verify_main

__all__ = ["app", "main", "verify_main"]

_HOMES = {
    "app": "mermaid_verifier.cli.commands",
    "main": "mermaid_verifier.cli.commands",
    "verify_main": "mermaid_verifier.cli.verify",
}


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
