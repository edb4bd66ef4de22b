"""Claim extraction from whole texts (agents/claim_extractor.py) on the real spaCy pipeline: hard cases."""

from __future__ import annotations

import pytest

from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor


@pytest.fixture(scope="module")
def extract():
    extractor = SpacyClaimExtractor()
    return extractor.extract


def texts(result) -> list[str]:
    return [c.text for c in result.claims]


def test_pronouns_resolve_to_the_person_named_before_and_verbs_split_with_the_subject(extract):
    result = extract(
        "The CEO of Twitter is Jack Dorsey. He co-founded Twitter in 2006 and served as the CEO until 2008, "
        "and returned as CEO in 2015. Dorsey is also the CEO of Square."
    )
    assert texts(result) == [
        "The CEO of Twitter is Jack Dorsey.",
        "Jack Dorsey co-founded Twitter in 2006.",
        "Jack Dorsey served as the CEO until 2008.",
        "Jack Dorsey returned as CEO in 2015.",
        "Jack Dorsey is also the CEO of Square.",
    ]
    assert result.claims[1].resolved == {"He": "Jack Dorsey"}
    assert result.claims[4].resolved == {"Dorsey": "Jack Dorsey"}


def test_each_claim_keeps_the_span_of_its_sentence(extract):
    text = "  Barack Obama was born in Honolulu in 1961 and raised in Chicago.\n\nIt is a great city."
    result = extract(text)
    assert texts(result) == ["Barack Obama was born in Honolulu in 1961.", "Barack Obama was raised in Chicago."]
    for claim in result.claims:
        assert (
            text[claim.start : claim.end]
            == claim.sentence
            == "Barack Obama was born in Honolulu in 1961 and raised in Chicago."
        )
    assert [(d.sentence, d.reason) for d in result.dropped] == [
        ("It is a great city.", "an opinion, not a checkable fact")
    ]
    assert text[result.dropped[0].start : result.dropped[0].end] == "It is a great city."


def test_a_list_of_names_gives_one_claim_per_name(extract):
    result = extract("Other countries with many nuclear plants include France, China, Russia, and South Korea.")
    assert texts(result) == [
        f"Other countries with many nuclear plants include {country}."
        for country in ("France", "China", "Russia", "South Korea")
    ]


def test_contrast_and_relative_clauses_become_claims_of_their_own(extract):
    result = extract(
        "Jupiter has a density of 1.33 grams per cubic centimeter, while Saturn has a density of 0.69 grams per "
        "cubic centimeter. The fastest bird is the peregrine falcon, which can reach speeds of over 240 miles per hour."
    )
    assert "Jupiter has a density of 1.33 grams per cubic centimeter." in texts(result)
    assert "Saturn has a density of 0.69 grams per cubic centimeter." in texts(result)
    assert "The peregrine falcon can reach speeds of over 240 miles per hour." in texts(result)
    assert "The fastest bird is the peregrine falcon." in texts(result)


def test_it_continues_the_named_subject_and_a_connective_is_cut(extract):
    result = extract("However, the Eiffel Tower is in Paris. It was completed in 1889.")
    assert texts(result) == ["The Eiffel Tower is in Paris.", "The Eiffel Tower was completed in 1889."]


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("Who directed Jaws?", "a question"),
        ("I hope this helps!", "a greeting"),
        ("Thanks for asking about Paris.", "a greeting"),
        ("Note that the figures for 2020 may vary.", "an instruction"),
        ("Please check the official site of NASA.", "an instruction"),
        ("I think Paris is lovely in 2024.", "the speaker's own view"),
        ("We visited Rome in 2019.", "the speaker's own situation"),
        ("My brother lives in Rome.", "the speaker's own"),
        ("Perhaps the tower was built in 1890.", "hedged speculation"),
        ("You should ask a doctor about aspirin.", "advice to the reader"),
        ("Paris is a beautiful city.", "an opinion"),
        ("The weather is nice today.", "an opinion"),
        ("Great question.", "a greeting"),
        ("A view of Mount Fuji from Tokyo.", "not a full statement"),
    ],
)
def test_sentences_with_nothing_to_check_are_dropped_with_the_reason(extract, sentence, reason):
    result = extract(sentence)
    assert result.claims == []
    assert len(result.dropped) == 1 and result.dropped[0].reason.startswith(reason)


