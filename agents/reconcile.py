"""Where an LLM's verdict meets the offline one: the LLM judge's answer checked against the stance model's reading of
the same evidence (``MERMAID_JUDGE_CHECK``), the cascade's rule that the LLM path may confirm the offline label but
never overturn it, and the abstention when the LLM endpoint fails mid-claim.

The offline decision itself — evidence → features → label → confidence → abstention — is
:mod:`mermaid_verifier.agents.judge`; everything here starts from its :class:`Verdict` (the *stance reading*).
"""

from __future__ import annotations

from dataclasses import dataclass

from mermaid_verifier.agents.judge import JudgeConfig
from mermaid_verifier.config import JudgeCheck
from mermaid_verifier.models import Evidence, Label, Verdict


@dataclass(frozen=True)
class LLMAnswer:
    """What the LLM judge answered, its citations resolved to the evidence items."""

    label: Label
    confidence: float
    reasoning: str
    cited: list[Evidence]


def verdict_from_llm_answer(
    stance_reading: Verdict,
    answer: LLMAnswer,
    coverage: float,
    config: JudgeConfig,
    check: JudgeCheck = "strict",
) -> Verdict:
    """The verdict when an LLM judged the evidence, checked against the stance model's reading of it.

    confidence = the model's confidence × the mean reliability of the items it cites (the evidence's
    topic ``coverage`` when it cites none, as for an offline NOT ENOUGH INFO). How the stance model's
    reading checks it is ``check`` (``MERMAID_JUDGE_CHECK``):

    * ``strict``: when the LLM's label differs from the stance-model verdict, the confidence is capped at
      the stance model's strength for the LLM's label, and a confident (not abstained) stance-model verdict
      it contradicts makes it abstain; strong trusted evidence both ways (``conflict``) too;
    * ``cap``: the cap and the conflict, but a contradiction alone does not make it abstain;
    * ``off``: the stance model's reading is not consulted: the answer stands or falls on its confidence.

    Whenever the LLM's answer does not stand (low confidence, and under ``strict`` or ``cap`` conflicting
    evidence or that contradiction), the stance model's label is kept, abstained."""
    if answer.cited:
        weight = sum(e.trust.reliability if e.trust is not None else 1.0 for e in answer.cited) / len(answer.cited)
        rule = f"mean reliability {weight:.2f} of {len(answer.cited)} cited item(s)"
    else:
        weight, rule = coverage, f"topic coverage {coverage:.2f} (nothing cited)"
    confidence = round(min(max(answer.confidence * weight, 0.0), 1.0), 4)
    label = answer.label.value
    reason = (
        f"{' '.join(answer.reasoning.split())} [LLM judge: {label} at {answer.confidence:.2f} × "
        f"{rule} = {confidence:.2f}]"
    )
    disagrees = check != "off" and answer.label != stance_reading.label
    if disagrees:
        strength = stance_reading.side_strengths.get(label, 0.0)
        confidence = round(min(confidence, strength), 4)
        reason += (
            f"; the stance model reads the evidence as {stance_reading.label.value} at "
            f"{stance_reading.confidence:.2f} and gives {label} only {strength:.2f}, which caps the confidence"
        )
    why: str | None = None
    if stance_reading.conflict and check != "off":
        support, refute = (
            stance_reading.side_strengths.get(k, 0.0) for k in (Label.SUPPORTS.value, Label.REFUTES.value)
        )
        why = f"the evidence points both ways (strong trusted support {support:.2f} and refutation {refute:.2f})"
    elif disagrees and not stance_reading.abstained and check == "strict":
        why = "the LLM judge contradicts a confident stance-model verdict"
    elif confidence < config.abstain_below:
        why = f"confidence {confidence:.2f} is below {config.abstain_below:.2f}"
    if why is None or check == "off":  # unchecked, the LLM's own label is the best one, abstained or not
        if check == "off":
            reason += " (not checked against the stance model: MERMAID_JUDGE_CHECK=off)"
        return Verdict(
            label=answer.label,
            confidence=confidence,
            abstained=why is not None,
            conflict=False,
            reason=reason if why is None else f"abstained: {why}; {reason}",
            side_strengths=stance_reading.side_strengths,
            cited=[e.id for e in answer.cited],
            abstain_below=config.abstain_below,
            threshold_source=config.threshold_source,
        )
    return stance_reading_kept(stance_reading, f"the LLM judge said {label} ({reason}; abstained: {why})")


def cascade_verdict(verdict: Verdict, offline_label: Label, offline_confidence: float) -> Verdict:
    """The verdict of a claim the cascade escalated: the LLM path may confirm the offline label (and lift
    its abstention), never overturn it. A different label is reported as the offline verdict, abstained,
    with the LLM path's reading in the reason.

    Why: the cascade must never do worse than offline. Measured with a small local model (see
    docs/evaluation.md), the LLM path's labels that differed from the offline one were wrong as often
    as right, while the stance model's label is the one fitted and calibrated on FEVER."""
    if verdict.label == offline_label:
        return verdict
    return verdict.model_copy(
        update={
            "label": offline_label,
            "confidence": offline_confidence,
            "abstained": True,
            "conflict": False,
            "cited": [],
            "reason": f"abstained: the offline verdict {offline_label.value} at {offline_confidence:.2f} was not "
            f"confident, and the LLM path read the claim as {verdict.label.value} at {verdict.confidence:.2f}; "
            f"in the cascade the LLM may confirm the offline label, not overturn it ({verdict.reason})",
        }
    )


def stance_reading_kept(stance_reading: Verdict, why: str) -> Verdict:
    """The stance model's verdict on the same evidence, as an abstention that says why the LLM's did not stand."""
    return stance_reading.model_copy(
        update={
            "abstained": True,
            "reason": f"abstained: {why}; the stance model's reading is kept as the best label: {stance_reading.reason}",
        }
    )


def abstain_after_llm_failure(verdict: Verdict, failure: str) -> Verdict:
    """``verdict`` (the stance model's reading of whatever evidence was gathered) as an abstention that
    names the LLM endpoint failure which cut the claim's search or judgement short."""
    return verdict.model_copy(
        update={
            "abstained": True,
            "reason": f"abstained: the LLM endpoint failed ({failure}); the stance model's reading of the evidence "
            f"gathered before the failure: {verdict.label.value} at {verdict.confidence:.2f}",
        }
    )
