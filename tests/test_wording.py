"""How much of a claim's own wording an item repeats, and the judge's reading features built on it."""

import math

import pytest

from mermaid_verifier.agents.judge import (
    CONFIDENCE_FEATURES,
    FEATURES,
    READING_FEATURES,
    ConfidenceModel,
    JudgeConfig,
    decide,
    input_count,
    weigh,
)
from mermaid_verifier.models import Evidence, Label, SourceKind
from mermaid_verifier.wording import claim_detail, content_words, shared_share

CLAIM = "Tom Hanks starred in Titanic in 1997."
ENTITIES = ["Tom Hanks", "Titanic", "1997"]


def item(i, supports, refutes, text):
    return Evidence(
        id=f"e{i}",
        source="test",
        source_kind=SourceKind.LOCAL_CORPUS,
        title="Tom Hanks",
        text=text,
        stance_probabilities={"supports": supports, "refutes": refutes, "neutral": 1 - supports - refutes},
    )


def test_content_words_are_stemmed_lower_case_and_without_stopwords():
    assert content_words("He STARRED in the films -LRB-1997-RRB-") == {"he", "star", "film", "1997"}


def test_the_claim_detail_leaves_out_the_words_of_its_entities():
    assert claim_detail(CLAIM, ["Tom Hanks"]) == {"star", "titan", "1997"}
    assert claim_detail("Tom Hanks is Tom Hanks.", ["Tom Hanks"]) == set()


def test_the_share_counts_the_detail_an_item_repeats():
    detail = claim_detail(CLAIM, ["Tom Hanks"])
    assert shared_share(detail, "Hanks starred in Big in 1988.") == pytest.approx(1 / 3)
    assert shared_share(detail, "Hanks was born in Concord.") == 0.0
    assert shared_share(set(), "anything") == 1.0


def test_reading_features_describe_each_side_unweighted():
    evidence = [
        item(1, 0.90, 0.05, "Hanks starred in Big and in Titanic-era films."),  # star, titan: 2 of 3
        item(2, 0.10, 0.80, "Hanks was born in 1956."),  # none of star / titan / 1997
        item(3, 0.05, 0.05, "The film Titanic opened in 1997."),  # titan, 1997
    ]
    w = weigh(evidence, JudgeConfig(use_reliability=False), ["Tom Hanks"], CLAIM)
    reading = dict(zip(READING_FEATURES, w.reading))
    assert reading["claim_words"] == pytest.approx(math.log1p(3))
    assert reading["support_wording"] == pytest.approx(2 / 3) and reading["refute_wording"] == 0.0
    assert reading["best_wording"] == pytest.approx(2 / 3)
    assert reading["raw_support"] == pytest.approx(0.90) and reading["raw_refute"] == pytest.approx(0.80)
    assert reading["supporting_items"] == 1 and reading["refuting_items"] == 1
    assert reading["has_number"] == 1.0 and reading["numbers_found"] == 1.0  # item 3 states 1997
    assert reading["mean_neutral"] == pytest.approx((0.05 + 0.10 + 0.90) / 3)
    assert weigh([], JudgeConfig(), ["Tom Hanks"], CLAIM).reading[3:6] == (0.0, 0.0, 0.0)


def test_a_confidence_model_reads_the_features_it_names_in_its_order():
    names = ("best_wording", "support")
    model = ConfidenceModel(features=names, coef=[4.0, 0.0] + [0.0] * 4, intercept=-2.0)
    assert len(model.coef) == input_count(2, False)
    config = JudgeConfig(use_reliability=False, confidence_model=model, abstain_below=0.5)
    repeats = decide([item(1, 0.9, 0.0, "Hanks starred in Titanic in 1997.")], config, ["Tom Hanks"], CLAIM)
    silent = decide([item(1, 0.9, 0.0, "Hanks was born in Concord.")], config, ["Tom Hanks"], CLAIM)
    assert repeats.label == silent.label == Label.SUPPORTS
    assert repeats.confidence == pytest.approx(1 / (1 + math.exp(-2.0)), abs=1e-4) and not repeats.abstained
    assert silent.confidence == pytest.approx(1 / (1 + math.exp(2.0)), abs=1e-4) and silent.abstained


def test_a_confidence_model_over_an_unknown_feature_is_refused():
    with pytest.raises(ValueError, match="unknown features"):
        ConfidenceModel(features=("support", "gut_feeling"), coef=[0.0] * input_count(2, False), intercept=0.0)
    assert CONFIDENCE_FEATURES[: len(FEATURES)] == FEATURES
