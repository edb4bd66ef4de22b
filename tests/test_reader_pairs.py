"""The reader's passage pairs (training/reader_pairs.py) on hand-made pages, with the real spaCy pipeline."""

from __future__ import annotations

import random

import pytest

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.tools.corpus_index import Passage
from training.reader_cases import NEI, REFUTES, SUPPORTS, Case, Inputs, by_page, locate, sentence_entities
from training.reader_nei import own_page_nei, slot_absent_nei, topic_near_nei, wice_pairs
from training.reader_pairs import generate, keep_within
from training.reader_slots import (
    bound_value,
    date_edit_or_none,
    exclusive,
    kinship_edit,
    place_edit,
    slot_refutes,
    value_elsewhere,
)
from training.reader_supports import gold_among_others, gold_context, multi_sentence_pairs

MOZART = [
    "Wolfgang Amadeus Mozart was a prolific and influential composer of the Classical period.",
    "Mozart was born in Salzburg in 1756.",
    "He composed more than 600 works.",
    "He was survived by his wife Constanze and two sons.",
    "He lived in Vienna from 1781.",
]
PYRAMID = [
    "The Great Pyramid of Giza is the largest pyramid in the Giza pyramid complex in Egypt.",
    "It was built as a tomb for the pharaoh Khufu.",
    "It is the oldest of the Seven Wonders of the Ancient World.",
]
TITANIC = [
    "Titanic is a 1997 romance film directed by James Cameron.",
    "The film was a commercial success.",
]
CAMERON = [
    "James Cameron was born in Kapuskasing, Ontario, Canada.",
    "He moved to the United States in 1971.",
]
OTHER = [
    "The Salzburg Festival is a festival of music and drama held each summer.",
    "It celebrates the music of Mozart, who was born in the city.",
]


def passages(page: str, title: str, texts: list[str]) -> list[Passage]:
    return [Passage(f"wiki:{page}:{i}", page, i, title, text, "wiki") for i, text in enumerate(texts)]


PAGES = by_page(
    passages("Mozart", "Wolfgang Amadeus Mozart", MOZART)
    + passages("Great_Pyramid_of_Giza", "Great Pyramid of Giza", PYRAMID)
    + passages("Titanic_-LRB-1997_film-RRB-", "Titanic (1997 film)", TITANIC)
    + passages("James_Cameron", "James Cameron", CAMERON)
    + passages("Salzburg_Festival", "Salzburg Festival", OTHER)
)


def sentence(page: str, line: int) -> Passage:
    return PAGES[page][line]


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


def inputs_for(nlp, cases: list[Case], pool: dict[str, list[str]] | None = None) -> Inputs:
    texts = sorted({c.claim for c in cases})
    docs = dict(zip(texts, nlp.pipe(texts)))
    entities = sentence_entities(nlp, (p.text for rows in PAGES.values() for p in rows))
    fever_dump = frozenset((p.page, p.line) for rows in PAGES.values() for p in rows if p.page != "Salzburg_Festival")
    return Inputs(PAGES, entities, docs, pool or {"GPE": ["Prague", "Lyon"], "DATE": ["1801"]}, fever_dump)


def pyramid_in_egypt(source: str = "fever") -> Case:
    return Case(
        "The Great Pyramid of Giza is located in Egypt.",
        SUPPORTS,
        ((sentence("Great_Pyramid_of_Giza", 0),),),
        "Great_Pyramid_of_Giza",
        source,
    )


def born_in_salzburg(label: str = SUPPORTS) -> Case:
    return Case("Mozart was born in Salzburg.", label, ((sentence("Mozart", 1),),), "Mozart", "fever")


def test_own_page_passages_leave_out_the_gold_and_every_sentence_with_a_value_of_the_claims_kind(nlp):
    case = born_in_salzburg()
    seen = set()
    for seed in range(12):
        for row in own_page_nei([case], inputs_for(nlp, [case]), random.Random(seed)):
            assert row["label"] == NEI and row["origin"] == "reader-own-page-nei"
            assert MOZART[1] not in row["evidence"]  # the gold sentence is removed
            assert "Vienna" not in row["evidence"]  # a place: it could say where he was born
            seen.add(row["evidence"])
    assert seen and all(set(e.split(". ")) for e in seen)


def test_own_page_for_a_not_enough_info_claim_reads_its_retrieved_page(nlp):
    case = Case("Mozart had two cousins who outlived him.", NEI, (), "Mozart", "fever")
    rows = own_page_nei([case], inputs_for(nlp, [case]), random.Random(1))
    assert len(rows) == 1 and rows[0]["label"] == NEI and rows[0]["title"] == "Wolfgang Amadeus Mozart"
    assert rows[0]["evidence"].startswith(tuple(MOZART))  # nothing in Wikipedia settles it: any stretch of the page


