"""The offline judge: where a verdict is decided.

1. **Trust** (``scoring.assess_trust``, run just before): every evidence item gets a reliability C from its source's
   credibility, its age and the stance consensus of the other items (``mermaid_verifier.scoring``);
   the terms are kept on the item (``evidence[i].trust``) so a reader sees why it was trusted.
2. **Weighing** (:func:`decide`): an item's weight for a side is P(side) · C. The claim's support is
   its strongest supporting item, its refutation the strongest refuting item (times
   ``refute_weight``, tuned because the stance model over-calls refutation). When neither reaches
   ``nei_threshold`` the claim is NOT ENOUGH INFO — with a confidence scaled by how much of the
   claim's topic the evidence covers: finding nothing at all about the claim's entities is not
   evidence that the claim is unsupported.
3. **Abstention**: the judge keeps the best label but sets ``abstained`` when its confidence is
   under ``abstain_below`` (fitted by ``mermaid-verifier calibrate``) or when strong, trusted
   evidence points both ways.

Thresholds live in ``data/judge_config.json`` (tuned on the FEVER validation part only).
"""

from __future__ import annotations

import json
from importlib import resources

from pydantic import BaseModel, Field

from mermaid_verifier.memory import entities_mentioned
from mermaid_verifier.models import Evidence, Label, Stance, Verdict
from mermaid_verifier.scoring import side_probability as _side


class JudgeConfig(BaseModel):
    nei_threshold: float = Field(0.30, ge=0, le=1)
    refute_weight: float = Field(0.80, gt=0, le=2)
    abstain_below: float = Field(0.50, ge=0, le=1)
    conflict_level: float = Field(0.60, ge=0, le=1, description="both weighted sides at least this strong = conflict")
    stop_threshold: float = Field(0.90, ge=0, le=1, description="executor stops once an item is this decisive")
    memory_trust: float = Field(0.60, ge=0, le=1, description="a remembered item may end the search only at this reliability")
    use_reliability: bool = True

    @classmethod
    def bundled(cls) -> "JudgeConfig":
        path = resources.files("mermaid_verifier.data") / "judge_config.json"
        if not path.is_file():
            return cls()
        values = json.loads(path.read_text())
        return cls.model_validate({k: v for k, v in values.items() if k in cls.model_fields})


def _weight(item: Evidence, config: JudgeConfig) -> float:
    return item.trust.reliability if (config.use_reliability and item.trust is not None) else 1.0


def topic_coverage(evidence: list[Evidence], entities: list[str]) -> float:
    """Share of the claim's entities that some evidence item is about (1.0 when it names none)."""
    if not evidence:
        return 0.0
    if not entities:
        return 1.0
    covered = {e for item in evidence for e in entities_mentioned(item, entities)}
    return len(covered) / len(set(entities))


def annotate(evidence: list[Evidence], config: JudgeConfig) -> list[Evidence]:
    """Set each item's stance (argmax) and score (its trusted weight for its side), best first."""
    annotated = []
    for item in evidence:
        probs = item.stance_probabilities or {}
        stance = Stance(max(probs, key=probs.get)) if probs else Stance.NEUTRAL
        score = max(_side(item, Stance.SUPPORTS), _side(item, Stance.REFUTES)) * _weight(item, config)
        annotated.append(item.model_copy(update={"stance": stance, "score": round(score, 4)}))
    return sorted(annotated, key=lambda e: e.score or 0.0, reverse=True)


def decide(evidence: list[Evidence], config: JudgeConfig, entities: list[str] | None = None) -> Verdict:
    """The verdict for a claim from its stance-scored (and trust-assessed) evidence."""
    support = max((_side(e, Stance.SUPPORTS) * _weight(e, config) for e in evidence), default=0.0)
    refute = max((_side(e, Stance.REFUTES) * _weight(e, config) for e in evidence), default=0.0)
    weighted_refute = config.refute_weight * refute
    best = max(support, weighted_refute)
    coverage = topic_coverage(evidence, entities or [])

    if not evidence:
        label, confidence, reason = Label.NOT_ENOUGH_INFO, 0.0, "no evidence was found"
    elif best < config.nei_threshold:
        label, confidence = Label.NOT_ENOUGH_INFO, (1.0 - best) * coverage
        reason = (f"no item settles the claim (best trusted support {support:.2f}, refutation {refute:.2f}; "
                  f"evidence covers {coverage:.0%} of the claim's entities)")
    elif support >= weighted_refute:
        label, confidence, reason = Label.SUPPORTS, support, f"strongest trusted supporting item at {support:.2f}"
    else:
        label, confidence, reason = Label.REFUTES, refute, f"strongest trusted refuting item at {refute:.2f}"

    conflict = support >= config.conflict_level and refute >= config.conflict_level
    abstained = conflict or confidence < config.abstain_below
    if conflict:
        reason += f"; abstained: strong trusted evidence conflicts (support {support:.2f}, refutation {refute:.2f})"
    elif abstained:
        reason += f"; abstained: confidence {confidence:.2f} is below {config.abstain_below:.2f}"
    return Verdict(
        label=label,
        confidence=round(min(max(confidence, 0.0), 1.0), 4),
        abstained=abstained,
        conflict=conflict,
        reason=reason,
        label_probabilities={Label.SUPPORTS.value: round(support, 4), Label.REFUTES.value: round(refute, 4),
                             Label.NOT_ENOUGH_INFO.value: round(1.0 - best, 4)},
    )


class OfflineJudge:
    """:func:`decide` behind the call shape every judge shares (the LLM judge has the same method)."""

    backend = "offline"

    def __init__(self, config: JudgeConfig):
        self.config = config

    async def judge(self, claim: str, evidence: list[Evidence], entities: list[str] | None = None) -> Verdict:
        """The verdict from trust-assessed evidence (``scoring.assess_trust`` runs first)."""
        return decide(evidence, self.config, entities)
