"""Grounding (mermaid_verifier/texts/grounding.py, tools/passages.py): a text against the documents given with it."""

from __future__ import annotations

import asyncio

import pytest

from mermaid_verifier.agents.slots import SlotReading
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import (
    DroppedSentence,
    ExtractedClaim,
    GivenDocument,
    GroundedClaim,
    GroundedSentence,
    GroundingSummary,
    TextClaims,
)
from mermaid_verifier.texts import TextJob, check_grounding
from mermaid_verifier.texts.grounding import (
    GroundingConfig,
    as_documents,
    band,
    decide_claim,
    passages_for,
    read_claim,
    sentences_of,
)
from mermaid_verifier.tools.passages import (
    DocumentPassage,
    PassageIndex,
    PassageIndexCache,
    document_passages,
    sentence_spans,
)

from .conftest import ScriptedStance

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


def test_a_window_widens_a_hit_to_its_neighbouring_sentences_within_the_document():
    index = PassageIndex([COMPANY], sizes=(1,))
    hit = next(p for p in index.passages if p.text == "The company builds warehouse robots.")
    window = index.window(hit, 4)
    assert window.sentences == 4 and window.first_sentence == hit.first_sentence - 1
    assert window.text == " ".join(COMPANY.text[window.start : window.end].split())
    assert window.text.startswith("Acme Robotics was founded") and window.text.endswith("factory in Leipzig.")
    first = index.passages[0]
    assert index.window(first, 2).first_sentence == 0 and index.window(first, 2).sentences == 2  # at the edge
    config = GroundingConfig(threshold=0.5, passages=2, sizes=(1,), max_length=256, windows=1, window_sentences=3)
    read = passages_for(index, claim("Acme builds warehouse robots."), config)
    assert len(read) == 3 and read[2].sentences == 3 and read[0].text in read[2].text


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
    assert grounded.status == "contradicted"
    nothing = decide_claim(1, claim("Acme sells boats."), [], [], threshold=0.5)
    assert not nothing.supported and nothing.passage is None and nothing.read == 0 and nothing.status == "not stated"


def test_reading_stops_at_the_first_passage_that_states_the_claim_and_goes_on_while_none_does():
    index = PassageIndex([COMPANY], sizes=(1, 2))
    config = GroundingConfig(threshold=0.5, passages=4, sizes=(1, 2), max_length=256, windows=0)
    states = ScriptedStance({"450 people": "supports"})
    employs = claim("Acme employs 450 people.")
    grounded = asyncio.run(read_claim(index, states, config, 0, employs))
    ranked = passages_for(index, employs, config)
    first = next(i for i, p in enumerate(ranked) if "450 people" in p.text)
    assert grounded.status == "supported" and grounded.read == first + 1 == states.pairs_scored
    assert grounded.passage.text == ranked[first].text  # read best first, up to it

    refutes = ScriptedStance({"450 people": "refutes"})
    more = claim("Acme employs 2,000 people.")
    grounded = asyncio.run(read_claim(index, refutes, config, 1, more))
    assert grounded.read == len(passages_for(index, more, config)) == refutes.pairs_scored > 1  # none settled it


def test_a_passage_read_as_refuting_contradicts_only_when_it_speaks_to_the_claims_slot():
    passages = [passage("Acme employs 450 people in Berlin.")]
    readings = [{"supports": 0.02, "refutes": 0.95, "neutral": 0.03}]
    elsewhere = SlotReading(about_subject=True, states_slot=False, reason="states no organisation for 'is listed on'")
    listed = claim("Acme is listed on the Oslo Stock Exchange.")
    grounded = decide_claim(0, listed, passages, readings, 0.5, speaks=lambda p: elsewhere)
    assert grounded.status == "not stated" and not grounded.contradicted and not grounded.supported
    assert "states no organisation" in grounded.reason and "0.95" in grounded.reason
    same = SlotReading(about_subject=True, states_slot=True, reason="states a count '450 people'")
    employs = decide_claim(0, claim("Acme employs 2,000 people."), passages, readings, 0.5, speaks=lambda p: same)
    assert employs.status == "contradicted" and employs.contradicted and employs.passage.refutes == 0.95
    assert decide_claim(0, listed, passages, readings, 0.5, refute_threshold=0.96).status == "not stated"


