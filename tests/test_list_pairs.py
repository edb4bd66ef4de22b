"""List pairs (training/list_pairs.py): a title's own year, another item's year, a title the passage never names."""

from __future__ import annotations

import random

import orjson

from mermaid_verifier.tools.corpus_index import Passage
from training.list_pairs import Item, Listing, corpus_listings, list_items, pairs_of, plain, shared_listings, verb_for
from training.reader_cases import NEI, REFUTES, SUPPORTS, by_page

ALLEN = "Allen directed Annie Hall -LRB- 1977 -RRB- , Manhattan -LRB- 1979 -RRB- and Zelig -LRB- 1983 -RRB- ."
KNOWLES = 'She appeared in the films "The Fighting Temptations" (2003) and "Dreamgirls" (2006).'
BROWN = "Three of his novels, Angels & Demons (2000), The Da Vinci Code (2003), and Inferno (2013), became films."


def test_items_are_read_from_a_tokenised_list_in_order():
    assert list_items(plain(ALLEN)) == [Item("Annie Hall", "1977"), Item("Manhattan", "1979"), Item("Zelig", "1983")]


def test_quoted_titles_and_joining_words_are_kept_whole():
    assert list_items(plain(KNOWLES)) == [Item("The Fighting Temptations", "2003"), Item("Dreamgirls", "2006")]
    assert [i.title for i in list_items(BROWN)] == ["Angels & Demons", "The Da Vinci Code", "Inferno"]


def test_a_role_before_a_quoted_title_is_left_out():
    text = 'He voiced Baloo in "The Jungle Book" (1967) and Thomas O\'Malley in "The Aristocats" (1970).'
    assert [i.title for i in list_items(text)] == ["The Jungle Book", "The Aristocats"]


def test_lists_that_are_not_clean_give_nothing():
    assert list_items("Annie Hall (1977) was his best film.") == []  # one item
    assert list_items("Annie Hall (1977) and Manhattan (1977) were praised.") == []  # one year
    assert list_items("Annie Hall (1977) and Annie Hall (1979) differ.") == []  # a title twice, no other left
    # the second segment is not a plain title, which leaves one item: no list
    assert list_items("His roles include a doctor in Annie Hall (1977), a role in Manhattan (1979).") == []
    assert list_items("The Oscar: Babette's Feast (1987) and Pelle the Conqueror (1988).")[0].title == "Babette's Feast"


def test_the_verb_follows_the_kind_of_work_listed():
    assert verb_for(plain(ALLEN)) == "was released in"
    assert verb_for(BROWN) == "was published in"
    assert verb_for("According to Lean (2007) and Wolfendale (2008), the sun is not the cause.") is None


def listing(text: str, title: str) -> Listing:
    passage = Passage(f"wiki:{title}:0", title, 0, title, text, "wiki")
    return Listing(title, [passage], list_items(plain(text)), verb_for(plain(text)), "corpus")


def test_pairs_bind_each_year_to_its_own_title():
    listings = [listing(ALLEN, "Woody_Allen"), listing(BROWN, "Dan_Brown")]
    pairs = pairs_of(listings, random.Random(0))
    years = {
        "Annie Hall": "1977",
        "Manhattan": "1979",
        "Zelig": "1983",
        "Angels & Demons": "2000",
        "The Da Vinci Code": "2003",
        "Inferno": "2013",
    }
    by_label = {label: [p for p in pairs if p["label"] == label] for label in (SUPPORTS, REFUTES, NEI)}
    assert all(by_label.values())
    for pair in pairs:
        title, year = pair["claim"].removesuffix(".").rsplit(" was ", 1)[0], pair["claim"][-5:-1]
        listed = {i.title: i.year for i in list_items(plain(pair["evidence"]))}
        if pair["label"] == SUPPORTS:
            assert listed[title] == year
        elif pair["label"] == REFUTES:
            assert title in listed and listed[title] != year and year in listed.values()
        else:  # the title is another passage's; the year is this passage's
            assert title not in listed and title in years and year in listed.values()
    assert len(by_label[SUPPORTS]) <= 2 * len(listings) and len(by_label[REFUTES]) <= 2 * len(listings)


def test_pairs_are_the_same_for_the_same_seed():
    listings = [listing(ALLEN, "Woody_Allen"), listing(BROWN, "Dan_Brown")]
    assert pairs_of(listings, random.Random(3)) == pairs_of(listings, random.Random(3))


def test_corpus_listings_keep_to_allowed_pages():
    passages = [
        Passage("wiki:Woody_Allen:0", "Woody_Allen", 0, "Woody Allen", "Woody Allen is a director.", "wiki"),
        Passage("wiki:Woody_Allen:1", "Woody_Allen", 1, "Woody Allen", ALLEN, "wiki"),
        Passage("wiki:Dan_Brown:0", "Dan_Brown", 0, "Dan Brown", BROWN, "wiki"),
    ]
    found = corpus_listings(by_page(passages), {"Woody_Allen"}, random.Random(0))
    assert [f.key for f in found] == ["Woody Allen"]
    assert ALLEN in [p.text for p in found[0].sentences]


def test_shared_listings_read_pool_files_and_skip_paper_dev(tmp_path):
    train = tmp_path / "train"
    train.mkdir()
    rows = [
        {"claim": "x", "evidence": ALLEN, "label": "SUPPORTS", "origin": "fever-shared-task-dev-gold", "title": "W"},
        {
            "claim": "y",
            "evidence": BROWN,
            "label": "REFUTES",
            "origin": "fever-shared-task-dev-gold",
            "fever_split": "paper_dev",
        },
    ]
    (train / "fever_gold_pairs.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    for name in ("claim_evidence_pairs.jsonl", "contrastive_pairs.jsonl"):
        (train / name).write_bytes(b"")
    found = shared_listings(tmp_path)
    assert [(f.key, len(f.items)) for f in found] == [("W", 3)]