def test_a_not_enough_info_claim_reads_later_page_versions_only_where_they_are_silent(nlp):
    case = Case("Mozart had two cousins who outlived him.", NEI, (), "Mozart", "fever")
    inputs = inputs_for(nlp, [case])
    inputs.fever_dump = frozenset()  # every sentence from a later version of the page: "two" may settle it
    for seed in range(8):
        for row in own_page_nei([case], inputs, random.Random(seed)):
            assert MOZART[3] not in row["evidence"]


def test_slot_absent_changes_a_stated_value_and_shows_sentences_with_no_value_of_that_kind(nlp):
    case = born_in_salzburg()
    rows = slot_absent_nei([case], inputs_for(nlp, [case]), random.Random(3))
    assert len(rows) == 1
    row = rows[0]
    assert row["label"] == NEI and row["claim"] in {"Mozart was born in Prague.", "Mozart was born in Lyon."}
    assert MOZART[1] not in row["evidence"] and "Vienna" not in row["evidence"]


def test_slot_absent_makes_nothing_when_every_other_sentence_holds_a_place(nlp):
    case = Case("Mozart was born in Salzburg.", SUPPORTS, ((sentence("Mozart", 1),),), "Mozart", "fever")
    pages = dict(PAGES) | {"Mozart": [sentence("Mozart", 1), sentence("Mozart", 4)]}
    inputs = inputs_for(nlp, [case])
    inputs.pages = pages
    assert slot_absent_nei([case], inputs, random.Random(0)) == []


def test_a_swap_is_refutes_only_where_the_passage_states_the_original_value(nlp):
    doc = nlp("The Great Pyramid of Giza is located in Egypt.")
    passage = " ".join(PYRAMID[:2])
    edited = place_edit(doc, passage, random.Random(0), "Great Pyramid of Giza")
    assert edited is not None and "Egypt" not in edited and edited.startswith("The Great Pyramid of Giza is located in")
    assert place_edit(doc, PYRAMID[1] + " " + PYRAMID[2], random.Random(0), "Great Pyramid of Giza") is None
    # a nationality of "X is a <nationality> <noun>"; an open relation ("toured in") is never swapped
    assert place_edit(nlp("Mozart toured in Egypt."), passage, random.Random(0)) is None


def test_only_exclusive_roles_are_swapped(nlp):
    assert kinship_edit(nlp("Prew was born in Westminster."), "Prew was born in Westminster, London.") is None
    edited = kinship_edit(nlp("Julian Lennon is the son of John Lennon."), "He is the son of John Lennon.")
    assert edited == "Julian Lennon is the father of John Lennon."
    assert kinship_edit(nlp("Julian Lennon is the son of John Lennon."), "His son and father met.") is None


def test_headings_and_repeated_sentences_are_left_out_of_pages():
    rows = passages("P", "P", ["__ TOC __", "P is a town in Kent.", "P is a town in Kent .", "It has a church."])
    assert [p.text for p in by_page(rows)["P"]] == ["P is a town in Kent.", "It has a church."]


def test_a_value_another_could_share_is_not_swapped(nlp):
    passage = "His fourth novel, The Satanic Verses, was published in 1987."
    assert date_edit_or_none(nlp("Salman Rushdie wrote a 1987 novel."), passage, random.Random(0)) is None
    edited = date_edit_or_none(nlp("The Satanic Verses was published in 1987."), passage, random.Random(0))
    assert edited is not None and "1987" not in edited


def test_slot_refutes_puts_the_swap_and_the_refuting_gold_inside_page_neighbours(nlp):
    supported = pyramid_in_egypt()
    refuted = Case("Mozart was born in Vienna.", REFUTES, ((sentence("Mozart", 1),),), "Mozart", "fever")
    rows = slot_refutes([supported, refuted], inputs_for(nlp, [supported, refuted]), random.Random(2))
    assert [r["label"] for r in rows] == [REFUTES, REFUTES]
    swap, gold = rows
    assert "Egypt" in swap["evidence"] and "Egypt" not in swap["claim"]
    assert swap["evidence"].startswith(PYRAMID[0]) and len(swap["evidence"]) > len(PYRAMID[0])
    assert gold["claim"] == "Mozart was born in Vienna." and MOZART[1] in gold["evidence"]
    assert gold["evidence"] != MOZART[1]  # shown with at least one neighbour


