"""Grounding (mermaid_verifier/grounding.py, tools/passages.py): a text against the documents given with it."""

from __future__ import annotations

import asyncio

import pytest

from mermaid_verifier.errors import UsageError
from mermaid_verifier.grounding import (
    GroundingConfig,
    as_documents,
    check_grounding,
    decide_claim,
    sentences_of,
)
from mermaid_verifier.models import DroppedSentence, ExtractedClaim, GivenDocument, GroundingSummary, TextClaims
from mermaid_verifier.tools.passages import (
    DocumentPassage,
    PassageIndex,
    PassageIndexCache,
    document_passages,
    sentence_spans,
)

COMPANY = GivenDocument(
    name="company.txt",
    text="Acme Robotics was founded in 2011 in Berlin by Jana Weber.\nThe company builds warehouse robots. "
    "It employs 450 people.\n\nIn 2020 Acme opened a second factory in Leipzig.\n",
)


def claim(text: str, start: int = 0, end: int | None = None) -> ExtractedClaim:
    return ExtractedClaim(text=text, sentence=text, start=start, end=end if end is not None else start + len(text))


def passage(text: str, start: int = 0) -> DocumentPassage:
    return DocumentPassage(0, "d.txt", "", text, start, start + len(text), 0, 1)


# --- passages ---------------------------------------------------------------------------------------------


def test_sentence_spans_point_into_the_document_and_a_wrapped_line_runs_on():
    text = "First line of a\nwrapped sentence. A second one.\nA heading\n\nLast paragraph here."
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == [
        "First line of a\nwrapped sentence.",
        "A second one.",
        "A heading",
        "Last paragraph here.",
    ]


def test_passages_are_runs_of_neighbouring_sentences_with_their_span():
    passages = document_passages([COMPANY], sizes=(1, 2))
    texts = [p.text for p in passages]
    assert "The company builds warehouse robots." in texts
    assert "The company builds warehouse robots. It employs 450 people." in texts
    for p in passages:
        assert " ".join(COMPANY.text[p.start : p.end].split()) == p.text


def test_the_index_finds_the_passage_a_claim_is_about():
    index = PassageIndex([COMPANY], sizes=(1,))
    (best, *_) = index.search("How many people does Acme employ?", 3)
    assert best.text == "It employs 450 people."
    assert index.search("zebra quantum", 3) == []
    stop_words_only = PassageIndex([GivenDocument(name="0.txt", text="IF")], sizes=(1,))
    assert stop_words_only.search("if", 3) == []


def test_indexes_are_kept_by_content_and_the_oldest_dropped():
    cache = PassageIndexCache(size=2)
    first = cache.get([COMPANY], (1,))
    assert cache.get([GivenDocument(name="company.txt", text=COMPANY.text)], (1,)) is first  # same content
    cache.get([GivenDocument(name="b", text="Another document.")], (1,))
    cache.get([GivenDocument(name="c", text="A third document.")], (1,))
    assert len(cache) == 2 and cache.get([COMPANY], (1,)) is not first  # dropped, built again


# --- the decision -------------------------------------------------------------------------------------------


def test_a_claim_is_supported_when_a_passage_states_it_nothing_else_weighs_in():
    passages = [passage("Acme employs 450 people."), passage("Acme was founded in 2011. It employs 450 people.")]
    readings = [
        {"supports": 0.91, "refutes": 0.01, "neutral": 0.08},
        {"supports": 0.92, "refutes": 0.0, "neutral": 0.08},
    ]
    grounded = decide_claim(0, claim("Acme employs 450 people."), passages, readings, threshold=0.5)
    assert grounded.supported and grounded.support == 0.92 and not grounded.contradicted
    assert grounded.passage.text == "Acme employs 450 people."  # read alike: the shorter passage, the tighter span


