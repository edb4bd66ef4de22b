"""Command line: one module per command (``verify``, ``check``, ``serve``, ``mcp``, ``fever``, ``calibrate``,
``memory``, ``review``, ``doctor``), shared options in ``options``, what the commands show in ``render`` (no module
outside ``cli`` imports Rich), the command tree in ``app``."""

from mermaid_verifier.cli.app import app, main, verify_main

__all__ = ["app", "main", "verify_main"]
