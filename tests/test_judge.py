"""The judge: reliability of each item, weighing, NOT ENOUGH INFO, abstention (hand-computed values)."""

import math

import pytest

from mermaid_verifier.agents.judge import (
    FEATURES,
    JudgeConfig,
    JudgeModel,
    annotate,
    assess,
    decide,
    topic_coverage,
)
from mermaid_verifier.models import Evidence, Label, SourceKind, Stance
from mermaid_verifier.weighing.scoring import SECONDS_PER_DAY, ReliabilityConfig, assess_trust

CONFIG = JudgeConfig(nei_threshold=0.30, refute_weight=0.80, abstain_below=0.50, conflict_level=0.60)
RAW = CONFIG.model_copy(update={"use_reliability": False})
NOW = 1_800_000_000.0


def item(i, supports, refutes, kind=SourceKind.LOCAL_CORPUS, age_days=0.0, text="…", title=None):
    return Evidence(
        id=f"e{i}",
        source="test",
        source_kind=kind,
        title=title or f"T{i}",
        text=text,
        retrieved_at=NOW - age_days * SECONDS_PER_DAY,
        stance_probabilities={"supports": supports, "refutes": refutes, "neutral": 1 - supports - refutes},
    )


def trusted(*items):
    return assess_trust(list(items), ReliabilityConfig(), now=NOW)


def test_raw_rule_strong_support_wins():
    verdict = decide([item(1, 0.95, 0.01), item(2, 0.05, 0.20)], RAW, ["T1"])
    assert verdict.label == Label.SUPPORTS and verdict.confidence == pytest.approx(0.95) and not verdict.abstained


def test_raw_rule_weights_refutation_before_comparison():
    assert decide([item(1, 0.60, 0.0), item(2, 0.0, 0.70)], RAW).label == Label.SUPPORTS  # 0.8*0.70 = 0.56 < 0.60
    verdict = decide([item(1, 0.60, 0.0), item(2, 0.0, 0.90)], RAW)  # 0.8*0.90 = 0.72 > 0.60
    assert verdict.label == Label.REFUTES and verdict.confidence == pytest.approx(0.90)


def test_reliability_scales_each_side():
    # one fresh local-corpus item, no neighbours: C = 0.45*0.70 + 0.40*1 + 0.15*0.5 = 0.79
    evidence = trusted(item(1, 0.90, 0.0))
    assert evidence[0].trust.reliability == pytest.approx(0.79)
    verdict = decide(evidence, CONFIG, ["T1"])
    assert verdict.label == Label.SUPPORTS and verdict.confidence == pytest.approx(0.90 * 0.79, abs=1e-4)


def test_not_enough_info_confidence_scales_with_topic_coverage():
    weak = [item(1, 0.20, 0.10, text="She wrote notes.", title="Ada Lovelace")]
    covered = decide(weak, RAW, ["Ada Lovelace"])
    assert (
        covered.label == Label.NOT_ENOUGH_INFO and covered.confidence == pytest.approx(0.80) and not covered.abstained
    )
    half = decide(weak, RAW, ["Ada Lovelace", "Charles Babbage"])
    assert half.confidence == pytest.approx(0.40) and half.abstained  # 0.80 * 1/2 < 0.50
    assert topic_coverage([], ["x"]) == 0.0 and topic_coverage(weak, []) == 1.0


