"""Command line: one module per command (``verify``, ``fever``, ``calibrate``, ``memory``, ``review``),
shared options in ``options``, the command tree in ``app``."""

from mermaid_verifier.cli.app import app, main, verify_main

__all__ = ["app", "main", "verify_main"]