def test_deletion_negative_drops_exactly_one_needed_sentence(nlp):
    case = Case(
        "The director of Titanic was born in Canada.",
        SUPPORTS,
        ((sentence("Titanic_-LRB-1997_film-RRB-", 0), sentence("James_Cameron", 0)),),
        "Titanic_-LRB-1997_film-RRB-",
        "fever",
    )
    for seed in range(6):
        rows = multi_sentence_pairs([case], inputs_for(nlp, [case]), random.Random(seed))
        (whole,) = [r for r in rows if r["label"] == SUPPORTS]
        (cut,) = [r for r in rows if r["label"] == NEI]
        assert whole["origin"] == "reader-multi-supports" and cut["origin"] == "reader-deletion-nei"
        assert whole["evidence"].index(TITANIC[0]) < whole["evidence"].index(CAMERON[0])  # page order
        assert CAMERON[0] not in cut["evidence"]  # the only sentence that says Canada
        assert cut["evidence"] == whole["evidence"].replace(" " + CAMERON[0], "")


def test_a_sentence_whose_values_another_sentence_also_states_is_not_deleted(nlp):
    case = Case(
        "Titanic was directed by James Cameron.",
        SUPPORTS,
        ((sentence("Titanic_-LRB-1997_film-RRB-", 0), sentence("James_Cameron", 0)),),
        "Titanic_-LRB-1997_film-RRB-",
        "fever",
    )
    rows = multi_sentence_pairs([case], inputs_for(nlp, [case]), random.Random(0))
    for row in rows:
        if row["label"] == NEI:  # only the sentence naming the director may go; never the other one
            assert TITANIC[0] not in row["evidence"]


def test_gold_in_context_keeps_its_label(nlp):
    case = born_in_salzburg()
    (row,) = gold_context([case], inputs_for(nlp, [case]), random.Random(0))
    assert row["label"] == SUPPORTS and MOZART[1] in row["evidence"] and row["evidence"] != MOZART[1]


def test_a_synthetic_claim_also_meets_its_gold_sentence_in_context(nlp):
    case = Case("Mozart was born in Salzburg.", SUPPORTS, ((sentence("Mozart", 1),),), "Mozart", "synthetic")
    rows = gold_context([case], inputs_for(nlp, [case]), random.Random(0))
    assert [(r["label"], r["origin"]) for r in rows] == [(SUPPORTS, "reader-gold-context")]


def test_gold_among_silent_sentences_of_another_page_keeps_the_golds_label(nlp):
    supported = pyramid_in_egypt("synthetic")
    refuted = Case(
        "Titanic was directed by Steven Spielberg.",
        REFUTES,
        ((sentence("Titanic_-LRB-1997_film-RRB-", 0),),),
        "Titanic_-LRB-1997_film-RRB-",
        "fever",
    )
    inputs = inputs_for(nlp, [supported, refuted])

    def search(claim: str) -> list[Passage]:  # the claim's own page first: never taken as the other page
        return [sentence("Great_Pyramid_of_Giza", 1), sentence("Titanic_-LRB-1997_film-RRB-", 1), sentence("Mozart", 2)]

    orders = set()
    for seed in range(8):
        rows = gold_among_others([supported, refuted], inputs, search, set(PAGES), random.Random(seed))
        assert [(r["claim"], r["label"]) for r in rows] == [(supported.claim, SUPPORTS), (refuted.claim, REFUTES)]
        for row, case, other in zip(rows, (supported, refuted), ("Titanic_-LRB-1997_film-RRB-", "Mozart")):
            gold = case.sets[0][0]
            assert row["origin"] == "reader-gold-among-others" and row["title"] == gold.title
            assert gold.text in row["evidence"] and row["evidence"] != gold.text
            assert PYRAMID[1] not in row["evidence"] and PYRAMID[2] not in row["evidence"]  # not its own page
            assert row["pages"] == sorted({gold.page, other})  # the first page whose sentences are silent
            orders.add(row["evidence"].startswith(gold.text))
    assert orders == {True, False}  # the gold comes first or last


def test_gold_among_others_takes_only_sentences_silent_about_the_claim(nlp):
    case = born_in_salzburg()
    inputs = inputs_for(nlp, [case])

    def search(claim: str) -> list[Passage]:  # the festival page says where Mozart was born; the pyramid's is silent
        return [sentence("Salzburg_Festival", 1), sentence("Great_Pyramid_of_Giza", 1)]

    for seed in range(6):
        (row,) = gold_among_others([case], inputs, search, set(PAGES), random.Random(seed))
        assert "Salzburg Festival" not in row["evidence"] and "Mozart" not in row["evidence"].replace(MOZART[1], "")
        assert row["pages"] == ["Great_Pyramid_of_Giza", "Mozart"]
    assert gold_among_others([case], inputs, search, set(PAGES) - {"Great_Pyramid_of_Giza"}, random.Random(0)) == []