def test_a_found_page_the_claim_names_counts_as_covered_topic():
    # the parser tagged only "J. K. Rowling"; the Middle-earth page is still about the claim
    claim = "Middle-earth was created by J. K. Rowling."
    page = item(
        1, 0.02, 0.10, title="Middle-earth", text="Middle-earth is the fictional setting of Tolkien's legendarium."
    )
    storm = item(2, 0.02, 0.02, title="Tropical cyclone", text="A tropical cyclone is a storm system.")
    assert topic_coverage([page, storm], ["J. K. Rowling"], claim) == pytest.approx(
        0.5
    )  # 1 of {J. K. Rowling, middle-earth}
    assert topic_coverage([page, storm], ["J. K. Rowling"]) == 0.0  # without the claim: entities only
    assert topic_coverage([storm], ["J. K. Rowling"], claim) == 0.0  # nothing found is about the claim
    # a page named by an entity is not counted twice; a disambiguator is not part of the name
    film = item(3, 0.02, 0.02, title="Soul Food (film)", text="Soul Food is a 1997 film.")
    assert topic_coverage(
        [film], ["Soul Food", "Vanessa Williams"], "Soul Food starred Vanessa Williams."
    ) == pytest.approx(0.5)
    assert topic_coverage([film], [], "Soul Food is a film.") == 1.0


def test_a_page_about_someone_else_does_not_settle_the_claim():
    claim = "Marcus Bentley is a director."
    about_him = item(1, 0.02, 0.10, title="Marcus Bentley", text="Marcus Bentley is a British actor.")
    other_director = item(2, 0.05, 0.90, title="Tim Hill (director)", text="Tim Hill is an American film director.")
    verdict = decide([about_him, other_director], RAW, ["Marcus Bentley"], claim)
    assert verdict.label == Label.NOT_ENOUGH_INFO  # Tim Hill's page counts 0.9 · 0 (off topic)
    ignoring_topic = RAW.model_copy(update={"topicality": RAW.topicality.model_copy(update={"enabled": False})})
    assert decide([about_him, other_director], ignoring_topic, ["Marcus Bentley"], claim).label == Label.REFUTES


def test_an_item_that_only_mentions_the_entity_counts_half():
    claim = "Damon Albarn released a solo album."
    mention = item(1, 0.80, 0.0, title="Blur (band)", text="Damon Albarn later released a solo album.")
    verdict = decide([mention], RAW, ["Damon Albarn"], claim)
    assert verdict.label == Label.SUPPORTS and verdict.confidence == pytest.approx(0.40)  # 0.80 · 0.5
    ranked = annotate(trusted(mention), CONFIG, claim, ["Damon Albarn"])
    assert ranked[0].score == pytest.approx(0.80 * 0.79 * 0.5, abs=1e-4)


def test_trust_and_topicality_are_assessed_once_and_carried_on_each_item():
    claim = "Damon Albarn released a solo album."
    mention = item(1, 0.80, 0.0, title="Blur (band)", text="Damon Albarn later released a solo album.")
    [assessed] = assess([mention], ReliabilityConfig(), CONFIG, claim, ["Damon Albarn"], NOW)
    assert assessed.trust.topicality == 0.5 and assessed.trust.reliability == pytest.approx(0.79)
    assert decide([assessed], CONFIG, ["Damon Albarn"], claim).confidence == pytest.approx(0.80 * 0.79 * 0.5, abs=1e-4)
    # what the judge and the ranking read is what the item carries, not a second computation
    carried = assessed.model_copy(update={"trust": assessed.trust.model_copy(update={"topicality": 1.0})})
    assert decide([carried], CONFIG, ["Damon Albarn"], claim).confidence == pytest.approx(0.80 * 0.79, abs=1e-4)
    assert annotate([carried], CONFIG, claim, ["Damon Albarn"])[0].score == pytest.approx(0.80 * 0.79, abs=1e-4)


def test_no_evidence_abstains_with_not_enough_info():
    verdict = decide([], CONFIG, ["Somebody"])
    assert verdict.label == Label.NOT_ENOUGH_INFO and verdict.abstained and verdict.confidence == 0.0


def test_low_confidence_abstains_but_keeps_best_label():
    verdict = decide([item(1, 0.40, 0.0)], RAW)
    assert verdict.label == Label.SUPPORTS and verdict.abstained and "below 0.50" in verdict.reason