@pytest.mark.parametrize(
    "sentence",
    [
        "Geodetic data involves measuring distances and angles in order to create a map of an area.",
        "The water was cold and clear.",
        "When we cut into an onion, we break its cells, releasing the contents inside.",
        "At standard pressure, you need a temperature of 100 degrees for water to boil.",
        "In conclusion, coral reef fish are colourful because bright colours help them recognise their species.",
        "What is really going on is a series of viral marketing campaigns.",
        "Getting a regular routine of a bath before bed is a great way of falling asleep quickly.",
    ],
)
def test_general_and_explanatory_statements_are_claims(extract, sentence):
    result = extract(sentence)
    assert result.dropped == [] and result.claims, result


def test_a_pronoun_nothing_fits_stays_as_written_with_the_text_before_as_context(extract):
    result = extract("He was born in 1961 in Honolulu.")
    assert texts(result) == ["He was born in 1961 in Honolulu."] and result.dropped == []
    assert result.claims[0].unresolved == ["He"] and result.claims[0].context is None
    result = extract("Marie Curie won two Nobel Prizes. It was designed by Leonardo da Vinci.")
    assert texts(result)[-1] == "It was designed by Leonardo da Vinci."  # "Nobel Prizes" is plural: not "it"
    assert result.claims[-1].unresolved == ["It"]
    assert result.claims[-1].context == "Marie Curie won two Nobel Prizes."


def test_a_person_the_text_called_he_is_not_she(extract):
    result = extract("John Smith was born in 1950. He lives in Leeds. She was born in 1960.")
    assert texts(result) == ["John Smith was born in 1950.", "John Smith lives in Leeds.", "She was born in 1960."]
    assert result.claims[2].unresolved == ["She"]


def test_an_object_pronoun_is_not_the_subject_of_its_own_clause(extract):
    result = extract("Marie Curie was a physicist. Pierre Curie shared the 1903 Nobel Prize in Physics with her.")
    assert texts(result)[-1] == "Pierre Curie shared the 1903 Nobel Prize in Physics with Marie Curie."


def test_it_in_a_second_clause_is_the_first_clauses_subject(extract):
    result = extract(
        "The Eiffel Tower was built in 1889. Paris is the capital of Germany, and it lies on the river Thames."
    )
    assert "Paris lies on the river Thames." in texts(result)
    assert not any("Eiffel Tower lies" in t for t in texts(result))


def test_it_continues_the_subject_before_not_the_last_place_named(extract):
    result = extract("Acme Robotics was founded in 2011 in Berlin. It builds warehouse robots.")
    assert texts(result)[-1] == "Acme Robotics builds warehouse robots."


def test_a_definite_description_is_the_last_named_entity_of_its_kind(extract):
    result = extract("The Eiffel Tower is in Paris. The tower is made mainly of wrought iron.")
    assert texts(result)[-1] == "The Eiffel Tower is made mainly of wrought iron."
    assert result.claims[-1].resolved == {"The tower": "The Eiffel Tower"}
    result = extract("Siemens was founded in Berlin. The company moved its headquarters to Munich.")
    assert texts(result)[-1].startswith("Siemens moved")
    result = extract("Paris is the capital of France. The capital of Italy is Rome.")
    assert texts(result)[-1] == "The capital of Italy is Rome."  # "of Italy" says which capital itself


def test_a_surname_is_not_given_the_full_name_of_a_relative(extract):
    result = extract("His father James Williams was a merchant tailor. Williams studied at Cambridge.")
    assert texts(result)[-1] == "Williams studied at Cambridge."


