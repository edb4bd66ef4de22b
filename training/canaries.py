"""The canary pairs an exported stance model carries for its self-check at load.

Eight plain pairs, written for this purpose (no data set's): three that the evidence supports, three it
refutes, two it leaves open. The export stores them in ``stance_config.json`` (``self_check``) with the
*float* model's probabilities; the runtime (``mermaid_verifier.reader.stance.StanceModel``) reads them once per
process on the machine it runs on and refuses to answer when a reading differs by more than
``TOLERANCE`` or changes the label. A model whose integer kernels saturate reads every one of them
"supports" at 0.7-0.9, a difference of about 0.8 on the other five.
"""

from __future__ import annotations

from collections.abc import Callable

# Largest difference of any of the three probabilities allowed between the float model and the file as
# read on the machine. The shipped file's canaries differ by at most 0.03 on the CPUs measured
# (docs/training.md, "One file for every CPU").
TOLERANCE = 0.15

CANARY_PAIRS: tuple[dict[str, str], ...] = (
    {"claim": "The Eiffel Tower is in Paris.", "title": "Eiffel Tower",
     "evidence": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."},
    {"claim": "Mount Everest is the highest mountain on Earth.", "title": "Mount Everest",
     "evidence": "Mount Everest is Earth's highest mountain above sea level, located in the Himalayas."},
    {"claim": "Marie Curie won a Nobel Prize.", "title": "Marie Curie",
     "evidence": "Marie Curie was the first woman to win a Nobel Prize and the only person to win it in two sciences."},
    {"claim": "The Eiffel Tower is in Berlin.", "title": "Eiffel Tower",
     "evidence": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."},
    {"claim": "Mount Everest is the lowest mountain on Earth.", "title": "Mount Everest",
     "evidence": "Mount Everest is Earth's highest mountain above sea level, located in the Himalayas."},
    {"claim": "The Beatles were formed in Manchester.", "title": "The Beatles",
     "evidence": "The Beatles were an English rock band formed in Liverpool in 1960."},
    {"claim": "The capital of Canada is Toronto.", "title": "Banana",
     "evidence": "A banana is an elongated, edible fruit produced by several kinds of large herbaceous plants."},
    {"claim": "Marie Curie was born in Warsaw.", "title": "Marie Curie",
     "evidence": "Marie Curie was the first woman to win a Nobel Prize and the only person to win it in two sciences."},
)  # fmt: skip


def self_check_spec(
    float_probabilities: Callable[[list[dict[str, str]]], list[dict[str, float]]], reference: str
) -> dict:
    """The ``self_check`` entry of ``stance_config.json``: each canary pair with the float model's
    probabilities (``float_probabilities(pairs)`` → one ``{"supports", "refutes", "neutral"}`` per pair)."""
    pairs = list(CANARY_PAIRS)
    readings = float_probabilities(pairs)
    return {
        "tolerance": TOLERANCE,
        "reference": reference,
        "pairs": [pair | {"float": {k: round(float(v), 4) for k, v in p.items()}} for pair, p in zip(pairs, readings)],
    }