def test_strong_conflict_abstains_naming_both_sides():
    verdict = decide([item(1, 0.92, 0.0, title="Ulm"), item(2, 0.0, 0.85, title="Munich")], RAW)
    assert verdict.abstained and verdict.conflict
    assert "abstained: the evidence points both ways (Ulm supports it, Munich says otherwise;" in verdict.reason
    one_page = decide([item(1, 0.92, 0.0, title="Ulm"), item(2, 0.0, 0.85, title="Ulm")], RAW)
    assert "(one item of Ulm supports it, another says otherwise;" in one_page.reason


EIFFEL = "The Eiffel Tower is 500 metres tall."


def test_an_abstention_says_first_that_the_claims_number_is_in_none_of_the_evidence():
    evidence = [item(1, 0.45, 0.0, text="The Eiffel Tower is 330 metres tall.", title="Eiffel Tower")]
    verdict = decide(evidence, RAW, ["Eiffel Tower"], EIFFEL)
    assert verdict.abstained
    assert "abstained: the claim's number or date '500 metres' is in none of the 1 item(s) read;" in verdict.reason
    assert verdict.reason.endswith("confidence 0.45 is below 0.50")
    rounded = [item(1, 0.45, 0.0, text="The tower is 500.2 m tall.", title="Eiffel Tower")]
    assert "is in none" not in decide(rounded, RAW, ["Eiffel Tower"], EIFFEL).reason  # a quantity, not a string


def test_an_abstention_says_the_evidence_is_about_other_subjects_or_too_little_or_too_weak():
    def why(evidence):
        verdict = decide(evidence, RAW, ["Eiffel Tower"], "The Eiffel Tower is in Paris.")
        assert verdict.abstained
        return verdict.reason.split("; abstained: ")[1]

    elsewhere = [item(i, 0.3, 0.1, text="Lyon lies on the Rhône.", title="Lyon") for i in range(4)]
    assert why(elsewhere).startswith("the evidence read is about other subjects (it names 0% of what the claim is")
    about = [item(i, 0.3, 0.1, text="The Eiffel Tower is a landmark.", title="Eiffel Tower") for i in range(4)]
    assert why(about[:2]).startswith("too little evidence was read (2 item(s));")
    assert why(about).startswith("the evidence read is too weak either way (best support 0.30, refutation 0.10);")


def test_annotate_sets_stance_and_orders_by_trusted_score():
    ranked = annotate([item(1, 0.1, 0.2), item(2, 0.05, 0.9), item(3, 0.7, 0.1)], RAW)
    assert [e.id for e in ranked] == ["e2", "e3", "e1"]
    assert [e.stance for e in ranked] == [Stance.REFUTES, Stance.SUPPORTS, Stance.NEUTRAL]
    assert ranked[0].score == pytest.approx(0.9)


def test_a_fitted_judge_model_decides_the_label_and_its_probability_is_the_confidence():
    import math

    from mermaid_verifier.agents.judge import FEATURES, JudgeModel

    # logits: S = 2*support, R = 2*refute, NEI = 1 (bias); everything else weighted 0
    zero = [0.0] * len(FEATURES)
    model = JudgeModel(
        features=FEATURES,
        classes=("NOT ENOUGH INFO", "REFUTES", "SUPPORTS"),
        coef=[zero, [0.0, 2.0] + zero[2:], [2.0] + zero[1:]],
        intercept=[1.0, 0.0, 0.0],
    )
    config = RAW.model_copy(update={"model": model})
    verdict = decide([item(1, 0.90, 0.05, text="She wrote notes.", title="Ada Lovelace")], config, ["Ada Lovelace"])
    expected = math.exp(1.8) / (math.exp(1.0) + math.exp(0.1) + math.exp(1.8))  # softmax of (1, 0.1, 1.8)
    assert verdict.label == Label.SUPPORTS and verdict.confidence == pytest.approx(expected, abs=1e-4)
    assert "fitted judge" in verdict.reason