def test_a_possessive_follows_the_pronoun_of_its_clause(extract):
    result = extract("Jack Travers signed for Bournemouth in 2016. He joined Weymouth on loan, scoring on his debut.")
    assert "Jack Travers joined Weymouth on loan, scoring on Jack Travers' debut." in texts(result)


def test_it_in_it_is_believed_that_stands_for_nothing(extract):
    result = extract("Fortune cookies came from Japan. It is believed that they reached San Francisco in 1900.")
    assert not any(c.unresolved == ["It"] for c in result.claims)
    assert all("Japan is believed" not in t for t in texts(result))


@pytest.mark.parametrize(
    "sentence",
    [
        "I Kissed a Girl was recorded by Katy Perry in 2007.",  # a title that holds a pronoun is no speaker
        "My Old Kentucky Home is outside of Kentucky.",
        "You Belong with Me was performed as part of the Speak Now World Tour.",
        "Make It or Break It ended in May 14th, 2012.",  # a title that opens with a verb is no instruction
        "Poldark airs on HBO.",  # a verb the tagger reads as a noun: still a statement
        "Exercise is good for heart health.",  # an evaluative word with what it is good for: a fact to check
        "Bethany Hamilton was a victim of a great white attack.",
    ],
)
def test_statements_of_fact_that_look_like_opinions_or_fragments_are_kept(extract, sentence):
    result = extract(sentence)
    assert result.dropped == [] and result.claims


@pytest.mark.parametrize(
    "sentence, reason",
    [
        ("Pizza is the best food.", "an opinion, not a checkable fact"),
        ("Chocolate is delicious.", "an opinion, not a checkable fact"),
        ("I visited Paris in 2010.", "the speaker's own view or situation: not a checkable fact"),
        ("Key points", "not a full statement (no verb)"),
    ],
)
def test_opinions_the_speaker_and_fragments_are_left_out(extract, sentence, reason):
    assert [d.reason for d in extract(sentence).dropped] == [reason]


@pytest.mark.parametrize(
    "text, claims",
    [
        (  # "they" is both painkillers, not the first of them
            "Aspirin and ibuprofen are painkillers. They reduce fever and inflammation.",
            ["Aspirin and ibuprofen are painkillers.", "Aspirin and ibuprofen reduce fever and inflammation."],
        ),
        (  # two companies named: "they" is both, not one of them as a company
            "Apple and Microsoft are technology companies. They were founded in the 1970s.",
            ["Apple and Microsoft are technology companies.", "Apple and Microsoft were founded in the 1970s."],
        ),
        (  # a clause hung on the last of them is not part of what "they" means
            "Vitamin C and zinc, which many people take in winter, support the immune system. They do not cure colds.",
            [
                "Vitamin C and zinc, which many people take in winter, support the immune system.",
                "Vitamin C and zinc do not cure colds.",
            ],
        ),
    ],
)
def test_they_after_a_conjoined_subject_means_all_of_it(extract, text, claims):
    assert texts(extract(text)) == claims


@pytest.mark.parametrize(
    "text, claims",
    [
        (
            "Google and Amazon have offices in Dublin.",
            ["Google has offices in Dublin.", "Amazon has offices in Dublin."],
        ),
        (
            "Apple and Microsoft were founded in the 1970s.",
            ["Apple was founded in the 1970s.", "Microsoft was founded in the 1970s."],
        ),
        (
            "Ford and Toyota make cars and sell trucks.",
            ["Ford makes cars.", "Toyota makes cars.", "Ford sells trucks.", "Toyota sells trucks."],
        ),
        ("Google and Facebook can track users.", ["Google can track users.", "Facebook can track users."]),
        # a relation of the two together, or a plural said of both, stays one claim
        ("Tom and Anna met in Paris.", ["Tom and Anna met in Paris."]),
        (
            "The mixtape was a collaboration between Drake and Future.",
            ["The mixtape was a collaboration between Drake and Future."],
        ),
        ("Apple and Microsoft are technology companies.", ["Apple and Microsoft are technology companies."]),
        (  # ... with the lists of what is said of them together
            "Ibuprofen and naproxen are drugs that reduce fever, pain and swelling.",
            ["Ibuprofen and naproxen are drugs that reduce fever, pain and swelling."],
        ),
        # a list and no verb (the tagger read "contain" as a noun): the sentence as written, not pieces of it
        (
            "Coffee and tea contain caffeine, which is a stimulant.",
            ["Coffee and tea contain caffeine, which is a stimulant."],
        ),
    ],
)
def test_a_listed_subject_split_into_one_claim_each_agrees_with_its_verb(extract, text, claims):
    assert texts(extract(text)) == claims


