"""Grounding-shaped pairs (training/wice_rest_pairs.py): a subclaim against its page's lines that back nothing."""

from __future__ import annotations

from mermaid_verifier.evaluation.datasets import hash_bucket
from training.reader_cases import NEI
from training.reader_nei import WICE_VALIDATION_BUCKETS
from training.wice_rest_pairs import rest_pairs, rest_window

DOCUMENT = "\n".join(
    [
        "(meta data) TITLE: The Wall goes to Poland",
        "By a reporter",
        "The Wall is filmed in Warsaw alongside the Polish and Finnish versions of the game show.",  # 2: supporting
        "The studio audience of the game show is made up of English speaking locals.",  # 3: the best of the rest
        "Tickets for the audience are free and handed out at the door each evening.",  # 4: its neighbour
        "The host had not presented a game show in a decade.",
    ]
)


def row(title: str = "The Wall (game show)", **more) -> dict:
    return {
        "claim": "The audience of the game show consists of Australian ex-pats.",
        "title": title,
        "document": DOCUMENT,
        "supporting_sentences": [[2]],
        "non_supported_tokens": ["Australian", "ex-pats"],
    } | more


def train_title() -> str:
    return next(f"Page {n}" for n in range(100) if hash_bucket(f"wice:Page {n}") not in WICE_VALIDATION_BUCKETS)


def test_the_window_is_the_best_free_line_with_free_neighbours_never_a_supporting_or_meta_line():
    window = rest_window(row())
    assert window is not None and window[0].startswith("The studio audience")
    assert not any(line.startswith(("The Wall is filmed", "(meta data)", "By a")) for line in window)
    assert 1 <= len(window) <= 3


def test_a_page_that_shares_no_word_with_the_claim_gives_nothing():
    assert rest_window(row(claim="Zebras migrate yearly.")) is None


def test_pairs_are_not_enough_info_and_keep_to_their_part():
    title = train_title()
    pairs = rest_pairs([row(title)], "train", set())
    assert [(p["label"], p["origin"]) for p in pairs] == [(NEI, "reader-wice-rest-nei")]
    assert pairs[0]["title"] == "The Wall goes to Poland"
    assert rest_pairs([row(title)], "validation", set()) == []
    assert rest_pairs([row(title)], "train", {title}) == []  # a held-out page's title


def test_an_unbacked_number_leaves_the_subclaim_out():
    assert rest_pairs([row(train_title(), non_supported_tokens=["247,161"])], "train", set()) == []
