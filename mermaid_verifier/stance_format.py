"""What the stance model reads and answers, with no dependency beyond the standard library: the verdict labels
and how an evidence item is shown to it beside the claim.

The runtime (``stance.py``, ``models.py``) and the training code (``training/trainer.py``) both take them from
here, so a model trained on a machine that has none of the runtime's packages (a lent GPU) is fed its pairs
exactly as the runtime feeds them.
"""

from __future__ import annotations

from enum import StrEnum


class Label(StrEnum):
    SUPPORTS = "SUPPORTS"
    REFUTES = "REFUTES"
    NOT_ENOUGH_INFO = "NOT ENOUGH INFO"


def evidence_segment(title: str, text: str) -> str:
    """How evidence is shown to the model; must match training (``training/train_stance.py``)."""
    return f"{title}: {text}" if title else text