@pytest.mark.parametrize(
    "text, claims",
    [
        # "and" hung on the verb before a noun the parser also hung there ("acids" conjoined to "broken"): kept
        (
            "The aspartame molecule is broken down into methanol and the amino acids phenylalanine and aspartic acid.",
            [
                "The aspartame molecule is broken down into methanol and the amino acids phenylalanine and aspartic acid."
            ],
        ),
        (
            "Argentina has not won the World Cup since 1986 despite making it to the final in 1990 and the semi-finals "
            "in 2014.",
            [
                "Argentina has not won the World Cup since 1986 despite making it to the final in 1990 and the "
                "semi-finals in 2014."
            ],
        ),
        # ... and the one before a verb split off still goes with it
        (
            "He co-founded Twitter in 2006 and served as CEO until 2008.",
            ["He co-founded Twitter in 2006.", "He served as CEO until 2008."],
        ),
        ("Either he won or he lost.", ["He won.", "He lost."]),
    ],
)
def test_a_conjunction_leaves_a_claim_only_with_the_verb_it_joins(extract, text, claims):
    assert texts(extract(text)) == claims


@pytest.mark.parametrize(
    "text",
    [
        # the subject read into the preposition's object: "were mapped" is left without one
        "Prior to the invention of satellites, continents, countries and coastlines were mapped out primarily "
        "through a combination of geodetic data and direct measurement methods.",
        "With the advent of nautical charts, sailors and navigators could also begin to map out the coastlines of "
        "the world.",
    ],
)
def test_a_main_verb_the_parser_left_without_a_subject_leaves_the_sentence_whole(extract, text):
    assert texts(extract(text)) == [text]


def test_a_subject_hung_on_the_auxiliary_is_still_the_verbs(extract):
    text = (  # the parser hangs "emphasis" on "has", not on "contributed"
        "The group's underlying emphasis on quality and professionalism has, in recent years, contributed to the "
        "commercial publication of novels by members including Michael Cobley and Hal Duncan."
    )
    assert len(texts(extract(text))) == 2  # one claim per member named


def test_a_participle_read_as_a_clause_of_its_own_leaves_the_sentence_whole(extract):
    # the parser reads "food and drinks advertised" as a clause and "as 0 calories" as the subject of "may not
    # provide"; the pieces it would give ("Even food and drinks advertised.") are not the text's claims
    text = (
        "Even though food and drinks advertised as 0 calories may not provide any energy when consumed, they can "
        "still be metabolized by your body and used as energy."
    )
    result = extract(text)
    assert texts(result) == [text]
    assert result.claims[0].resolved == {}  # "they" is not "as 0 calories"


