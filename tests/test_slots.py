"""A passage speaks to a claim's slot only when it is about the claim's subject and states a value of the claim's
kind for the same relation (agents/slots.py): what may contradict a claim in grounding."""

from __future__ import annotations

import pytest

from mermaid_verifier.agents.slots import ClaimReader, speaks_to_slot

SAME_SLOT = [
    ("Mozart was born in London.", "Mozart was born in Salzburg."),
    ("Mozart was born in London.", "Wolfgang Amadeus Mozart (born 27 January 1756 in Salzburg) was a composer."),
    ("The Great Pyramid of Giza is located in Mexico.", "The Great Pyramid of Giza is located in Giza, Egypt."),
    ("The capital of Canada is Toronto.", "Ottawa is the capital city of Canada."),
    ("Smith has two cousins.", "Smith had two cousins and a sister."),
    ("Acme employs 2,000 people.", "It employs 450 people."),
]

OTHER_SLOT = [
    ("Smith has two cousins.", "Smith has two sons."),  # another counted noun
    ("Lucas won two People's Choice Awards.", "Lucas won two Emmy Awards."),  # another award
    ("Stephen King published a 1987 novel.", "The Tommyknockers, his fourth novel (1988), was a bestseller."),
    (
        "The company is listed on the Oslo Stock Exchange.",
        "Acme Robotics employs 450 people. Its headquarters are in Berlin.",
    ),
    ("Mozart was born in London.", "Beethoven was born in Bonn."),  # another subject
]


@pytest.mark.parametrize(("claim", "passage"), SAME_SLOT)
def test_a_passage_stating_the_same_subject_and_relation_speaks_to_the_slot(claim, passage):
    reading = speaks_to_slot(claim, passage)
    assert reading.about_subject and reading.states_slot, reading.reason


@pytest.mark.parametrize(("claim", "passage"), OTHER_SLOT)
def test_a_passage_about_something_else_does_not(claim, passage):
    reading = speaks_to_slot(claim, passage)
    assert not reading.states_slot, reading.reason
    assert reading.reason


def test_the_subject_may_be_named_by_the_title_and_an_indefinite_object_is_existential():
    assert speaks_to_slot("Mozart was born in London.", "He was born in Salzburg.", title="Mozart").states_slot
    other = speaks_to_slot("Beethoven was born in London.", "The composer was born in Salzburg.", title="Mozart")
    assert not other.about_subject and not other.states_slot
    reading = speaks_to_slot("Acme sells a robot.", "Acme sells the Model X robot.")
    assert not reading.states_slot and "existential" in reading.reason


def test_the_reason_names_what_the_passage_states_in_plain_words():
    """A reason a person reads: the kind of value with its article, never the parser's kind name."""
    born = speaks_to_slot("Mozart was born in London.", "Mozart was born in Salzburg.")
    assert born.reason == "names 'mozart'; states a place 'Salzburg'"
    tall = speaks_to_slot("It is 500 metres tall.", "The tower is 330 metres tall.")
    assert tall.states_slot and tall.reason.endswith("states the claim's word 'tall'")
    unstated = speaks_to_slot("Acme was founded in 1990.", "Acme makes robots for car factories.")
    assert not unstated.states_slot and "states no date for" in unstated.reason


def test_support_needs_the_claims_numbers_dates_and_names():
    reader = ClaimReader.of("Acme opened a factory in Leipzig in 2020 with 300 workers.")
    assert reader.missing("In 2020 Acme opened a second factory in Leipzig. It employs 300 workers.") == []
    assert reader.missing("In 2020 Acme opened a factory in Leipzig.") == ["300"]
    assert reader.missing("Acme opened a factory in Dresden with three hundred workers in 2021.") == [
        "2020",
        "300",
        "Leipzig",
    ]
    assert ClaimReader.of("Acme has two plants.").missing("It runs 2 plants.") == []  # a number word is the number


ADELAIDE = (
    "Adelaide is the capital and most populous city of South Australia, as well as the fifth-most populous city in "
    "Australia."
)
CANADA = (
    "Canada is a country in North America. Its capital is Ottawa and its three largest metropolitan areas are "
    "Toronto, Montreal, and Vancouver."
)
ONTARIO = "Toronto is the most populous city in Canada and the capital city of the Canadian province of Ontario."

