"""Maintenance commands: evaluation and judge fitting, the type check, the local LLM server.

Each runs from the repository root as a module, e.g. ``python -m scripts.evaluate_scoring …``. Not installed with
the package.
"""
