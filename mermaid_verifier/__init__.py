"""mermaid-verifier: claims, whole texts and texts against their documents checked offline.

``from mermaid_verifier import ground, Grounder`` grounds an answer against its contexts from plain Python
(:mod:`mermaid_verifier.texts.plain`); the rest is reached through its modules (docs/architecture.md)."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Grounder", "ground"]


def __getattr__(name: str) -> Any:
    """``ground`` and ``Grounder``, imported when first asked for: importing the package loads nothing heavy."""
    if name in __all__:
        return getattr(importlib.import_module("mermaid_verifier.texts.plain"), name)
    raise AttributeError(f"module 'mermaid_verifier' has no attribute {name!r}")