OTHER_NAME = [  # (claim, passage, the other name the passage binds to the claim's single-valued slot)
    ("Toronto is the capital of Canada.", CANADA, "Ottawa"),  # the claimed name is there, in another role
    ("The capital of Canada is Toronto.", CANADA, "Ottawa"),
    ("Canada's capital is Toronto.", CANADA, "Ottawa"),
    ("Toronto is the capital of Canada.", "Ottawa is the capital city of Canada.", "Ottawa"),
    ("Toronto is the capital of Canada.", "Canada's capital, Ottawa, lies on the Ottawa River.", "Ottawa"),
    ("Berlin is the capital of France.", "The country's capital and largest city is Paris.", "Paris"),
    ("Robert Zemeckis is the director of Cast Away.", "The director of the film is Ron Howard.", "Ron Howard"),
]

NO_OTHER_NAME = [
    ("Ottawa is the capital of Canada.", CANADA),  # the claimed name is the one bound
    ("Paris is the capital of France.", "Paris is the capital and most populous city of France."),
    ("La Paz is the capital of Bolivia.", "Bolivia's capitals are Sucre and La Paz."),
    ("Berlin is the capital of France.", "Paris is not the capital of Germany."),  # negated, and Germany's
    ("Toronto is a city of Canada.", CANADA),  # indefinite: one of several
    ("Toronto is not the capital of Canada.", CANADA),  # the claim's own slot negated
    ("Toronto is the largest city of Canada.", CANADA),  # "largest metropolitan areas" is another noun
    ("Ottawa is the capital city of Canada.", "Toronto is the largest city of Canada."),  # "capital" vs "largest"
    ("Lady Amelia is the younger sister of Edward.", "Lady Marina is the younger sister of Edward."),  # kin: many
    # another owner, named after "by"
    ("The Endless River is Pink Floyd's ninth studio album.", "Rain Dogs is the ninth studio album by Tom Waits."),
    # an owner neither named nor referring back, in a passage that does not name the claim's subject
    ("Ottawa is the capital of Canada.", "Toronto is the capital of a large province."),
    # an owner whose name holds the subject's ("South Australia" is not Australia), named on the noun or its conjunct
    ("Sydney is the capital of Australia.", "Perth is the capital city of Western Australia."),
    ("Sydney is the capital of Australia.", ADELAIDE),
]


@pytest.mark.parametrize(("claim", "passage", "other"), OTHER_NAME)
def test_a_passage_binding_a_single_valued_slot_to_another_name_says_so(claim, passage, other):
    reader = ClaimReader.of(claim)
    bound = reader.bound(passage)
    assert bound is not None and bound.value == other and not bound.owner
    assert reader.bound_reason(bound).endswith(f"as {other!r}, not {reader.slot.values[0].text!r}")


@pytest.mark.parametrize(("claim", "passage"), NO_OTHER_NAME)
def test_no_other_name_where_the_claimed_one_is_bound_or_the_slot_is_not_single(claim, passage):
    bound = ClaimReader.of(claim).bound(passage)
    assert bound is None or not bound.value


def test_an_owner_named_on_the_nouns_conjunct_owns_the_noun():
    bound = ClaimReader.of("Adelaide is the capital of Australia.").bound(ADELAIDE)
    assert bound is not None and bound.owner == "South Australia" and not bound.value
    assert ClaimReader.of("Adelaide is the capital of South Australia.").bound(ADELAIDE) is None


def test_the_claimed_name_as_another_owners_slot_is_that_owners():
    reader = ClaimReader.of("Toronto is the capital of Canada.")
    for passage in (ONTARIO, "Toronto is the capital of Ontario."):
        bound = reader.bound(passage)
        assert bound is not None and bound.owner == "Ontario" and not bound.value
    assert ClaimReader.of("Toronto is the capital of Ontario.").bound(ONTARIO) is None
    album = ClaimReader.of("The Endless River is Journey's fifteenth studio album.")
    by = album.bound("The Endless River is the fifteenth studio album by the English rock band Pink Floyd.")
    assert by is not None and by.owner == "Pink Floyd"
    assert "of 'Ontario', not of the claim's subject" in reader.bound_reason(bound)