def _confidence_model(bias, on_refutes=0.0, on_rule_confidence=0.0):
    from mermaid_verifier.agents.judge import FEATURES, ConfidenceModel

    # inputs: FEATURES, then the rule's label one-hot (S, R, NEI), then the rule's confidence
    coef = [0.0] * len(FEATURES) + [0.0, on_refutes, 0.0] + [on_rule_confidence]
    return ConfidenceModel(features=FEATURES, coef=coef, intercept=bias)


def test_a_confidence_model_keeps_the_rules_label_and_replaces_its_confidence():
    import math

    config = RAW.model_copy(
        update={"confidence_model": _confidence_model(-1.0, on_refutes=-2.0, on_rule_confidence=4.0)}
    )
    supported = decide([item(1, 0.95, 0.01)], config, ["T1"])
    # SUPPORTS at rule confidence 0.95: logit = -1 + 4 * 0.95 = 2.8
    assert supported.label == Label.SUPPORTS
    assert supported.confidence == pytest.approx(1 / (1 + math.exp(-2.8)), abs=1e-4) and not supported.abstained
    assert "right with probability 0.94" in supported.reason
    refuted = decide([item(1, 0.0, 0.90)], config)
    # REFUTES at 0.90: logit = -1 - 2 + 4 * 0.90 = 0.6 → 0.646; the same rule confidence, less trusted
    assert refuted.label == Label.REFUTES and refuted.confidence == pytest.approx(1 / (1 + math.exp(-0.6)), abs=1e-4)


def test_a_confidence_model_can_make_a_confident_looking_rule_abstain():
    # NOT ENOUGH INFO at rule confidence 0.80 (see the coverage test), but the model trusts that little
    config = RAW.model_copy(update={"confidence_model": _confidence_model(-3.0, on_rule_confidence=1.0)})
    verdict = decide([item(1, 0.20, 0.10, text="Ada Lovelace wrote notes.")], config, ["Ada Lovelace"])
    assert verdict.label == Label.NOT_ENOUGH_INFO and verdict.abstained and verdict.confidence < 0.2


def test_without_evidence_the_confidence_model_is_not_asked():
    config = RAW.model_copy(update={"confidence_model": _confidence_model(10.0)})
    verdict = decide([], config, ["Somebody"])
    assert verdict.confidence == 0.0 and verdict.abstained


def test_label_interactions_repeat_the_features_and_rule_confidence_under_the_rules_label():
    from mermaid_verifier.agents.judge import confidence_inputs, input_count

    plain = confidence_inputs((0.5, 2.0), "REFUTES", 0.7)
    assert plain == [0.5, 2.0, 0.0, 1.0, 0.0, 0.7]  # features, one-hot (S, R, NEI), rule confidence
    assert confidence_inputs((0.5, 2.0), "REFUTES", 0.7, label_interactions=True) == plain + [
        0.0,
        0.0,
        0.0,  # under SUPPORTS
        0.5,
        2.0,
        0.7,  # under REFUTES: the features and the rule's confidence
        0.0,
        0.0,
        0.0,
    ]  # under NOT ENOUGH INFO
    assert input_count(2, False) == 6 and input_count(2, True) == 15


def test_a_confidence_model_with_label_interactions_weighs_a_feature_per_label():
    import math

    from mermaid_verifier.agents.judge import FEATURES, ConfidenceModel, input_count

    n = len(FEATURES)
    coverage = FEATURES.index("coverage")
    coef = [0.0] * input_count(n, True)
    first_interaction = n + 3 + 1
    coef[first_interaction + 2 * (n + 1) + coverage] = -2.0  # under NOT ENOUGH INFO, coverage lowers the odds
    coef[first_interaction + coverage] = 3.0  # under SUPPORTS it raises them
    model = ConfidenceModel(features=FEATURES, coef=coef, intercept=1.0, label_interactions=True)
    features = tuple(0.5 if name == "coverage" else 0.0 for name in FEATURES)
    assert model.probability(features, Label.NOT_ENOUGH_INFO, 0.9) == pytest.approx(1 / (1 + math.exp(-(1.0 - 1.0))))
    assert model.probability(features, Label.SUPPORTS, 0.9) == pytest.approx(1 / (1 + math.exp(-(1.0 + 1.5))))
    assert model.probability(features, Label.REFUTES, 0.9) == pytest.approx(1 / (1 + math.exp(-1.0)))
    with pytest.raises(ValueError, match="with label interactions needs"):
        ConfidenceModel(features=FEATURES, coef=[0.0] * input_count(n, False), intercept=0.0, label_interactions=True)