CANADA = GivenDocument(
    name="canada.txt",
    text="Canada is a country in North America. Its capital is Ottawa and its three largest metropolitan areas are "
    "Toronto, Montreal, and Vancouver.\n\nToronto is the capital city of the province of Ontario.\n",
)


@pytest.mark.parametrize("conflicts", [True, False])
def test_support_for_a_single_valued_slot_given_another_name_is_read_as_contradiction(conflicts):
    """A reader that takes "Its capital is Ottawa and its three largest metropolitan areas are Toronto, …" for
    support of "Toronto is the capital of Canada" (the claimed city is there, in another role) is overruled: the
    passage gives the slot another name, so it contradicts, with that as the reason; and a passage giving Toronto
    as Ontario's capital states nothing of Canada's. Without ``slot_conflicts`` the reading stands."""
    index = PassageIndex([CANADA], sizes=(1,))
    config = GroundingConfig(threshold=0.5, passages=4, sizes=(1,), max_length=256, slot_conflicts=conflicts)
    reader = ScriptedStance({"Toronto": "supports"})
    toronto = claim("Toronto is the capital of Canada.")
    grounded = asyncio.run(read_claim(index, reader, config, 0, toronto))
    if not conflicts:
        assert grounded.status == "supported"
        return
    every = len(passages_for(index, toronto, config))
    assert grounded.status == "contradicted" and grounded.read == reader.pairs_scored == every  # none settled it
    assert grounded.reason == "gives the capital of Canada as 'Ottawa', not 'Toronto'"
    assert [d.text for d in grounded.deciding] == [CANADA.text.split(". ", 1)[1].split("\n")[0]]
    ottawa = asyncio.run(read_claim(index, ScriptedStance({"Ottawa": "supports"}), config, 1, claim(
        "Ottawa is the capital of Canada.")))  # fmt: skip
    assert ottawa.status == "supported"


def test_a_supporting_reading_without_the_claims_numbers_is_not_support():
    passages = [passage("Acme opened a factory."), passage("In 2020 Acme opened a factory in Leipzig.")]
    readings = [{"supports": 0.97, "refutes": 0.0}, {"supports": 0.9, "refutes": 0.0}]
    values = {"Acme opened a factory.": ["2020"], "In 2020 Acme opened a factory in Leipzig.": []}
    opened = claim("Acme opened a factory in 2020.")
    grounded = decide_claim(0, opened, passages, readings, 0.5, missing=lambda p: values[p.text])
    assert grounded.supported and grounded.passage.text.startswith("In 2020")
    lacking = decide_claim(0, opened, passages[:1], readings[:1], 0.5, missing=lambda p: values[p.text])
    assert lacking.status == "not stated" and lacking.missing == ["2020"] and lacking.support == 0.97


def test_older_records_read_with_a_status_and_label():
    old = GroundedClaim.model_validate(
        {"index": 0, "claim": claim("x").model_dump(), "supported": False, "support": 0.1, "contradicted": True}
    )
    assert old.status == "contradicted"
    sentence = GroundedSentence.model_validate(
        {"sentence": "x", "start": 0, "end": 1, "label": "not supported", "unsupported": ["x"]}
    )
    assert sentence.label == "not stated"