@pytest.mark.parametrize(
    "text, claims",
    [
        # the clause's commas go with it
        (
            "The Eiffel Tower, which is in Paris, was built in 1889.",
            ["The Eiffel Tower is in Paris.", "The Eiffel Tower was built in 1889."],
        ),
        # a clause on one member speaks of that member; the list keeps its other members
        (
            "Aspirin, which is cheap, and ibuprofen are painkillers. They reduce fever.",
            ["Aspirin is cheap.", "Aspirin and ibuprofen are painkillers.", "Aspirin and ibuprofen reduce fever."],
        ),
        # a plural clause after the last member speaks of the whole list
        (
            "Aspirin and ibuprofen, which are cheap, are painkillers.",
            ["Aspirin and ibuprofen are cheap.", "Aspirin and ibuprofen are painkillers."],
        ),
        # a list inside what describes a noun is said of its members together
        (
            "The company, founded in 1998 by Larry Page and Sergey Brin, is headquartered in Mountain View.",
            ["The company, founded in 1998 by Larry Page and Sergey Brin, is headquartered in Mountain View."],
        ),
        (
            "The largest waterfall is the Victoria Falls, located on the border of Zambia and Zimbabwe.",
            ["The largest waterfall is the Victoria Falls, located on the border of Zambia and Zimbabwe."],
        ),
        # a verb the parser conjoined to a name, with the name as the root: the sentence as written
        ("Tom, who lives in Paris, and Anna met in 2010.", ["Tom, who lives in Paris, and Anna met in 2010."]),
        # the clause's closing comma before "and" of the sentence's own list is dropped with it
        (
            "The company makes cars, which are sold in Europe, and trucks.",
            ["Cars are sold in Europe.", "The company makes cars and trucks."],
        ),
        # a clause on an object, then a verb that shares the sentence's subject
        (
            "She visited Paris, which is in France, and studied at the Sorbonne.",
            ["Paris is in France.", "She visited Paris.", "She studied at the Sorbonne."],
        ),
        # a noun after the clause's closing ", and" that the parser listed inside the clause: the sentence's, not
        # the clause's (a list of two takes no comma)
        (
            "He visited the Louvre, which houses the Mona Lisa, and the Orsay museum.",
            ["The Louvre houses the Mona Lisa.", "He visited the Louvre and the Orsay museum."],
        ),
        # ... while a list of two or more inside the clause stays the clause's
        (
            "He visited the Louvre, which houses the Mona Lisa and the Venus de Milo.",
            ["The Louvre houses the Mona Lisa and the Venus de Milo.", "He visited the Louvre."],
        ),
        (
            "He visited the Louvre, which houses the Mona Lisa, the Venus de Milo, and the Winged Victory.",
            ["The Louvre houses the Mona Lisa, the Venus de Milo, and the Winged Victory.", "He visited the Louvre."],
        ),
    ],
)
def test_a_relative_clause_is_a_claim_of_what_it_describes_and_leaves_the_rest_whole(extract, text, claims):
    assert texts(extract(text)) == claims


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        # ", where ..." on a named place: the clause's claim says where, after its verb and objects
        (
            "Marie Curie studied in Paris, where she met Pierre.",
            ["Marie Curie met Pierre in Paris.", "Marie Curie studied in Paris."],
        ),
        (
            "Einstein was born in Ulm, Germany, where he lived until 1880, and moved to Munich.",
            [
                "Einstein lived in Ulm, Germany until 1880.",
                "Einstein was born in Ulm, Germany.",
                "Einstein moved to Munich.",
            ],
        ),
        (
            "The treaty was signed in Paris, where the delegates met in 1919.",
            ["The delegates met in Paris in 1919.", "The treaty was signed in Paris."],
        ),
        # a reference only the sentence resolves ("his father": whose?) keeps the clause in its sentence
        (
            "Albert Einstein was born in Ulm, where his father worked as an engineer.",
            ["Albert Einstein was born in Ulm, where his father worked as an engineer."],
        ),
        # ... as do a "where" on what is not a named place and one without its comma
        (
            "False confessions, where someone may confess to a crime, are common.",
            ["False confessions, where someone may confess to a crime, are common."],
        ),
        ("She moved to the house where she was born.", ["She moved to the house where she was born."]),
    ],
)
def test_a_where_clause_on_a_named_place_is_a_claim_that_names_the_place(extract, text, claims):
    assert texts(extract(text)) == claims


def test_relative_clauses_give_their_claims_in_text_order(extract):
    for _ in range(3):  # the same order every time: it does not follow a set's order
        assert texts(extract("Marie Curie, who was born in Warsaw, married Pierre Curie, who was a physicist.")) == [
            "Marie Curie was born in Warsaw.",
            "Pierre Curie was a physicist.",
            "Marie Curie married Pierre Curie.",
        ]