def test_below_the_threshold_a_claim_is_not_supported_and_a_contradiction_is_named():
    passages = [passage("Acme employs 450 people.")]
    readings = [{"supports": 0.05, "refutes": 0.9, "neutral": 0.05}]
    grounded = decide_claim(0, claim("Acme employs 2,000 people."), passages, readings, threshold=0.5)
    assert not grounded.supported and grounded.contradicted and grounded.passage.refutes == 0.9
    nothing = decide_claim(1, claim("Acme sells boats."), [], [], threshold=0.5)
    assert not nothing.supported and nothing.passage is None and nothing.read == 0


def test_each_sentence_is_labelled_from_its_claims():
    first = claim("Acme was founded in 2011.", 0, 40)
    second = claim("Acme was founded by Jana Weber.", 0, 40)
    third = claim("Acme sells boats.", 41, 58)
    readings = {"supports": 0.9, "refutes": 0.0, "neutral": 0.1}
    low = {"supports": 0.1, "refutes": 0.0, "neutral": 0.9}
    grounded = [
        decide_claim(0, first, [passage("x")], [readings], 0.5),
        decide_claim(1, second, [passage("y")], [low], 0.5),
        decide_claim(2, third, [passage("z")], [low], 0.5),
    ]
    extraction = TextClaims(
        claims=[first, second, third],
        dropped=[DroppedSentence(sentence="Thanks!", start=59, end=66, reason="a greeting")],
    )
    sentences = sentences_of(extraction, grounded)
    assert [s.label for s in sentences] == ["partially supported", "not supported", "nothing to check"]
    assert sentences[0].unsupported == ["Acme was founded by Jana Weber."] and sentences[0].passage.text == "x"
    assert sentences[2].reason == "a greeting"
    summary = GroundingSummary.of(sentences, grounded)
    assert (summary.supported, summary.partially_supported, summary.not_supported, summary.nothing_to_check) == (
        0,
        1,
        1,
        1,
    )
    assert summary.claims_supported == 1 and summary.supported_share == 0.0


def test_documents_are_checked_before_anything_is_read():
    with pytest.raises(UsageError, match="no documents"):
        as_documents([])
    with pytest.raises(UsageError, match="document 2: the document is empty"):
        as_documents(["Some text.", "  "])
    with pytest.raises(UsageError, match="document 1 is a int"):
        as_documents([3])
    named = as_documents([("Report", "Body."), {"text": "Other."}])
    assert [(d.name, d.title) for d in named] == [("Report", "Report"), ("document 2", "")]


def test_the_shipped_reading_settings_load():
    config = GroundingConfig.bundled()
    assert 0 < config.threshold < 1 and config.passages >= 1 and 1 in config.sizes and config.max_length <= 512


# --- end to end on the shipped model ------------------------------------------------------------------------


def test_a_fact_stated_once_in_the_users_document_is_supported():
    text = (
        "Acme Robotics was founded in 2011 by Jana Weber. It builds warehouse robots. "
        "Acme employs 2,000 people. Thank you for reading!"
    )
    result = asyncio.run(check_grounding(text, [COMPANY]))
    founded, builds, employs, thanks = result.sentences
    assert founded.label == "supported" and founded.passage.name == "company.txt"
    assert COMPANY.text[founded.passage.start : founded.passage.end].startswith("Acme Robotics was founded in 2011")
    assert builds.label == "supported"  # "It" is Acme Robotics, stated once, word for word: no discount
    assert employs.label == "not supported" and employs.unsupported == ["Acme employs 2,000 people."]
    assert employs.contradicted == ["Acme employs 2,000 people."]  # the document says 450
    assert "450" in employs.passage.text
    assert thanks.label == "nothing to check"
    assert result.documents == ["company.txt"] and result.summary.supported == 2


def test_a_sentence_with_one_claim_the_documents_lack_is_partially_supported():
    text = "Acme Robotics was founded in 2011 in Berlin and opened a factory in Paris in 2020."
    result = asyncio.run(check_grounding(text, [COMPANY]))
    (sentence,) = result.sentences
    assert sentence.label == "partially supported"
    assert sentence.unsupported == ["Acme Robotics opened a factory in Paris in 2020."]