def test_each_sentence_is_labelled_from_its_claims():
    first = claim("Acme was founded in 2011.", 0, 40)
    second = claim("Acme was founded by Jana Weber.", 0, 40)
    third = claim("Acme sells boats.", 41, 58)
    readings = {"supports": 0.9, "refutes": 0.0, "neutral": 0.1}
    low = {"supports": 0.1, "refutes": 0.0, "neutral": 0.9}
    refuting = {"supports": 0.0, "refutes": 0.9, "neutral": 0.1}
    fourth = claim("Acme was founded in 1999.", 67, 92)
    fifth = claim("Acme was founded in Berlin.", 67, 92)
    grounded = [
        decide_claim(0, first, [passage("x")], [readings], 0.5),
        decide_claim(1, second, [passage("y")], [low], 0.5),
        decide_claim(2, third, [passage("z")], [low], 0.5),
        decide_claim(3, fourth, [passage("w")], [refuting], 0.5),
        decide_claim(4, fifth, [passage("v")], [readings], 0.5),
    ]
    extraction = TextClaims(
        claims=[first, second, third, fourth, fifth],
        dropped=[DroppedSentence(sentence="Thanks!", start=59, end=66, reason="a greeting")],
    )
    sentences = sentences_of(extraction, grounded)
    labels = [s.label for s in sentences]
    assert labels == ["partially supported", "not stated", "nothing to check", "contradicted"]
    assert sentences[0].unsupported == ["Acme was founded by Jana Weber."] and sentences[0].passage.text == "x"
    assert sentences[0].not_stated == ["Acme was founded by Jana Weber."]
    assert sentences[2].reason == "a greeting"
    assert sentences[3].contradicted == ["Acme was founded in 1999."] and sentences[3].passage.text == "w"
    summary = GroundingSummary.of(sentences, grounded)
    counts = (summary.supported, summary.partially_supported, summary.contradicted, summary.not_stated)
    assert counts == (0, 1, 1, 1) and summary.nothing_to_check == 1 and summary.not_supported == 2
    assert (summary.claims_supported, summary.claims_contradicted, summary.claims_not_stated) == (2, 1, 2)
    assert summary.supported_share == 0.0


def test_a_claim_whose_best_support_is_in_the_undecided_band_is_undecided_and_says_why():
    passages = [passage("Acme employs 450 people.")]
    employs = claim("Acme employs 450 people.")

    def decided(supports: float, refutes: float = 0.0, **kwargs) -> GroundedClaim:
        readings = [{"supports": supports, "refutes": refutes, "neutral": 1 - supports - refutes}]
        return decide_claim(0, employs, passages, readings, 0.5, undecided=(0.3, 0.9), **kwargs)

    assert decided(0.95).status == "supported" and decided(0.95).supported
    for supports in (0.89, 0.5, 0.3):  # above and below the threshold, inside the band
        grounded = decided(supports)
        assert grounded.status == "undecided" and not grounded.supported and not grounded.contradicted
        assert f"{supports:.2f} for support, between 0.30 and 0.90" in grounded.reason
    assert decided(0.29).status == "not stated" and decided(0.29).reason is None
    on_slot = SlotReading(about_subject=True, states_slot=True, reason="states a count '2,000 people'")
    assert decided(0.35, 0.6, refute_threshold=0.5, speaks=lambda p: on_slot).status == "contradicted"
    without = decide_claim(0, employs, passages, [{"supports": 0.6, "refutes": 0.0}], 0.5)
    assert without.status == "supported"  # no band: the threshold alone decides, as before


def test_a_band_must_hold_its_threshold():
    assert band(None, 0.7) is None and band([0.3, 0.9], 0.7) == (0.3, 0.9)
    with pytest.raises(UsageError, match="undecided band"):
        band([0.8, 0.9], 0.7)
    with_band = GroundingConfig.of(
        {"threshold": 0.7, "passages": 2, "sizes": [1], "max_length": 256, "undecided": [0.3, 0.9]}
    )
    assert with_band.undecided == (0.3, 0.9) and with_band.settles == 0.9
    assert GroundingConfig.of({"threshold": 0.7, "passages": 2, "sizes": [1], "max_length": 256}).settles == 0.7


def test_reading_goes_on_past_a_support_inside_the_band():
    index = PassageIndex([COMPANY], sizes=(1, 2))
    config = GroundingConfig(threshold=0.5, passages=4, sizes=(1, 2), max_length=256, undecided=(0.3, 0.99))
    states = ScriptedStance({"450 people": "supports"})  # reads its passages at the scripted stance's top
    employs = claim("Acme employs 450 people.")
    grounded = asyncio.run(read_claim(index, states, config, 0, employs))
    assert grounded.read == len(passages_for(index, employs, config)) == states.pairs_scored  # none settled it
    assert grounded.status == "undecided" and grounded.support == 0.95


