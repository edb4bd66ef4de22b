"""Measurements: speed, quality and sameness checks, each a command whose figures go to ``bench/results/``.

Each runs from the repository root as a module, e.g. ``python -m bench.grounding score …``. Not installed with
the package, never run in CI (the tests import what they check directly).
"""
