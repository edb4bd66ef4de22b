"""One small Protocol per role: the offline and the LLM implementation of each stand behind it. The graph
(``mermaid_verifier.graph``) calls each role only through these, on the ``Agents`` that
``mermaid_verifier.wiring.wire_agents`` builds from ``backend_plan``'s table; what else it takes from ``agents/``
is the same under every backend: the judge's assessment and its abstentions (``judge``), the cascade's
reconciliation (``reconcile``), token accounting (``model_calls``), ``decomposer.names_something`` and the
``ExecutionResult`` record.

=========== ==================================== ========================================================
role        offline                              LLM
=========== ==================================== ========================================================
Decomposer  ``decomposer.SpacyDecomposer``       ``llm_decomposer.LLMDecomposer``
Executor    ``executor.OfflineExecutor``         ``llm_executor.LLMExecutor``
Judge       ``judge.OfflineJudge``               ``llm_judge.LLMJudge``
Claims      ``claim_extractor.SpacyClaimExtractor`` ``llm_claim_extractor.LLMClaimExtractor``
=========== ==================================== ========================================================
"""

from __future__ import annotations

from typing import Protocol

from mermaid_verifier.agents.executor import ExecutionResult
from mermaid_verifier.models import Decomposition, Evidence, TextClaims, Verdict


class Decomposer(Protocol):
    def warm_up(self) -> None:
        """Load what the first claim would otherwise wait for (a parser); may do nothing."""

    async def adecompose(self, claim: str) -> Decomposition:
        """The claim's triplets, keywords and entities."""


class Executor(Protocol):
    async def run(
        self,
        claim: str,
        decomposition: Decomposition,
        remembered: list[Evidence],
        previous: ExecutionResult | None = None,
    ) -> ExecutionResult:
        """Search for evidence (continuing ``previous`` when given); the evidence, the trace and the stats."""


class Judge(Protocol):
    async def judge(self, claim: str, evidence: list[Evidence], entities: list[str] | None = None) -> Verdict:
        """The verdict on trust-assessed evidence (``agents/judge.py`` decides it, whichever judge asks)."""


class ClaimExtractor(Protocol):
    def warm_up(self) -> None:
        """Load what the first text would otherwise wait for (a parser); may do nothing."""

    async def aextract(self, text: str) -> TextClaims:
        """A whole text's atomic, self-contained claims with their sentences' spans, and the sentences
        dropped as holding nothing to check (with why)."""