def test_a_sentence_is_undecided_only_where_its_undecided_claims_could_change_its_label():
    def grounded(index: int, status: str) -> GroundedClaim:
        supports = {"supported": 0.95, "undecided": 0.6, "not stated": 0.1}[status]
        reading = {"supports": supports, "refutes": 0.0, "neutral": 1 - supports}
        text = f"Claim {index} of the sentence."
        return decide_claim(index, claim(text, 0, 40), [passage("x")], [reading], 0.5, undecided=(0.3, 0.9))

    def label(*statuses: str) -> str:
        items = [grounded(i, status) for i, status in enumerate(statuses)]
        assert [c.status for c in items] == list(statuses)
        (sentence,) = sentences_of(TextClaims(claims=[c.claim for c in items], dropped=[]), items)
        return sentence.label

    assert label("supported", "undecided") == "undecided"
    assert label("undecided") == "undecided"
    assert label("supported", "undecided", "not stated") == "partially supported"  # not wholly supported, surely
    assert label("undecided", "not stated") == "not stated"
    items = [grounded(0, "supported"), grounded(1, "undecided")]
    (sentence,) = sentences_of(TextClaims(claims=[c.claim for c in items], dropped=[]), items)
    assert sentence.undecided == ["Claim 1 of the sentence."] and sentence.unsupported == sentence.undecided
    summary = GroundingSummary.of([sentence], items)
    assert (summary.undecided, summary.claims_undecided, summary.claims_supported) == (1, 1, 1)


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
    assert employs.label == "contradicted" and employs.unsupported == ["Acme employs 2,000 people."]
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


def test_a_claim_about_the_subject_that_the_documents_do_not_state_is_not_stated():
    text = "Acme Robotics is listed on the Oslo Stock Exchange."
    result = asyncio.run(check_grounding(text, [COMPANY]))
    (grounded,) = result.claims
    assert grounded.status == "not stated" and not grounded.contradicted and not grounded.supported
    assert result.sentences[0].label == "not stated" and result.sentences[0].not_stated == [text]


def test_a_fact_told_over_two_neighbouring_sentences_is_supported_by_a_window():
    report = GivenDocument(
        name="plant.txt",
        text="Acme Robotics opened a plant in Leipzig in 2020. The town gave the land for free.\n"
        "The plant cost 40 million euros. Local papers covered the opening at length.",
    )
    config = GroundingConfig.bundled()
    text = "Acme Robotics opened a plant in Leipzig that cost 40 million euros."

    async def check(reading: GroundingConfig):
        async with TextJob.open(documents_only=True, reading=reading) as checker:
            return await checker.check(text, [report])

    import dataclasses

    widened = asyncio.run(check(dataclasses.replace(config, windows=2, window_sentences=4, passages=4)))
    assert [c.status for c in widened.claims] == ["supported"]
    assert "Leipzig" in widened.claims[0].passage.text and "40 million" in widened.claims[0].passage.text


def test_the_printed_listing_and_the_json_carry_each_claims_status():
    from mermaid_verifier.cli.options import stdout
    from mermaid_verifier.cli.render import print_grounding_result
    from mermaid_verifier.models import GroundingResult

    refuting = {"supports": 0.01, "refutes": 0.95}
    founded = claim("Acme was founded in 1999.", 0, 25)
    listed = claim("Acme is listed on the Oslo Stock Exchange.", 26, 68)
    on_slot = SlotReading(about_subject=True, states_slot=True, reason="names 'acme'; states a date '2011'")
    elsewhere = SlotReading(about_subject=True, states_slot=False, reason="names 'acme'; states no organisation")
    grounded = [
        decide_claim(0, founded, [passage("Acme was founded in 2011.")], [refuting], 0.5, speaks=lambda p: on_slot),
        decide_claim(1, listed, [passage("Acme employs 450 people.")], [refuting], 0.5, speaks=lambda p: elsewhere),
    ]
    sentences = sentences_of(TextClaims(claims=[founded, listed]), grounded)
    result = GroundingResult(
        text=founded.text + " " + listed.text,
        documents=["d.txt"],
        sentences=sentences,
        claims=grounded,
        summary=GroundingSummary.of(sentences, grounded),
        threshold=0.5,
    )
    with stdout.capture() as captured:
        print_grounding_result(result)
    listing = captured.get()
    assert "CONTRADICTED  Acme was founded in 1999." in listing
    assert "contradicted by the documents: Acme was founded in 1999." in listing
    assert "NOT STATED  Acme is listed on the Oslo Stock Exchange." in listing
    assert "not stated in the documents: Acme is listed on the Oslo Stock Exchange." in listing
    assert "1 contradicted, 1 not stated" in listing
    payload = GroundingResult.model_validate_json(result.model_dump_json())
    assert [c.status for c in payload.claims] == ["contradicted", "not stated"]
    assert "states no organisation" in payload.claims[1].reason


