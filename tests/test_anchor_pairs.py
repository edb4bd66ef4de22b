"""Anchor pairs (training/anchor_pairs.py): what grounding reads on a cited page, with no label of their own."""

from __future__ import annotations

from mermaid_verifier.agents.quantities import aligned
from mermaid_verifier.evaluation.datasets import hash_bucket
from mermaid_verifier.models import GivenDocument
from mermaid_verifier.texts.grounding import GroundingConfig, passages_for
from mermaid_verifier.tools.passages import PassageIndex
from training.anchor_pairs import anchor_pairs, as_claim, page_sentences
from training.reader_nei import WICE_VALIDATION_BUCKETS

DOCUMENT = "\n".join(
    [
        "(meta data) TITLE: The Wall goes to Poland",
        "# The Wall goes to Poland",
        "By a reporter",
        "The Wall is filmed in Warsaw alongside the Polish and Finnish versions of the game show.",
        "The studio audience of the game show is made up of English speaking locals.",
        "Tickets for the audience are free and handed out at the door each evening.",
        "The host had not presented a game show in a decade, he said after the first week of filming in 2017.",
        "the crew is largely polish and works on every version",
    ]
)
CLAIM = "The audience of the game show consists of 1,200 Australian ex-pats."
READING = GroundingConfig.bundled()


def row(title: str, document: str = DOCUMENT, claim: str = CLAIM, number: int = 1) -> dict:
    return {"id": f"train{number}", "claim": claim, "title": title, "document": document}


def titles(part: str) -> list[str]:
    held = part == "validation"
    return [f"Page {n}" for n in range(100) if (hash_bucket(f"wice:Page {n}") in WICE_VALIDATION_BUCKETS) == held]


def test_page_sentences_are_whole_sentences_never_meta_headings_bylines_or_fragments():
    assert page_sentences(DOCUMENT) == [
        "The Wall is filmed in Warsaw alongside the Polish and Finnish versions of the game show.",
        "The studio audience of the game show is made up of English speaking locals.",
        "Tickets for the audience are free and handed out at the door each evening.",
        "The host had not presented a game show in a decade, he said after the first week of filming in 2017.",
    ]


def test_each_pair_is_a_passage_grounding_reads_for_its_claim_as_the_reader_is_given_it():
    pairs = anchor_pairs([row(titles("train")[0])], set(), READING, seed=13)
    index = PassageIndex([GivenDocument(name="cited page", title="", text=DOCUMENT)], READING.sizes)
    claims = [p for p in pairs if p["origin"] == "reader-anchor-claim"]
    read = passages_for(index, as_claim(CLAIM), READING)
    assert [p["evidence"] for p in claims] == [aligned(CLAIM, p.text) for p in read]
    assert len(read) > READING.passages  # BM25 hits and the windows around the best
    sentences = {p["claim"] for p in pairs if p["origin"] == "reader-anchor-sentence"}
    assert len(sentences) == 4 and sentences <= set(page_sentences(DOCUMENT))
    assert all(p["label"] is None for p in pairs)  # learnt from the starting model's reading alone
    assert len({(p["claim"], p["evidence"]) for p in pairs}) == len(pairs)


def test_a_page_shared_by_two_subclaims_gives_its_sentences_once():
    title = titles("train")[0]
    two = anchor_pairs([row(title), row(title, claim="The Wall is filmed in Warsaw.", number=2)], set(), READING, 13)
    one = anchor_pairs([row(title)], set(), READING, 13)
    sentence = [p for p in two if p["origin"] == "reader-anchor-sentence"]
    assert sentence == [p for p in one if p["origin"] == "reader-anchor-sentence"]
    assert {p["claim"] for p in two if p["origin"] == "reader-anchor-claim"} == {CLAIM, "The Wall is filmed in Warsaw."}


def test_validation_and_held_out_pages_give_nothing_and_a_build_is_repeatable():
    train, validation = titles("train"), titles("validation")
    assert anchor_pairs([row(validation[0])], set(), READING, 13) == []
    assert anchor_pairs([row(train[0])], {train[0]}, READING, 13) == []
    assert anchor_pairs([row(train[0])], set(), READING, 13) == anchor_pairs([row(train[0])], set(), READING, 13)