def test_a_confidence_model_of_the_wrong_shape_is_refused():
    from pydantic import ValidationError

    from mermaid_verifier.agents.judge import FEATURES, ConfidenceModel

    with pytest.raises(ValidationError, match="needs 13 weights, got 1"):
        ConfidenceModel(features=FEATURES, coef=[1.0], intercept=0.0)


def test_the_bundled_judge_decides_with_a_model_fitted_on_training_claims_and_its_confidence_model():
    bundled = JudgeConfig.bundled()
    assert bundled.model is not None and bundled.confidence_model is not None
    assert "train-part claims" in bundled.model.fitted_on and "tuning claims" in bundled.confidence_model.fitted_on
    evidence = [item(1, 0.95, 0.01, text="Ada Lovelace wrote notes.")]
    verdict = decide(evidence, bundled, ["Ada Lovelace"])
    model_only = decide(evidence, bundled.model_copy(update={"confidence_model": None}), ["Ada Lovelace"])
    assert verdict.label == model_only.label == Label.SUPPORTS
    assert "fitted judge" in verdict.reason and "confidence model" in verdict.reason
    assert verdict.confidence != model_only.confidence
    refuting = decide([item(1, 0.01, 0.95, text="Ada Lovelace wrote notes.")], bundled, ["Ada Lovelace"])
    assert refuting.label == Label.REFUTES


def test_a_confidence_model_also_scores_a_fitted_judges_label():
    model = JudgeModel(
        features=FEATURES,
        classes=("NOT ENOUGH INFO", "REFUTES", "SUPPORTS"),
        coef=[[0.0] * len(FEATURES), [0.0] * len(FEATURES), [5.0] + [0.0] * (len(FEATURES) - 1)],
        intercept=[0.0, 0.0, 0.0],
    )
    fitted = RAW.model_copy(update={"model": model})
    evidence = [item(1, 0.9, 0.01)]
    alone = decide(evidence, fitted)
    doubted = decide(evidence, fitted.model_copy(update={"confidence_model": _confidence_model(-3.0)}))
    assert alone.label == doubted.label == Label.SUPPORTS
    assert doubted.confidence == pytest.approx(1 / (1 + math.exp(3.0)), abs=1e-4)
    assert doubted.confidence < alone.confidence


def test_the_explanation_matches_the_verdict():
    """An item mostly read as 'does not settle' (P(neutral) 0.55) but with P(refutes) 0.38 is what a
    REFUTES verdict rests on: it is shown as refuting, and the reason names it."""
    import math

    evidence = [
        item(1, 0.02, 0.38, title="Rome"),
        item(2, 0.05, 0.02, title="Eiffel Tower"),
        item(3, 0.01, 0.03, title="Paris"),
    ]
    # a fitted judge that answers REFUTES whenever refutation is the stronger side
    model = JudgeModel(
        features=FEATURES,
        classes=(Label.SUPPORTS.value, Label.REFUTES.value, Label.NOT_ENOUGH_INFO.value),
        coef=[[5.0] + [0.0] * 8, [0.0, 5.0] + [0.0] * 7, [0.0] * 9],
        intercept=[0.0, 0.0, math.log(3.0)],
    )
    fitted = RAW.model_copy(update={"model": model})
    verdict = decide(evidence, fitted)
    assert verdict.label == Label.REFUTES and "(Rome)" in verdict.reason
    ranked = annotate(evidence, fitted, verdict=verdict)
    assert ranked[0].title == "Rome" and ranked[0].stance == Stance.REFUTES and ranked[0].score == pytest.approx(0.38)
    assert [e.stance for e in ranked[1:]] == [Stance.NEUTRAL, Stance.NEUTRAL]  # below the level that settles