def test_gold_among_others_is_never_the_gold_alone_nor_from_feverous(nlp):
    case = born_in_salzburg()
    inputs = inputs_for(nlp, [case])
    heading = Passage(
        "wiki:Great_Pyramid_of_Giza:9", "Great_Pyramid_of_Giza", 9, "Great Pyramid of Giza", "See also", "wiki"
    )

    def search(claim: str) -> list[Passage]:  # a heading its page leaves out, then a silent sentence
        return [heading, sentence("Great_Pyramid_of_Giza", 1)]

    assert gold_among_others([case], inputs, lambda claim: [heading], set(PAGES), random.Random(0)) == []
    (row,) = gold_among_others([case], inputs, search, set(PAGES), random.Random(0))
    assert PYRAMID[1] in row["evidence"]
    feverous = Case(case.claim, SUPPORTS, case.sets, case.anchor, "feverous")
    assert gold_among_others([feverous], inputs, search, set(PAGES), random.Random(0)) == []


def test_topic_near_other_pages_skip_passages_that_name_the_claims_values(nlp):
    supported = born_in_salzburg()
    unverifiable = Case("Mozart had two cousins who outlived him.", NEI, (), "Mozart", "fever")
    inputs = inputs_for(nlp, [supported, unverifiable])

    def search(claim: str) -> list[Passage]:
        return [sentence("Mozart", 0), sentence("Salzburg_Festival", 1)]

    allowed = set(PAGES)
    rows = topic_near_nei([supported, unverifiable], inputs, search, allowed, random.Random(0))
    assert [r["claim"] for r in rows] == [unverifiable.claim]  # the festival page names Mozart and his birth
    assert rows[0]["title"] == "Salzburg Festival" and rows[0]["label"] == NEI
    assert topic_near_nei([unverifiable], inputs, search, allowed - {"Salzburg_Festival"}, random.Random(0)) == []


def test_held_out_pages_never_appear(nlp):
    cases = [born_in_salzburg(), Case("Mozart had two cousins who outlived him.", NEI, (), "Mozart", "fever")]
    inputs = inputs_for(nlp, cases)

    def search(claim: str) -> list[Passage]:
        return [sentence("Salzburg_Festival", 0), sentence("Great_Pyramid_of_Giza", 1)]

    everything = generate(cases, inputs, search, set(PAGES), 13, "train")
    assert any(r["title"] == "Salzburg Festival" for r in everything)
    without = generate(cases, inputs, search, set(PAGES) - {"Salzburg_Festival"}, 13, "train")
    assert without and not any(
        "Salzburg Festival" in r["evidence"] or r["title"] == "Salzburg Festival" for r in without
    )
    assert generate(cases, inputs, search, set(PAGES) - {"Mozart"}, 13, "train") == []  # the claims' own page
    mixed = {"claim": "c", "title": "t", "evidence": "e", "label": NEI, "origin": "o", "pages": ["Mozart", "Held"]}
    assert keep_within([mixed], {"Mozart"}) == []


def test_output_is_deterministic(nlp):
    cases = [born_in_salzburg(), Case("Mozart had two cousins who outlived him.", NEI, (), "Mozart", "fever")]
    inputs = inputs_for(nlp, cases)

    def search(claim: str) -> list[Passage]:
        return [sentence("Salzburg_Festival", 0), sentence("Great_Pyramid_of_Giza", 1)]

    first = generate(cases, inputs, search, set(PAGES), 13, "train")
    assert first == generate(cases, inputs, search, set(PAGES), 13, "train")
    assert first != generate(cases, inputs, search, set(PAGES), 14, "train") or len(first) <= 2


def test_locate_splits_evidence_into_corpus_sentences():
    by_text = {p.text: p for rows in PAGES.values() for p in rows}
    found = locate(TITANIC[0] + " " + CAMERON[0], by_text)
    assert found == (sentence("Titanic_-LRB-1997_film-RRB-", 0), sentence("James_Cameron", 0))
    assert locate(TITANIC[0] + " A sentence the corpus lacks.", by_text) is None


