"""What the ways in over the network share when they open the pipeline."""

from __future__ import annotations

from mermaid_verifier.stance import StanceForUncheckedJudge, StanceModel
from mermaid_verifier.text_graph import TextChecker


def grounding_stance(checker: TextChecker) -> StanceModel:
    """The stance model grounding reads with: the checker's, unless that one may run unchecked (the LLM judge
    deciding alone), as grounding rests on its readings and must refuse where it cannot be trusted."""
    stance = checker.resources.stance
    if isinstance(stance, StanceForUncheckedJudge):
        return StanceModel(stance.model_dir)
    return stance