def test_an_item_that_weighs_nothing_is_never_shown_taking_a_side():
    off_topic = item(1, 0.0, 0.95, title="Tim Hill (director)", text="Tim Hill is an American director.")
    # beside an item about the claim's subject, a page about someone else weighs 0 (topicality)
    on_topic = item(2, 0.1, 0.0, title="Marcus Bentley", text="Marcus Bentley is a British actor.")
    ranked = annotate([off_topic, on_topic], RAW, "Marcus Bentley is a director.", ["Marcus Bentley"])
    hill = next(e for e in ranked if e.id == "e1")
    assert hill.score == 0.0 and hill.stance == Stance.NEUTRAL


def test_a_refutation_from_a_passage_silent_on_the_claims_slot_counts_as_configured():
    """unstated_refutes: how much a reading of "refutes" counts from a passage that says something else about the
    subject ("headcount and headquarters" against "listed on the Oslo Stock Exchange") rather than another value
    for the claim's own slot (born in Salzburg against born in London)."""
    from mermaid_verifier.agents.judge import side_weights

    claim_a = "Mozart was born in London."
    other_fact = item(0, 0.0, 0.9, text="Mozart was survived by his wife Constanze and two sons.", title="Mozart")
    same_slot = item(1, 0.0, 0.9, text="Mozart was born in Salzburg.", title="Mozart")
    counted = RAW.model_copy(update={"unstated_refutes": 1.0})
    gated = RAW.model_copy(update={"unstated_refutes": 0.0})
    assert side_weights([other_fact, same_slot], counted, claim_a)[1] == pytest.approx([0.9, 0.9])
    assert side_weights([other_fact, same_slot], gated, claim_a)[1] == pytest.approx([0.0, 0.9])
    assert side_weights([other_fact], gated, claim_a)[0] == [0.0]  # support is never gated


def test_the_unstated_gate_may_be_kept_to_claims_giving_some_kinds_of_value():
    """unstated_kinds: the gate applies to a dated claim ("born in 1879" against "the 1921 Nobel Prize") and leaves a
    claim giving a place as read."""
    from mermaid_verifier.agents.judge import side_weights

    nobel = item(0, 0.0, 0.9, text="He received the 1921 Nobel Prize in Physics.", title="Albert Einstein")
    dates_only = RAW.model_copy(update={"unstated_refutes": 0.0, "unstated_kinds": ("date",)})
    assert side_weights([nobel], dates_only, "Albert Einstein was born in 1879.")[1] == [0.0]
    assert side_weights([nobel], dates_only, "Albert Einstein was born in Ulm.")[1] == pytest.approx([0.9])


def test_support_from_a_passage_giving_the_single_valued_slot_another_name_counts_as_refutation():
    """'Its capital is Ottawa …' read as supporting 'Toronto is the capital of Canada' (the claimed city is in the
    passage, as a largest city): with slot_conflicts it refutes, and the verdict says why; a passage giving the
    claimed city as another owner's capital supports nothing."""
    from mermaid_verifier.agents.judge import side_weights

    claim = "Toronto is the capital of Canada."
    canada = item(0, 0.95, 0.02, title="Canada", text="Its capital is Ottawa and its three largest metropolitan "
                  "areas are Toronto, Montreal, and Vancouver.")  # fmt: skip
    ontario = item(1, 0.84, 0.02, title="Toronto", text="Toronto is the capital city of the province of Ontario.")
    off = RAW.model_copy(update={"slot_conflicts": False})
    supports, refutes = side_weights([canada, ontario], off, claim)
    assert supports == pytest.approx([0.95, 0.84]) and refutes == pytest.approx([0.02, 0.02])
    supports, refutes = side_weights([canada, ontario], RAW, claim)
    assert supports == pytest.approx([0.02, 0.0]) and refutes == pytest.approx([0.95, 0.02])
    verdict = decide([canada, ontario], RAW, ["Toronto", "Canada"], claim)
    assert verdict.label == Label.REFUTES
    assert "Canada gives the capital of Canada as 'Ottawa', not 'Toronto'" in verdict.reason
    assert decide([canada, ontario], off, ["Toronto", "Canada"], claim).label == Label.SUPPORTS
    ottawa = "Ottawa is the capital of Canada."
    assert side_weights([canada], RAW, ottawa)[0] == pytest.approx([0.95])  # the claimed name: support


