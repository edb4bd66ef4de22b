"""Turning graph output into a :class:`VerificationResult` (the command line shows it with
:mod:`mermaid_verifier.cli.render`)."""

from __future__ import annotations

from mermaid_verifier.models import VerificationResult


def result_from_output(claim: str, output: dict) -> VerificationResult:
    verdict = output["verdict"]
    return VerificationResult(
        claim=claim,
        verdict=verdict.label,
        abstained=verdict.abstained,
        conflict=verdict.conflict,
        confidence=verdict.confidence,
        reason=verdict.reason,
        not_checkworthy=verdict.not_checkworthy,
        abstain_below=verdict.abstain_below,
        threshold_source=verdict.threshold_source,
        triplets=output["decomposition"].triplets,
        keywords=output["decomposition"].keywords,
        entities=output["decomposition"].entities,
        evidence=output["evidence"],
        trace=output["trace"],
        stats=output["stats"],
        backend=output["stats"].backend,
        llm_failure=output.get("llm_failure"),
    )
