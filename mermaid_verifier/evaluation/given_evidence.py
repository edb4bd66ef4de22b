"""A verdict on evidence the caller supplies, with no search: the judge's path minus the executor.

Used to check the verdict model on its own — the contrast test set (``tests/data/contrast_pairs.jsonl``),
claims against their gold evidence, and the same claims with the decisive span cut out
(``bench/given_evidence.py``). The steps are the graph's: the decomposer's entities, the stance model,
trust and topicality (the judge's ``assess``), and the judge's ``decide``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from mermaid_verifier.agents.decomposer import SpacyDecomposer
from mermaid_verifier.agents.judge import JudgeConfig, assess, decide
from mermaid_verifier.models import Evidence, SourceKind, Verdict
from mermaid_verifier.reader.stance import StanceModel
from mermaid_verifier.weighing.scoring import ReliabilityConfig


@dataclass
class GivenEvidenceJudge:
    """Judges a claim against given ``(title, text)`` passages, as a local-corpus search would return them."""

    stance: StanceModel = field(default_factory=StanceModel)
    judge_config: JudgeConfig = field(default_factory=JudgeConfig.bundled)
    reliability: ReliabilityConfig = field(default_factory=ReliabilityConfig)
    decomposer: SpacyDecomposer = field(default_factory=SpacyDecomposer)

    def evidence(
        self, claim: str, passages: list[tuple[str, str]], entities: list[str] | None = None
    ) -> list[Evidence]:
        probabilities = self.stance.probabilities(claim, passages)
        now = time.time()
        items = [
            Evidence(
                id=f"given-{i}",
                source="given",
                title=title,
                text=text,
                source_kind=SourceKind.LOCAL_CORPUS,
                retrieved_at=now,
                stance_probabilities=p,
            )
            for i, ((title, text), p) in enumerate(zip(passages, probabilities))
        ]
        if entities is None:
            entities = self.decomposer.decompose(claim).entities
        return assess(items, self.reliability, self.judge_config, claim, entities, now)

    def verdict(self, claim: str, passages: list[tuple[str, str]]) -> Verdict:
        entities = self.decomposer.decompose(claim).entities
        return decide(self.evidence(claim, passages, entities), self.judge_config, entities, claim)