NOBEL = "He received the 1921 Nobel Prize in Physics for his services to theoretical physics."

YEAR_ELSEWHERE = [
    ("Albert Einstein was born in 1921.", NOBEL, "the 1921 Nobel Prize"),
    # the sentence of the relation holds another year; the claimed one is the prize's
    ("Albert Einstein was born in 1921.", "Albert Einstein was born on 14 March 1879 in Ulm. " + NOBEL,
     "the 1921 Nobel Prize"),
    ("Barack Obama was elected in 2004.", "He gave the keynote address at the 2004 Democratic National Convention.",
     "the 2004 Democratic National Convention"),
]  # fmt: skip

YEAR_LEFT_TO_THE_READER = [
    ("Albert Einstein won the Nobel Prize in 1921.", NOBEL),  # the relation's kin: "received"
    ("Albert Einstein was born in 1879.", "Albert Einstein (14 March 1879 – 18 April 1955) was a physicist."),
    ("Avatar was released in 2009.", "Avatar is a 2009 American epic science fiction film."),  # the subject's class
    ("Avatar was released in 2009.", "The 2009 film stars Sam Worthington."),  # may be the subject
    ("Brad Pitt starred in Troy in 2004.", "He appeared in the 2004 film Troy."),  # another value of the claim
    ("Good Charlotte released the album in 2002.", "The band is best known for their 2002 single."),  # its own
    ("Albert Einstein was born in Ulm.", NOBEL),  # no year claimed
    ("Albert Einstein was born in 1921.", "He moved to Berlin in 1914."),  # the year is not there
]


@pytest.mark.parametrize(("claim", "passage", "holder"), YEAR_ELSEWHERE)
def test_a_claimed_year_written_only_as_another_things_is_not_the_claims(claim, passage, holder):
    reader = ClaimReader.of(claim)
    bound = reader.bound(passage)
    assert bound is not None and bound.holder == holder and not bound.value and not bound.owner
    assert reader.bound_reason(bound) == (
        f"gives {bound.year!r} as the year of {holder!r}, not for {reader.slot.relation_text!r}"
    )


@pytest.mark.parametrize(("claim", "passage"), YEAR_LEFT_TO_THE_READER)
def test_a_year_of_the_relation_the_subject_or_the_claims_values_is_left_to_the_reader(claim, passage):
    assert ClaimReader.of(claim).bound(passage) is None


PRINCIPIA = "His book Principia Mathematica, first published in 1687, achieved the first great unification in physics."

OTHER_RELATIONS_YEARS = [
    ("Isaac Newton was born in 1643.", PRINCIPIA, "published"),
    ("Albert Einstein was born in 1879.", NOBEL, "received"),
    ("Isaac Newton died in 1726.", "Newton was born in 1643 and published Principia in 1687.", "born"),
]

YEARS_THAT_MAY_BE_THE_CLAIMS = [
    ("Albert Einstein was born in 1880.", "Albert Einstein (14 March 1879 – 18 April 1955) was a physicist."),
    ("Albert Einstein was born in 1880.", "Albert Einstein was born on 14 March 1879 in Ulm."),  # the relation
    ("The film was released in 2009.", "Filming began in 2007."),  # no known relation governs the year
    ("Isaac Newton was born in Woolsthorpe.", PRINCIPIA),  # no year claimed
    ("Isaac Newton was born in 1643.", "Newton was a mathematician."),  # no year given
    ("Isaac Newton was born in 1643.", "The Principia of 1687."),  # no verb above the year: its root ends the climb
]


@pytest.mark.parametrize(("claim", "passage", "word"), OTHER_RELATIONS_YEARS)
def test_a_passage_whose_years_are_all_another_relations_is_named_by_that_relation(claim, passage, word):
    assert ClaimReader.of(claim).other_relation(passage) == word


@pytest.mark.parametrize(("claim", "passage"), YEARS_THAT_MAY_BE_THE_CLAIMS)
def test_a_year_that_may_be_the_claims_names_no_other_relation(claim, passage):
    assert ClaimReader.of(claim).other_relation(passage) == ""