def test_wice_partial_support_is_not_support():
    row = {
        "claim": "The audience consists of Australian ex-pats.",
        "title": "The Wall (Australian game show)",
        "document": "(meta data) TITLE: Balancing act\nFiller.\nThe crowd comprised English speaking ex-pats.",
        "supporting_sentences": [[2]],
        "label": "partially_supported",
        "supported": False,
        "non_supported_tokens": ["Australian"],
    }
    part = "validation" if wice_pairs([row], "validation", set()) else "train"
    (pair,) = wice_pairs([row], part, set())
    assert pair["label"] == NEI and pair["evidence"] == "The crowd comprised English speaking ex-pats."
    assert pair["title"] == "Balancing act"
    assert wice_pairs([row], "train", {"The Wall (Australian game show)"}) == []  # a held-out title
    assert wice_pairs([row | {"label": "supported", "supported": True}], part, set()) == []
    assert wice_pairs([row | {"non_supported_tokens": ["106"]}], part, set()) == []  # a number: may be contradicted


CANADA = [
    "Canada is a country in North America.",
    "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver.",
    "Canada is a parliamentary democracy.",
]
EINSTEIN = [
    "Albert Einstein was born in 1879 in Ulm, in the Kingdom of Württemberg.",
    "He received the 1921 Nobel Prize in Physics.",
    "He developed the theory of relativity.",
]
ROLE_PAGES = by_page(passages("Canada", "Canada", CANADA) + passages("Albert_Einstein", "Albert Einstein", EINSTEIN))


def role_inputs(nlp, cases: list[Case]) -> Inputs:
    texts = sorted({c.claim for c in cases})
    entities = sentence_entities(nlp, (p.text for rows in ROLE_PAGES.values() for p in rows))
    return Inputs(ROLE_PAGES, entities, dict(zip(texts, nlp.pipe(texts))), {})


def test_a_value_present_in_another_role_refutes_where_the_slot_holds_another(nlp):
    case = Case("Ottawa is the capital of Canada.", SUPPORTS, ((ROLE_PAGES["Canada"][1],),), "Canada", "synthetic")
    rows = [r for seed in range(6) for r in value_elsewhere([case], role_inputs(nlp, [case]), random.Random(seed))]
    refutes = {r["claim"] for r in rows if r["origin"] == "reader-value-elsewhere-refutes"}
    assert refutes and refutes <= {f"{city} is the capital of Canada." for city in ("Toronto", "Montreal", "Vancouver")}
    assert all(CANADA[1] in r["evidence"] and r["label"] == REFUTES for r in rows if r["claim"] in refutes)


def test_a_value_present_in_another_role_is_not_enough_info_where_the_slot_is_not_stated(nlp):
    case = Case("Albert Einstein was born in 1879.", SUPPORTS, ((ROLE_PAGES["Albert_Einstein"][0],),),
                "Albert_Einstein", "fever")  # fmt: skip
    rows = [r for seed in range(6) for r in value_elsewhere([case], role_inputs(nlp, [case]), random.Random(seed))]
    nei = [r for r in rows if r["origin"] == "reader-value-elsewhere-nei"]
    assert nei and {r["claim"] for r in nei} == {"Albert Einstein was born in 1921."}
    assert all(r["label"] == NEI and EINSTEIN[0] not in r["evidence"] and "1921" in r["evidence"] for r in nei)
    # with the gold sentence in the passage, the year the slot holds is stated: another year there refutes
    refutes = [r for r in rows if r["origin"] == "reader-value-elsewhere-refutes"]
    assert all(r["claim"] == "Albert Einstein was born in 1921." and EINSTEIN[0] in r["evidence"] for r in refutes)


def test_places_that_may_hold_one_another_are_never_swapped(nlp):
    # "Ulm, in the Kingdom of Württemberg": born in one is born in the other
    case = Case("Albert Einstein was born in Ulm.", SUPPORTS, ((ROLE_PAGES["Albert_Einstein"][0],),),
                "Albert_Einstein", "fever")  # fmt: skip
    for seed in range(6):
        for row in value_elsewhere([case], role_inputs(nlp, [case]), random.Random(seed)):
            assert "Württemberg" not in row["claim"]
    assert exclusive("Egypt", "France", [ROLE_PAGES["Canada"][0]])
    assert not exclusive("Ulm", "Germany", [ROLE_PAGES["Canada"][0]])  # a city and a country
    assert not exclusive("Ulm", "Kingdom of Württemberg", [ROLE_PAGES["Albert_Einstein"][0]])


def test_only_single_valued_slots_are_bound(nlp):
    assert bound_value(nlp("Linkin Park released an album in 2005."), "Linkin Park") is None
    assert bound_value(nlp("Mozart toured in Egypt."), "Wolfgang Amadeus Mozart") is None
    found = bound_value(nlp("Albert Einstein was born in 1879."), "Albert Einstein")
    assert found is not None and found[0].text == "1879" and "born" in found[1]