def test_the_slot_note_names_only_an_item_the_slot_check_turned():
    """The reason cites a passage's other name for the slot only where the judge read that passage as refuting
    because of it: one too weakly read to be checked keeps its reading, and no note."""
    from mermaid_verifier.agents.judge import weigh

    claim = "Toronto is the capital of Canada."
    text = "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."
    turned = weigh([item(0, 0.95, 0.02, title="Canada", text=text)], RAW, ["Toronto", "Canada"], claim)
    assert turned.refute == pytest.approx(0.95)
    assert turned.refute_note == "Canada gives the capital of Canada as 'Ottawa', not 'Toronto'"
    weak = weigh([item(0, 0.04, 0.01, title="Canada", text=text)], RAW, ["Toronto", "Canada"], claim)
    assert weak.support == pytest.approx(0.04) and weak.refute == pytest.approx(0.01)  # not checked: as read
    assert weak.refute_note == ""


def test_support_from_a_passage_holding_the_claimed_year_as_another_things_counts_for_nothing():
    """'He received the 1921 Nobel Prize' read as supporting 'Albert Einstein was born in 1921': with slot_conflicts
    it supports nothing and the reason says why; the same passage keeps its support for a claim of the prize."""
    from mermaid_verifier.agents.judge import side_weights

    claim = "Albert Einstein was born in 1921."
    nobel = item(0, 0.9, 0.05, title="Albert Einstein", text="He received the 1921 Nobel Prize in Physics.")
    off = RAW.model_copy(update={"slot_conflicts": False})
    assert side_weights([nobel], off, claim) == (pytest.approx([0.9]), pytest.approx([0.05]))
    assert side_weights([nobel], RAW, claim) == (pytest.approx([0.0]), pytest.approx([0.05]))
    verdict = decide([nobel], RAW, ["Albert Einstein"], claim)
    assert verdict.label == Label.NOT_ENOUGH_INFO
    assert (
        "not support: Albert Einstein gives '1921' as the year of 'the 1921 Nobel Prize', not for 'was born in'"
        in verdict.reason
    )
    assert decide([nobel], off, ["Albert Einstein"], claim).label == Label.SUPPORTS
    prize = "Albert Einstein received the Nobel Prize in 1921."
    assert side_weights([nobel], RAW, prize)[0] == pytest.approx([0.9])


def test_a_refutation_from_another_relations_year_counts_as_configured():
    """other_relation_refutes: 'Principia, first published in 1687' read as refuting 'Isaac Newton was born in 1643'
    counts that much; a passage giving the claim's own relation another year refutes in full."""
    from mermaid_verifier.agents.judge import side_weights

    claim = "Isaac Newton was born in 1643."
    principia = item(0, 0.02, 0.9, title="Isaac Newton", text="Principia Mathematica was first published in 1687.")
    born = item(1, 0.02, 0.9, title="Isaac Newton", text="Isaac Newton was born on 25 December 1642.")
    counted = RAW.model_copy(update={"other_relation_refutes": 1.0})
    gated = RAW.model_copy(update={"other_relation_refutes": 0.0})
    assert side_weights([principia, born], counted, claim)[1] == pytest.approx([0.9, 0.9])
    assert side_weights([principia, born], gated, claim)[1] == pytest.approx([0.0, 0.9])
    assert side_weights([principia], gated, "Isaac Newton was born in Woolsthorpe.")[1] == pytest.approx([0.9])
