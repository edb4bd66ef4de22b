"""The offline judge: where a verdict is decided, from evidence to label, confidence and abstention.

:func:`decide` is the whole decision, in four steps:

1. **Trust and topicality** (:func:`assess`, once for the claim's evidence, before any judge reads it):
   every item gets a reliability C from its source's credibility, its age and the stance consensus
   of the other items (``mermaid_verifier.weighing.scoring``), and a topicality from
   ``mermaid_verifier.weighing.topicality``: a page about someone else settles nothing about the claim's
   subject, so items whose title names nothing the claim names count for less. Both are kept on the
   item (``evidence[i].trust``), so a reader sees why it was trusted and nothing recomputes them.
2. **Weighing** (:func:`weigh`): an item's strength for a side is P(side) · C · topicality
   (:func:`side_weights`); an item's refutation counts only where it speaks to the claim's slot — its subject
   and a value for its relation (:mod:`mermaid_verifier.agents.slots`): a passage about the subject that
   states another fact does not say otherwise, it does not say (``unstated_refutes`` is what such a reading
   still counts); and an item read as support that fills a single-valued slot with another name ("Its capital
   is Ottawa …" for "Toronto is the capital of Canada") says otherwise: its weights for the two sides trade places
   (``slot_conflicts``, :func:`~mermaid_verifier.agents.slots.bound_slot`), while one that holds the claimed
   year only as another thing's ("He received the 1921 Nobel Prize" for "born in 1921",
   :func:`~mermaid_verifier.agents.slots.dated_elsewhere`) supports nothing. The claim's support is its
   strongest supporting item, its refutation the strongest
   refuting item, with the second strongest, the sums, the evidence's topic coverage and its count as the
   :data:`FEATURES`.
3. **Label and confidence** (:func:`label_and_confidence`). **What the shipped files do**: ``data/judge_model.json``
   holds a fitted label model (multinomial logistic regression over the features, fitted on the evidence the
   pipeline retrieves for the training part's claims), so the label is its most probable one
   (:func:`fitted_label`); ``data/judge_confidence.json`` holds the confidence model, whose probability that the
   label is right is the confidence. Without them (a configuration of your own) the thresholds of
   ``data/judge_config.json`` decide (:func:`threshold_label`: NOT ENOUGH INFO under ``nei_threshold``, else the
   stronger side with refutation weighed by ``refute_weight``).
4. **Abstention** (:func:`verdict_of`): the best label is kept, with ``abstained`` set when the confidence is
   under ``abstain_below`` (fitted by ``mermaid-verifier calibrate``) or when strong, trusted evidence points both
   ways (``conflict_level``).

The verdict's ``side_strengths`` are the strongest trusted support and refutation (and 1 − the larger for NOT
ENOUGH INFO): strengths, not probabilities. Where an LLM's verdict meets this one (the LLM judge's check, the
cascade) is :mod:`mermaid_verifier.agents.reconcile`. ``scripts/evaluate_scoring.py`` fits the three files.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from pydantic import BaseModel, Field, model_validator

from mermaid_verifier.agents.quantities import found_in, quantities
from mermaid_verifier.agents.slots import BoundSlot, ClaimReader, SlotReading, bound_sides
from mermaid_verifier.models import Evidence, Label, Stance, Verdict
from mermaid_verifier.names import normalise_entity, without_disambiguator
from mermaid_verifier.weighing.scoring import ReliabilityConfig, assess_trust
from mermaid_verifier.weighing.scoring import side_probability as _side
from mermaid_verifier.weighing.topicality import (
    Topicality,
    entities_mentioned,
    titled_after_claim,
)

FEATURES = (
    "support",
    "refute",
    "support_2nd",
    "refute_2nd",
    "support_sum",
    "refute_sum",
    "coverage",
    "log_items",
    "no_evidence",
)
LABEL_ORDER = (Label.SUPPORTS.value, Label.REFUTES.value, Label.NOT_ENOUGH_INFO.value)


class JudgeModel(BaseModel):
    """A multinomial logistic regression over :data:`FEATURES`, fitted by ``scripts/evaluate_scoring.py``
    on the tuning parts only. Its class probabilities give the label and a confidence that is
    comparable across labels (the max-rule's NOT ENOUGH INFO confidence is not)."""

    features: tuple[str, ...]
    classes: tuple[str, ...]
    coef: list[list[float]]
    intercept: list[float]
    fitted_on: str = ""

    def probabilities(self, x: list[float]) -> dict[str, float]:
        logits = [b + sum(w * v for w, v in zip(row, x)) for row, b in zip(self.coef, self.intercept)]
        top = max(logits)
        exp = [math.exp(v - top) for v in logits]
        return {c: e / sum(exp) for c, e in zip(self.classes, exp)}


class ConfidenceModel(BaseModel):
    """How likely the threshold rule's label is right: a logistic regression over :data:`FEATURES`,
    the rule's label (one-hot, in :data:`LABEL_ORDER`) and the rule's own confidence, fitted on the
    tuning parts only (``scripts/evaluate_scoring.py``). The rule's raw confidence ranks claims badly
    for abstention (an all-neutral evidence set gives a NOT ENOUGH INFO "confidence" near 1 even when
    a swapped entity makes the claim false); this probability is what ``abstain_below`` is fitted on.

    With ``label_interactions`` each feature (and the rule's confidence) also enters once per label,
    multiplied by that label's indicator: what a feature says about being right depends on the label
    — low topic coverage makes a NOT ENOUGH INFO verdict likelier right and a SUPPORTS verdict less so.
    """

    features: tuple[str, ...]
    coef: list[float]
    intercept: float
    label_interactions: bool = False
    fitted_on: str = ""

    @model_validator(mode="after")
    def _one_weight_per_input(self) -> ConfidenceModel:
        expected = input_count(len(self.features), self.label_interactions)
        if len(self.coef) != expected:
            raise ValueError(
                f"a confidence model over {len(self.features)} features "
                f"{'with' if self.label_interactions else 'without'} label interactions needs "
                f"{expected} weights, got {len(self.coef)}"
            )
        return self

    def probability(self, features: tuple[float, ...], label: Label, rule_confidence: float) -> float:
        x = confidence_inputs(features, label.value, rule_confidence, self.label_interactions)
        logit = self.intercept + sum(w * v for w, v in zip(self.coef, x))
        return 1.0 / (1.0 + math.exp(-logit))


def input_count(features: int, label_interactions: bool) -> int:
    """How many inputs :func:`confidence_inputs` gives for this many judge features."""
    plain = features + len(LABEL_ORDER) + 1
    return plain + (len(LABEL_ORDER) * (features + 1) if label_interactions else 0)


def confidence_inputs(
    features: tuple[float, ...], label: str, rule_confidence: float, label_interactions: bool = False
) -> list[float]:
    """What a :class:`ConfidenceModel` reads, at fitting and at use: the judge features, the rule's
    label one-hot in :data:`LABEL_ORDER`, the rule's own confidence and — with ``label_interactions``
    — the features and the rule's confidence again for each label in :data:`LABEL_ORDER` (zero
    except under the rule's label)."""
    one_hot = [float(label == name) for name in LABEL_ORDER]
    per_label = [*features, rule_confidence]
    inputs = list(features) + one_hot + [rule_confidence]
    if label_interactions:
        inputs += [value * indicator for indicator in one_hot for value in per_label]
    return inputs


class JudgeConfig(BaseModel):
    nei_threshold: float = Field(0.30, ge=0, le=1)
    refute_weight: float = Field(0.80, gt=0, le=2)
    abstain_below: float = Field(0.50, ge=0, le=1)
    conflict_level: float = Field(0.60, ge=0, le=1, description="both weighted sides at least this strong = conflict")
    stop_threshold: float = Field(0.90, ge=0, le=1, description="executor stops once an item is this decisive")
    unstated_refutes: float = Field(
        1.0,
        ge=0,
        le=1,
        description="how much of an item's refutation counts when it does not speak to the claim's slot (its "
        "subject and a value for its relation): 1 counts it all, 0 reads it as not saying",
    )
    unstated_kinds: tuple[str, ...] = Field(
        (),
        description="the kinds of claim value (date, amount, count, place, person, org, name, thing) whose claims "
        "`unstated_refutes` applies to; empty: every claim",
    )
    other_relation_refutes: float = Field(
        1.0,
        ge=0,
        le=1,
        description="how much of an item's refutation of a claim's year counts when every year it gives is another "
        'relation\'s and it says nothing of the claim\'s ("first published in 1687" for "born in 1643"): 1 counts it all',
    )
    slot_conflicts: bool = Field(
        True,
        description="an item read as supporting that binds the claim's single-valued slot to another name "
        '("Its capital is Ottawa" for "Toronto is the capital of Canada") counts as refuting it; one that gives the '
        "claimed name as another owner's slot, or the claimed year only as another thing's, supports nothing",
    )
    use_reliability: bool = True
    topicality: Topicality = Field(
        default_factory=Topicality, description="how much items that are not about what the claim names may count"
    )
    model: JudgeModel | None = Field(None, description="when set, it decides the label; thresholds then only abstain")
    confidence_model: ConfidenceModel | None = Field(
        None,
        description="when set, the confidence is its probability that the label (the rule's or `model`'s) is right",
    )
    threshold_source: str = Field(
        "the bundled judge configuration", description="where abstain_below comes from (a `calibrate` file says which)"
    )

    @classmethod
    def bundled(cls) -> JudgeConfig:
        data = resources.files("mermaid_verifier.data")
        values = json.loads((data / "judge_config.json").read_text()) if (data / "judge_config.json").is_file() else {}
        config = cls.model_validate(
            {k: v for k, v in values.items() if k in cls.model_fields and k not in {"model", "confidence_model"}}
        )
        if (data / "judge_model.json").is_file():
            config = config.model_copy(
                update={"model": JudgeModel.model_validate_json((data / "judge_model.json").read_text())}
            )
        if (data / "judge_confidence.json").is_file():
            confidence = ConfidenceModel.model_validate_json((data / "judge_confidence.json").read_text())
            config = config.model_copy(update={"confidence_model": confidence})
        return config


def _weight(item: Evidence, config: JudgeConfig) -> float:
    return item.trust.reliability if (config.use_reliability and item.trust is not None) else 1.0


def topic_coverage(evidence: list[Evidence], entities: list[str], claim: str = "") -> float:
    """Share of the claim's topics that some evidence item is about (1.0 when it names none).

    The topics are the claim's entities plus the names of found pages the claim names ("Middle-earth"
    in "Middle-earth was created by J. K. Rowling", when the parser did not tag it): having found the
    claim's own page is not "nothing about the claim was found"."""
    if not evidence:
        return 0.0
    topics = {normalise_entity(e) for e in entities if normalise_entity(e)}
    covered = {normalise_entity(e) for item in evidence for e in entities_mentioned(item, entities)}
    if claim:
        named = {
            normalise_entity(without_disambiguator(item.title))
            for item in evidence
            if titled_after_claim(item, claim, [])
        }
        topics |= named
        covered |= named
    return len(covered & topics) / len(topics) if topics else 1.0


def assess(
    evidence: list[Evidence],
    reliability: ReliabilityConfig,
    config: JudgeConfig,
    claim: str,
    entities: list[str] | None,
    now: float,
) -> list[Evidence]:
    """Each item of the claim's evidence with its trust: the reliability terms (among these items)
    and its topicality, computed once and carried on the item for every judge and reader after."""
    trusted = assess_trust(evidence, reliability, now)
    weights = config.topicality.weights(trusted, claim, entities or [])
    return [
        item.model_copy(update={"trust": item.trust.model_copy(update={"topicality": weight})})
        for item, weight in zip(trusted, weights)
        if item.trust is not None
    ]


def topicality_of(evidence: list[Evidence], config: JudgeConfig, claim: str, entities: list[str] | None) -> list[float]:
    """The topicality :func:`assess` put on the items; for items not assessed that way (a caller that
    weighs reliability variants, or none), the same weights computed here."""
    carried = [item.trust.topicality if item.trust is not None else None for item in evidence]
    if all(weight is not None for weight in carried):
        return [float(weight) for weight in carried if weight is not None]
    return config.topicality.weights(evidence, claim, entities or [])


SLOT_READ_FROM = 0.05  # an item whose refuting weight is under this cannot move a verdict: its slot is not read


@functools.lru_cache(maxsize=256)
def _claim_reader(claim: str) -> ClaimReader:
    return ClaimReader.of(claim)


@functools.lru_cache(maxsize=8192)
def slot_reading(claim: str, title: str, text: str) -> SlotReading:
    """Whether the item (``title``, ``text``) speaks to ``claim``'s slot (the claim parsed once, each item once)."""
    return _claim_reader(claim).speaks(text, title)


@functools.lru_cache(maxsize=8192)
def value_kinds(claim: str) -> frozenset[str]:
    """The kinds of value ``claim`` gives for its relation ('date', 'amount', 'place', …; an entity's label left
    out)."""
    return frozenset(value.kind.split(":", 1)[0] for value in _claim_reader(claim).slot.values)


def _gated(claim: str, config: JudgeConfig) -> bool:
    """Whether ``unstated_refutes`` applies to ``claim`` (its value kinds among ``unstated_kinds``, when named)."""
    if not claim or config.unstated_refutes >= 1:
        return False
    return not config.unstated_kinds or bool(value_kinds(claim) & set(config.unstated_kinds))


@functools.lru_cache(maxsize=8192)
def other_relation(claim: str, title: str, text: str) -> str:
    """The other relation every year of the item is the date of, where it says nothing of ``claim``'s
    (:func:`~mermaid_verifier.agents.slots.dated_other_relation`; '' when none)."""
    return _claim_reader(claim).other_relation(text, title)


@functools.lru_cache(maxsize=8192)
def bound_slot(claim: str, title: str, text: str) -> BoundSlot | None:
    """What the item (``title``, ``text``) binds to ``claim``'s single-valued slot, if anything
    (:func:`~mermaid_verifier.agents.slots.bound_slot`)."""
    return _claim_reader(claim).bound(text, title)


def side_weights(
    evidence: list[Evidence], config: JudgeConfig, claim: str = "", entities: list[str] | None = None
) -> tuple[list[float], list[float]]:
    """Each item's weight for supporting and for refuting the claim: P(side) · reliability · topicality; an item
    that does not speak to the claim's slot refutes it ``unstated_refutes`` times as much (:func:`slot_reading`);
    with ``slot_conflicts``, one read as supporting that gives the claim's single-valued slot another name has
    its two weights swapped, and one that gives the claimed name as another owner's slot, or the claimed year as
    another thing's, supports nothing (:func:`bound_slot`)."""
    supports, refutes, _ = _weights_and_bindings(evidence, config, claim, entities)
    return supports, refutes


def _weights_and_bindings(
    evidence: list[Evidence], config: JudgeConfig, claim: str, entities: list[str] | None
) -> tuple[list[float], list[float], dict[int, BoundSlot]]:
    """:func:`side_weights`, with what each item whose weights the slot check changed binds to the claim's slot
    (by the item's index)."""
    topical = topicality_of(evidence, config, claim, entities)
    supports = [_side(e, Stance.SUPPORTS) * _weight(e, config) * t for e, t in zip(evidence, topical)]
    refutes = [_side(e, Stance.REFUTES) * _weight(e, config) * t for e, t in zip(evidence, topical)]
    if _gated(claim, config):
        refutes = [
            weight * config.unstated_refutes
            if weight >= SLOT_READ_FROM and not slot_reading(claim, item.title, item.text).states_slot
            else weight
            for item, weight in zip(evidence, refutes)
        ]
    if claim and config.other_relation_refutes < 1 and _claim_reader(claim).slot.dated:
        refutes = [
            weight * config.other_relation_refutes
            if weight >= SLOT_READ_FROM and weight > supported and other_relation(claim, item.title, item.text)
            else weight
            for item, weight, supported in zip(evidence, refutes, supports)
        ]
    bindings: dict[int, BoundSlot] = {}
    if claim and config.slot_conflicts:
        for i, item in enumerate(evidence):
            if supports[i] > refutes[i] and supports[i] >= SLOT_READ_FROM:
                bound = bound_slot(claim, item.title, item.text)
                supports[i], refutes[i] = bound_sides(supports[i], refutes[i], bound)
                if bound is not None:
                    bindings[i] = bound
    return supports, refutes, bindings


def _strongest(weights: list[float]) -> int | None:
    """The index of the heaviest item, when any weighs more than nothing."""
    best = max(range(len(weights)), key=lambda i: weights[i], default=None)
    return best if best is not None and weights[best] > 0 else None


def annotate(
    evidence: list[Evidence],
    config: JudgeConfig,
    claim: str = "",
    entities: list[str] | None = None,
    verdict: Verdict | None = None,
) -> list[Evidence]:
    """Each item's stance and score as the judge used it, best first.

    The judge reads an item's trusted, topical weight for each side (:func:`side_weights`), so that is
    what is shown: the side with the larger weight and that weight, or NEUTRAL when neither reaches
    ``nei_threshold`` (the level at which the rule lets one item settle a claim). The item a SUPPORTS /
    REFUTES ``verdict`` rests on (its strongest item for that side) shows that side whatever its weight,
    so the explanation never contradicts the verdict."""
    supports, refutes = side_weights(evidence, config, claim, entities)
    deciding, deciding_side = None, Stance.NEUTRAL
    if verdict is not None and verdict.label != Label.NOT_ENOUGH_INFO:
        deciding_side = Stance.SUPPORTS if verdict.label == Label.SUPPORTS else Stance.REFUTES
        deciding = _strongest(supports if deciding_side == Stance.SUPPORTS else refutes)
    annotated = []
    for index, (item, support, refute) in enumerate(zip(evidence, supports, refutes)):
        side, score = (Stance.SUPPORTS, support) if support >= refute else (Stance.REFUTES, refute)
        if index == deciding:
            side, score = deciding_side, support if deciding_side == Stance.SUPPORTS else refute
        elif score < config.nei_threshold:
            side = Stance.NEUTRAL
        annotated.append(item.model_copy(update={"stance": side, "score": round(score, 4)}))
    return sorted(annotated, key=lambda e: e.score or 0.0, reverse=True)


@dataclass(frozen=True)
class Weighing:
    """What the evidence says, before any threshold: the strongest trusted support and refutation,
    and how much of the claim's topic the evidence covers."""

    support: float
    refute: float
    coverage: float
    has_evidence: bool
    features: tuple[float, ...] = ()  # in the order of FEATURES
    support_title: str = ""  # the title of the strongest trusted supporting item, for the reason
    refute_title: str = ""
    refute_note: str = ""  # where the strongest refuting item gives the claim's single-valued slot another name
    support_note: str = ""  # where the slot check took the support of the item read as supporting most


def _top_two(values: list[float]) -> tuple[float, float]:
    ranked = sorted(values, reverse=True) + [0.0, 0.0]
    return ranked[0], ranked[1]


def weigh(
    evidence: list[Evidence], config: JudgeConfig, entities: list[str] | None = None, claim: str = ""
) -> Weighing:
    """An item counts for a side with P(side) · reliability · topicality (:func:`side_weights`)."""
    supports, refutes, bindings = _weights_and_bindings(evidence, config, claim, entities)
    (support, support_2nd), (refute, refute_2nd) = _top_two(supports), _top_two(refutes)
    coverage = topic_coverage(evidence, entities or [], claim)
    features = (
        support,
        refute,
        support_2nd,
        refute_2nd,
        min(sum(supports), 3.0),
        min(sum(refutes), 3.0),
        coverage,
        math.log1p(len(evidence)),
        float(not evidence),
    )
    strongest_refuting = _strongest(refutes)
    return Weighing(
        support,
        refute,
        coverage,
        bool(evidence),
        features,
        _title_of(evidence, _strongest(supports)),
        _title_of(evidence, strongest_refuting),
        _slot_note(evidence, strongest_refuting, bindings, claim),
        _support_note(evidence, bindings, claim),
    )


def _slot_note(evidence: list[Evidence], index: int | None, bindings: dict[int, BoundSlot], claim: str) -> str:
    """Why the strongest refuting item refutes, where the slot check turned it from support because it gives the
    claim's single-valued slot another name."""
    if index is None or (bound := bindings.get(index)) is None or not bound.value:
        return ""
    return f"{evidence[index].title or 'an item'} {_claim_reader(claim).bound_reason(bound)}"


def _support_note(evidence: list[Evidence], bindings: dict[int, BoundSlot], claim: str) -> str:
    """Why the item read as supporting most, of those whose support the slot check took, supports nothing: it holds
    the claimed year as another thing's ("the 1921 Nobel Prize" for "born in 1921") or the claimed name as
    another owner's slot."""
    taken = [i for i, bound in bindings.items() if not bound.value]
    if not taken:
        return ""
    index = max(taken, key=lambda i: _side(evidence[i], Stance.SUPPORTS))
    return f"{evidence[index].title or 'an item'} {_claim_reader(claim).bound_reason(bindings[index])}"


def _title_of(evidence: list[Evidence], index: int | None) -> str:
    return evidence[index].title if index is not None else ""


def label_and_confidence(w: Weighing, config: JudgeConfig) -> tuple[Label, float, bool]:
    """The label, its confidence, and whether strong trusted evidence points both ways (``conflict``).

    No evidence: NOT ENOUGH INFO at 0. Otherwise the label comes from the fitted label model when one is
    configured (:func:`fitted_label`; **the shipped files: ``data/judge_model.json``**), else from the thresholds
    (:func:`threshold_label`); then, with a confidence model (**shipped: ``data/judge_confidence.json``**), the
    confidence becomes its probability that the label is right, the label's own score one of its inputs."""
    conflict = w.support >= config.conflict_level and w.refute >= config.conflict_level
    if not w.has_evidence:
        return Label.NOT_ENOUGH_INFO, 0.0, False
    label, confidence = fitted_label(w, config) if config.model is not None else threshold_label(w, config)
    if config.confidence_model is not None:
        confidence = config.confidence_model.probability(w.features, label, confidence)
    return label, confidence, conflict


def fitted_label(w: Weighing, config: JudgeConfig) -> tuple[Label, float]:
    """The fitted label model's most probable label for the weighing's features, and that probability."""
    assert config.model is not None
    probabilities = config.model.probabilities(list(w.features))
    label = max(probabilities, key=lambda name: probabilities[name])
    return Label(label), probabilities[label]


def threshold_label(w: Weighing, config: JudgeConfig) -> tuple[Label, float]:
    """Without a fitted model: NOT ENOUGH INFO when neither side reaches ``nei_threshold`` (its score scaled by the
    evidence's topic coverage), else the stronger side (refutation times ``refute_weight``)."""
    weighted_refute = config.refute_weight * w.refute
    best = max(w.support, weighted_refute)
    if best < config.nei_threshold:
        return Label.NOT_ENOUGH_INFO, (1.0 - best) * w.coverage
    if w.support >= weighted_refute:
        return Label.SUPPORTS, w.support
    return Label.REFUTES, w.refute


THIN_EVIDENCE = 3  # fewer items read than this is "too little evidence" in an abstention's reason
OTHER_SUBJECTS = 0.5  # topic coverage under this: the evidence is about other subjects


def why_abstained(w: Weighing, evidence: list[Evidence], claim: str) -> str:
    """Why a verdict that abstains on its confidence could not be trusted, in words a reader of it understands,
    the most telling cause first: the claim's number or date is in none of the evidence, the evidence is about
    other subjects, too little of it was read, or what was read is too weak either way."""
    if not w.has_evidence:
        return "no evidence was found"
    read = [quantities(e.text) for e in evidence]
    missing = [q.text for q in quantities(claim) if not any(found_in(q, found) for found in read)]
    if missing:
        what = "number or date" if len(missing) == 1 else "numbers or dates"
        return (
            f"the claim's {what} {', '.join(repr(m) for m in missing)} is in none of the {len(evidence)} item(s) read"
        )
    if w.coverage < OTHER_SUBJECTS:
        return f"the evidence read is about other subjects (it names {w.coverage:.0%} of what the claim is about)"
    if len(evidence) < THIN_EVIDENCE:
        return f"too little evidence was read ({len(evidence)} item(s))"
    return f"the evidence read is too weak either way (best support {w.support:.2f}, refutation {w.refute:.2f})"


def verdict_of(w: Weighing, config: JudgeConfig, why: Callable[[], str] | None = None) -> Verdict:
    """The verdict of a weighing: label and confidence (:func:`label_and_confidence`), the reason in words, and
    the abstention: when trusted evidence conflicts, or the confidence is under ``abstain_below`` (``why()``, asked
    only then: :func:`why_abstained`, said first)."""
    label, confidence, conflict = label_and_confidence(w, config)
    support_item = f" ({w.support_title})" if w.support_title else ""
    refute_item = f" ({w.refute_title})" if w.refute_title else ""
    if not w.has_evidence:
        reason = "no evidence was found"
    elif config.model is not None:
        reason = (
            f"{label.value} at {confidence:.2f} by the fitted judge (best trusted support {w.support:.2f}"
            f"{support_item}, refutation {w.refute:.2f}{refute_item}, topic coverage {w.coverage:.0%})"
        )
    elif label == Label.NOT_ENOUGH_INFO:
        reason = (
            f"no item settles the claim (best trusted support {w.support:.2f}, refutation {w.refute:.2f}; "
            f"evidence covers {w.coverage:.0%} of the claim's entities)"
        )
    elif label == Label.SUPPORTS:
        reason = f"strongest trusted supporting item at {w.support:.2f}{support_item}"
    else:
        reason = f"strongest trusted refuting item at {w.refute:.2f}{refute_item}"
    if label == Label.REFUTES and w.refute_note:
        reason += f"; {w.refute_note}"
    if label != Label.SUPPORTS and w.support_note:
        reason += f"; not support: {w.support_note}"
    if w.has_evidence and config.confidence_model is not None:
        reason += f"; confidence model: right with probability {confidence:.2f}"
    abstained = conflict or confidence < config.abstain_below
    if conflict:
        both = (
            f"{w.support_title or 'an item'} supports it, {w.refute_title or 'another'} says otherwise"
            if w.support_title != w.refute_title or not w.support_title
            else f"one item of {w.support_title} supports it, another says otherwise"
        )
        reason += (
            f"; abstained: the evidence points both ways ({both}; strong trusted support {w.support:.2f} and "
            f"refutation {w.refute:.2f})"
        )
    elif abstained:
        because = f"{why()}; " if why is not None else ""
        reason += f"; abstained: {because}confidence {confidence:.2f} is below {config.abstain_below:.2f}"
    best = max(w.support, config.refute_weight * w.refute)
    return Verdict(
        label=label,
        confidence=round(min(max(confidence, 0.0), 1.0), 4),
        abstain_below=config.abstain_below,
        threshold_source=config.threshold_source,
        abstained=abstained,
        conflict=conflict,
        reason=reason,
        side_strengths={
            Label.SUPPORTS.value: round(w.support, 4),
            Label.REFUTES.value: round(w.refute, 4),
            Label.NOT_ENOUGH_INFO.value: round(1.0 - best, 4),
        },
    )


def decide(
    evidence: list[Evidence], config: JudgeConfig, entities: list[str] | None = None, claim: str = ""
) -> Verdict:
    """The verdict for a claim from its stance-scored (and trust-assessed) evidence."""
    w = weigh(evidence, config, entities, claim)
    return verdict_of(w, config, functools.partial(why_abstained, w, evidence, claim))


class OfflineJudge:
    """:func:`decide` behind the call shape every judge shares (the LLM judge has the same method)."""

    backend = "offline"

    def __init__(self, config: JudgeConfig):
        self.config = config

    async def judge(self, claim: str, evidence: list[Evidence], entities: list[str] | None = None) -> Verdict:
        """The verdict from assessed evidence (:func:`assess` runs first)."""
        return decide(evidence, self.config, entities, claim)


def abstention_names_nothing() -> Verdict:
    """The verdict for a claim that names nothing to look up ("claim one"): evidence found for its words
    would be about something else, so nothing is searched."""
    return Verdict(
        label=Label.NOT_ENOUGH_INFO,
        confidence=0.0,
        abstained=True,
        reason="abstained: the claim names nothing that can be looked up (no named entity, and no subject "
        "other than a pronoun); say who or what it is about",
    )


def abstention_not_checkworthy(why: str) -> Verdict:
    """The verdict for a claim that states nothing to check (an opinion, a question, the speaker's own view), by
    the rule ``check`` leaves such a sentence of a text out by: nothing is searched."""
    return Verdict(
        label=Label.NOT_ENOUGH_INFO,
        confidence=0.0,
        abstained=True,
        not_checkworthy=why,
        reason=f"abstained: {why}; nothing was searched (check leaves such a sentence out of a text)",
    )


def abstention_without_decomposition(reason: str) -> Verdict:
    """The verdict for a claim that could not be decomposed: nothing was searched."""
    return Verdict(
        label=Label.NOT_ENOUGH_INFO,
        confidence=0.0,
        abstained=True,
        reason=f"abstained: the claim could not be decomposed ({reason})",
    )
