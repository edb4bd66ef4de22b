"""Training the stance reader: pair builders, the reader job, export as the runtime reads it.

Each script runs from the repository root as a module, e.g. ``python -m training.reader_job prepare …``; most need
the ``training`` extra (torch, transformers). Not installed with the package: only ``mermaid_verifier`` is.
"""