def test_an_undecided_claim_is_printed_and_shown_with_why_not_as_a_number():
    from mermaid_verifier.cli.options import stdout
    from mermaid_verifier.cli.render import print_grounding_result
    from mermaid_verifier.models import GroundingResult
    from mermaid_verifier.texts.report import render_grounding_report

    employs = claim("Acme employs 450 people.", 0, 24)
    reading = {"supports": 0.6, "refutes": 0.02}
    grounded = [decide_claim(0, employs, [passage("Acme has a large staff.")], [reading], 0.5, undecided=(0.3, 0.9))]
    sentences = sentences_of(TextClaims(claims=[employs]), grounded)
    result = GroundingResult(
        text=employs.text,
        documents=["d.txt"],
        sentences=sentences,
        claims=grounded,
        summary=GroundingSummary.of(sentences, grounded),
        threshold=0.5,
        undecided_band=(0.3, 0.9),
    )
    with stdout.capture() as captured:
        print_grounding_result(result)
    listing = " ".join(captured.get().split())  # the console wraps long lines
    assert "UNDECIDED Acme employs 450 people." in listing
    assert "undecided: Acme employs 450 people. — the best passage reads 0.60 for support" in listing
    assert "1 undecided" in listing and "0 supported" in listing
    page = render_grounding_report(result)
    assert "undecided: Acme employs 450 people. — the best passage reads 0.60 for support" in page
    assert 'class="sentence undecided"' in page and "between 0.30 and 0.90" in page


NOTES = GivenDocument(
    name="notes.txt",
    text="Albert Einstein was born on 14 March 1879 in Ulm, in the Kingdom of Württemberg. The Great Wall of China "
    "is a series of fortifications built across the historical northern borders of ancient Chinese states. It lies "
    "entirely in northern China.\n",
)


def test_the_sentence_that_decides_is_quoted_with_its_own_span_and_gives_the_reason():
    result = asyncio.run(check_grounding("The Great Wall of China is in Mongolia.", [NOTES]))
    (grounded,) = result.claims
    assert grounded.status == "contradicted"
    (deciding,) = grounded.deciding
    assert deciding.text == "It lies entirely in northern China."
    assert NOTES.text[deciding.start : deciding.end] == deciding.text
    assert "Ulm" not in (grounded.reason or "") and "China" in (grounded.reason or "")
    assert result.sentences[0].deciding == grounded.deciding


def test_a_passage_speaks_to_the_slot_only_where_one_sentence_does():
    from mermaid_verifier.agents.slots import speaks_to_slot

    claim_text = "The Great Wall of China is in Mongolia."
    apart = speaks_to_slot(claim_text, NOTES.text.split(" It lies")[0])  # the subject here, a place there
    assert apart.about_subject and not apart.states_slot
    assert speaks_to_slot(claim_text, NOTES.text).states_slot


def test_a_rounded_value_is_read_as_the_value_it_rounds():
    everest = GivenDocument(name="everest.txt", text="Mount Everest was measured in 2020 as 8,848.86 m.\n")
    result = asyncio.run(check_grounding("Mount Everest is about 8,849 metres high.", [everest]))
    assert result.claims[0].status == "supported" and result.claims[0].missing == []


def test_a_supported_claim_quotes_the_sentence_holding_its_values_not_the_first_of_its_passage():
    notes = GivenDocument(
        name="notes.txt",
        text="The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889. The tower "
        "is 330 metres tall.\n",
    )
    result = asyncio.run(check_grounding("The Eiffel Tower is in Paris. It was completed in 1889.", [notes]))
    completed = result.claims[1]
    assert completed.status == "supported"
    assert [d.text for d in completed.deciding] == ["It was completed in 1889."]
    assert notes.text[completed.deciding[0].start : completed.deciding[0].end] == "It was completed in 1889."
