"""The offline judge: where a verdict is decided.

Every evidence item carries the stance model's P(supports), P(refutes), P(does not settle) for the
claim. The claim's support is the strongest supporting item, its refutation the strongest refuting
item (down-weighted by ``refute_weight``, tuned because the model over-calls refutation). When
neither reaches ``nei_threshold`` the claim is NOT ENOUGH INFO. The judge *abstains* — keeping the
best label but saying it will not vouch for it — when its confidence is under ``abstain_below`` or
when strong evidence points both ways.

Thresholds live in ``data/judge_config.json`` (tuned by ``scripts/tune_judge.py`` on the FEVER
validation part only).
"""

from __future__ import annotations

import json
from importlib import resources

from pydantic import BaseModel, Field

from mermaid_verifier.models import Evidence, Label, Stance, Verdict


class JudgeConfig(BaseModel):
    nei_threshold: float = Field(0.30, ge=0, le=1)
    refute_weight: float = Field(0.80, gt=0, le=2)
    abstain_below: float = Field(0.50, ge=0, le=1)
    conflict_level: float = Field(0.80, ge=0, le=1, description="both sides at least this strong = conflict")
    stop_threshold: float = Field(0.90, ge=0, le=1, description="executor stops once an item is this decisive")

    @classmethod
    def bundled(cls) -> "JudgeConfig":
        path = resources.files("mermaid_verifier.data") / "judge_config.json"
        if not path.is_file():
            return cls()
        values = json.loads(path.read_text())
        return cls.model_validate({k: v for k, v in values.items() if k in cls.model_fields})


def annotate(evidence: list[Evidence]) -> list[Evidence]:
    """Set each item's stance (argmax) and score (how strongly it bears on the claim), best first."""
    annotated = []
    for item in evidence:
        probs = item.stance_probabilities or {}
        support, refute = probs.get(Stance.SUPPORTS.value, 0.0), probs.get(Stance.REFUTES.value, 0.0)
        stance = max(probs, key=probs.get) if probs else Stance.NEUTRAL.value
        annotated.append(item.model_copy(update={"stance": Stance(stance), "score": round(max(support, refute), 4)}))
    return sorted(annotated, key=lambda e: e.score or 0.0, reverse=True)


def decide(evidence: list[Evidence], config: JudgeConfig) -> Verdict:
    """The verdict for a claim from its stance-scored evidence."""
    support = max((e.stance_probabilities.get(Stance.SUPPORTS.value, 0.0) for e in evidence if e.stance_probabilities), default=0.0)
    refute = max((e.stance_probabilities.get(Stance.REFUTES.value, 0.0) for e in evidence if e.stance_probabilities), default=0.0)
    weighted_refute = config.refute_weight * refute
    probabilities = {Label.SUPPORTS.value: round(support, 4), Label.REFUTES.value: round(refute, 4)}

    if not evidence:
        label, confidence, reason = Label.NOT_ENOUGH_INFO, 1.0, "no evidence was found"
    elif max(support, weighted_refute) < config.nei_threshold:
        label, confidence = Label.NOT_ENOUGH_INFO, 1.0 - max(support, weighted_refute)
        reason = f"no item settles the claim (best support {support:.2f}, best refutation {refute:.2f})"
    elif support >= weighted_refute:
        label, confidence, reason = Label.SUPPORTS, support, f"strongest supporting item at {support:.2f}"
    else:
        label, confidence, reason = Label.REFUTES, refute, f"strongest refuting item at {refute:.2f}"
    probabilities[Label.NOT_ENOUGH_INFO.value] = round(1.0 - max(support, weighted_refute), 4)

    conflict = support >= config.conflict_level and refute >= config.conflict_level
    abstained = conflict or confidence < config.abstain_below
    if conflict:
        reason += f"; abstained: strong evidence conflicts (support {support:.2f}, refutation {refute:.2f})"
    elif abstained:
        reason += f"; abstained: confidence {confidence:.2f} is below {config.abstain_below:.2f}"
    return Verdict(
        label=label,
        confidence=round(min(max(confidence, 0.0), 1.0), 4),
        abstained=abstained,
        reason=reason,
        label_probabilities=probabilities,
    )
