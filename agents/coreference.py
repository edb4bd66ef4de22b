"""Coreference for claim extraction: whom or what a pronoun, a surname alone or "the company" stands for.

Self-contained
    A subject or possessive pronoun is replaced by the person (he, she, him, his, her) or the thing (it,
    its, they) the text last named; a surname alone by the full name the text gave first ("Dorsey" ->
    "Jack Dorsey"). A pronoun with no antecedent in the text, or none it can be sure of, stays as written, and
    its claim carries the sentences before it as context rather than a guessed name.

:class:`Antecedents` reads the text sentence by sentence (what each names, the full names it gave, the gender it
showed) and answers for each pronoun or definite description as :mod:`.claim_rendering` writes the claims out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.tokens import Span, Token

NON_BREAKING_HYPHEN = "\u2011"
MALE_PRONOUNS = {"he", "him", "his", "himself"}
FEMALE_PRONOUNS = {"she", "her", "hers", "herself"}
PERSON_PRONOUNS = MALE_PRONOUNS | FEMALE_PRONOUNS
SINGULAR_THING_PRONOUNS = {"it", "its"}
PLURAL_PRONOUNS = {"they", "their", "them"}
THING_PRONOUNS = SINGULAR_THING_PRONOUNS | PLURAL_PRONOUNS
COLLECTIVE_LABELS = {"ORG", "GPE", "NORP"}  # "Argentina ... they won", "Apple ... their phones"
THING_LABELS = {"ORG", "GPE", "LOC", "WORK_OF_ART", "PRODUCT", "FAC", "EVENT", "NORP", "LAW"}
SUBJECTS = {"nsubj", "nsubjpass"}
# "the company" -> the last-named organisation ...: the entity labels a definite description can stand for
KIND_LABELS = {
    **dict.fromkeys(
        [
            "company",
            "firm",
            "corporation",
            "organization",
            "organisation",
            "business",
            "startup",
            "band",
            "team",
            "club",
            "university",
            "agency",
            "party",
            "brand",
            "manufacturer",
            "publisher",
            "label",
            "network",
        ],
        {"ORG"},
    ),
    **dict.fromkeys(
        [
            "city",
            "country",
            "state",
            "nation",
            "town",
            "capital",
            "province",
            "region",
            "village",
            "county",
            "republic",
            "kingdom",
        ],
        {"GPE"},
    ),
    **dict.fromkeys(["river", "lake", "mountain", "sea", "ocean", "island", "continent", "desert", "valley"], {"LOC"}),
    **dict.fromkeys(
        ["film", "movie", "book", "novel", "song", "album", "series", "show", "painting", "play", "opera", "game"],
        {"WORK_OF_ART", "PRODUCT"},
    ),
    **dict.fromkeys(
        [
            "building",
            "tower",
            "bridge",
            "airport",
            "stadium",
            "museum",
            "cathedral",
            "church",
            "palace",
            "castle",
            "monument",
            "statue",
            "temple",
            "dam",
        ],
        {"FAC"},
    ),
    **dict.fromkeys(["war", "battle", "election", "festival", "tournament", "championship", "revolution"], {"EVENT"}),
}
MALE_WORDS = {"mr", "mr.", "sir", "king", "prince", "husband", "father", "son", "brother", "actor", "man", "lord"}
FEMALE_WORDS = {"mrs", "mrs.", "ms", "ms.", "miss", "lady", "dame", "queen", "princess", "wife", "mother",
                "daughter", "sister", "actress", "woman"}  # fmt: skip
LOOKBACK = 2  # sentences before the pronoun's own that can hold what it refers to
KINSHIP = {"father", "mother", "son", "daughter", "brother", "sister", "wife", "husband", "uncle", "aunt",
           "grandfather", "grandmother", "grandson", "granddaughter", "cousin", "nephew", "niece", "parent",
           "stepfather", "stepmother", "widow", "widower"}  # fmt: skip


@dataclass
class _Mention:
    """Something the text named: a person or a thing, with what a pronoun must agree with."""

    text: str
    person: bool
    plural: bool
    label: str  # the entity label, "" for a plain noun phrase
    head: str  # the lemma of its last word ("tower" for "Eiffel Tower")
    sentence: int
    position: int  # token index in the document of its first word
    subject: bool  # the subject of its clause
    head_position: int = -1  # token index of its head word
    main: bool = False  # the subject of its sentence's main clause
    attribute: bool = False  # the name in "X is <name>"


class Antecedents:
    """What the text named sentence by sentence, the full names it gave, and the gender it showed for a person.

    A pronoun resolves only to a mention it agrees with: in number, person or thing, and (where the text has
    shown it: a pronoun already resolved, a title, a gendered word beside the name) gender. Within its own
    sentence a pronoun looks back first, preferring the subject of the clause it hangs on; an object pronoun
    never means the subject of its own clause ("X shared the prize with her" is not X). Across sentences it
    prefers the subject of the sentence before, then the one candidate there is. Two or more candidates
    that nothing tells apart leave the pronoun as written: the claim then carries its preceding sentences as
    context rather than a guess."""

    def __init__(self) -> None:
        self.mentions: list[_Mention] = []
        self.sentence = 0
        self.full_names: list[str] = []
        self.gender: dict[str, str] = {}  # person -> "he" | "she", as the text has shown it
        # each sentence's main subject: ("pronoun", whom it meant or None), ("name", text) or ("other", text)
        self.subjects: dict[int, tuple[str, str | None]] = {}
        self.pending: str | None = None  # whom the sentence being read's main-subject pronoun meant
        self.by_token: dict[int, _Mention | None] = {}  # what each pronoun resolved to, by token index
        self._by_sentence: dict[int, list[_Mention]] = {}  # each sentence's mentions, by its first token

    def full_name(self, name: str) -> str:
        """``name`` as the text first gave it in full ("Dorsey" -> "Jack Dorsey")."""
        matches = [full for full in self.full_names if full != name and full.endswith(" " + name)]
        return matches[0] if len(matches) == 1 else name  # two Porters: the surname alone stays

    def _agrees(self, mention: _Mention, pronoun: str, collective: bool = False) -> bool:
        if pronoun in PERSON_PRONOUNS:
            if not mention.person or mention.plural:
                return False
            shown = self.gender.get(mention.text)
            return shown is None or shown == ("she" if pronoun in FEMALE_PRONOUNS else "he")
        if pronoun in SINGULAR_THING_PRONOUNS:
            return not mention.person and not mention.plural
        return mention.plural or (collective and mention.label in COLLECTIVE_LABELS)  # they, their, them

    def resolve(self, token: Token) -> str | None:
        """What the pronoun ``token`` stands for, or None when nothing (or more than one thing) fits."""
        pronoun = token.lower_
        if pronoun in PERSON_PRONOUNS:
            choice = self._person(token)
        else:
            choice = self._thing(token)
        self.by_token[token.i] = choice
        if choice is None:
            return None
        if pronoun in PERSON_PRONOUNS and choice.text not in self.gender:
            self.gender[choice.text] = "she" if pronoun in FEMALE_PRONOUNS else "he"
        if token.dep_ in SUBJECTS and token.head.dep_ == "ROOT":
            self.pending = choice.text
        return choice.text

    def _person(self, token: Token) -> _Mention | None:
        """He, she, his, her ...: the one person before it in its own sentence (never its own clause's subject),
        else the person the sentence before is about. Unsure, it stays as written: two people in its sentence, a
        subject before it that is a name not known as a person or another pronoun, or the sentence's subject
        named only after it ("Despite her doubts, Winslet ...")."""
        pronoun = token.lower_
        sentence = token.sent
        main = next((c for c in sentence.root.children if c.dep_ in SUBJECTS), None)
        mentions = self._sentence_mentions(token)
        if main is not None and main.i > token.i and (main.pos_ == "PROPN" or main.ent_type_ == "PERSON"):
            return None
        own = [
            m
            for m in mentions
            if m.position < token.i and self._agrees(m, pronoun) and not _same_clause_subject(m, token)
        ]
        people = {m.text for m in own}
        anywhere = {m.text for m in mentions if m.person and not _same_clause_subject(m, token)}
        if token.dep_ not in SUBJECTS and len(anywhere) > 1:
            return None  # "X called Y to interview him": a possessive or object with two people around it
        if token.tag_ == "PRP$" or token.dep_ == "poss":
            subject = _clause_subject(token)
            if subject is not None and subject.i < token.i and subject.lower_ in PERSON_PRONOUNS:
                same = (subject.lower_ in FEMALE_PRONOUNS) == (pronoun in FEMALE_PRONOUNS)
                return self.by_token.get(subject.i) if same else None  # "He joined X, scoring on his debut"
            if subject is not None and subject.i < token.i and subject.pos_ != "PRON":
                found = next((m for m in mentions if m.position <= subject.i <= m.head_position), None)
                if found is None or not found.person:
                    return None  # "Timberlake dedicated the film to Prince for his music": his is the subject's
                return found if self._agrees(found, pronoun) else None
        for subject in (s for s in sentence if s.dep_ in SUBJECTS and s.i < token.i):
            if subject.pos_ == "PRON" and subject.lower_ in PERSON_PRONOUNS and subject.i != token.i:
                return None if len(people) != 1 else own[-1]
            if subject.pos_ == "PROPN" and not any(m.position <= subject.i <= m.head_position for m in mentions):
                return None  # a name the parser did not take for a person or a thing: could be who it means
        if own:
            return own[-1] if len(people) == 1 else None  # two people in its sentence: not a guess
        return self._person_before(pronoun)

    def _person_before(self, pronoun: str) -> _Mention | None:
        """The person the sentence before is about: its main subject when that is a person (or a pronoun, then
        whom that pronoun meant); when its subject is not a name, the one person it names; else nobody."""
        for back in range(1, LOOKBACK + 1):
            number = self.sentence - back
            before = [m for m in self.mentions if m.sentence == number]
            subject = self.subjects.get(number)
            if subject is not None and subject[0] == "pronoun":
                name = subject[1]
                if name is None or (pronoun in FEMALE_PRONOUNS) != (self.gender.get(name) == "she"):
                    return None
                return next((m for m in reversed(self.mentions) if m.text == name), None)
            main = [m for m in before if m.attribute and m.person] + [m for m in before if m.main and m.person]
            if main:
                return main[0] if self._agrees(main[0], pronoun) else None
            if subject is not None and subject[0] == "name":
                return None  # its subject is a name not known as a person: could be whom it means
            if subject is not None and (subject[1] or "").lower() in KINSHIP:
                return None  # "His father, X, was ...": he may be the father or the one the text is about
            people = [m for m in before if self._agrees(m, pronoun)]
            if len({m.text for m in people}) == 1:
                return people[0]
            if people:
                return None
        return None

    def _thing(self, token: Token) -> _Mention | None:
        """It, its, they, their, them, only where what it means is clear:

        * the first subject of its sentence ("It was completed in 1889.") means the subject of the main clause of
          the sentence before, when that agrees with it (in "X is <name>", the name);
        * the subject of a clause joined to the main clause ("X is ..., and it lies ...", "When X ..., it ...")
          means the main clause's subject;
        * a possessive means a named thing only, found the same way.

        Anywhere else ("the fact that they live", "allowing it to", a subject of another clause coming between)
        it stays as written: a wrong name is worse than a pronoun with its context."""
        pronoun = token.lower_
        named_only = token.dep_ not in SUBJECTS
        sentence = token.sent
        root = sentence.root
        earlier_subjects = [s for s in _clause_subjects(sentence) if s.i < token.i]
        if not earlier_subjects:
            if token.dep_ in SUBJECTS and token.head.i != root.i and not _joined_to_root(token.head):
                return None
            return self._main_subject_before(pronoun, named_only)
        main = next((c for c in root.children if c.dep_ in SUBJECTS), None)
        if main is None or main.pos_ == "PRON" or main.i > token.i or earlier_subjects[-1].i != main.i:
            return None
        if token.dep_ in SUBJECTS and not _joined_to_root(token.head):
            return None
        if named_only and token.head.i != root.i and not _joined_to_root(token.head) and token.dep_ != "poss":
            return None
        mention = next((m for m in self._sentence_mentions(token) if m.position <= main.i <= m.head_position), None)
        collective = not named_only  # "they" for a company or a team; never "their" (Elsa and Anna's songs)
        if mention is None or not self._agrees(mention, pronoun, collective) or (named_only and not mention.label):
            return None
        return mention

    def _main_subject_before(self, pronoun: str, named_only: bool) -> _Mention | None:
        """The sentence before's main subject (or, in "X is <name>", the name) when it agrees with ``pronoun``."""
        before = [m for m in self.mentions if m.sentence == self.sentence - 1]
        named_attribute = [m for m in before if m.label and m.subject and m.attribute]
        main = [m for m in before if m.subject and m.main]
        collective = not named_only and not any(m.person for m in before)  # "they" for a team, not beside people
        # a plural first ("Apple and Microsoft ... They" are both, not Apple as a company), then a collective name
        for allowed in dict.fromkeys((False, collective)):
            for mention in named_attribute + main:
                if self._agrees(mention, pronoun, collective=allowed) and (mention.label or not named_only):
                    return mention
        return None

    def describe(self, head: Token) -> str | None:
        """The entity a definite description stands for, or None: one the text named with that word ("the tower"
        after "the Eiffel Tower"), or, for the subject of a sentence, the main subject of one of the sentences
        just before that is of its kind ("the company" after "Siemens was founded ...")."""
        lemma = head.lemma_.lower()
        labels = KIND_LABELS.get(lemma, set())
        plural = head.tag_ in {"NNS", "NNPS"}
        earlier = [m for m in self.mentions if m.label and m.plural == plural]
        named = list(dict.fromkeys(m.text for m in earlier if m.head == lemma and m.text.lower() != f"the {lemma}"))
        if named:
            return named[0] if len(named) == 1 else None  # two councils named: which one is not said
        labels &= {"ORG", "GPE"}  # "the album" after a single's name, "the region" after a planet: too loose
        if head.dep_ not in SUBJECTS or not labels:
            return None
        recent = [m for m in earlier if m.sentence >= self.sentence - LOOKBACK and (m.main or m.attribute)]
        kinds = [m for m in recent if m.label in labels]
        return kinds[-1].text if kinds else None

    def _sentence_mentions(self, token: Token) -> list[_Mention]:
        return self._mentions_of(token.sent)

    def _mentions_of(self, sentence: Span) -> list[_Mention]:
        """What ``sentence`` names, worked out once: every pronoun of it and :meth:`read` ask again."""
        if sentence.start not in self._by_sentence:
            self._by_sentence[sentence.start] = _mentions(sentence, self, self.sentence)
        return self._by_sentence[sentence.start]

    def read(self, sentence: Span) -> None:
        """Take in what ``sentence`` names (after its claims were made), and go on to the next sentence."""
        for mention in self._mentions_of(sentence):
            if mention.person:
                relative = _named_as_relative(sentence, mention)  # "His father James Williams": not who "Williams" is
                if " " in mention.text and mention.text not in self.full_names and not relative:
                    self.full_names.append(mention.text)
                shown = _shown_gender(sentence, mention)
                if shown and mention.text not in self.gender:
                    self.gender[mention.text] = shown
            self.mentions.append(mention)
        main = next((c for c in sentence.root.children if c.dep_ in SUBJECTS), None)
        if main is not None and main.pos_ == "PRON" and main.lower_ in PERSON_PRONOUNS:
            self.subjects[self.sentence] = ("pronoun", self.pending)
        elif main is not None and main.pos_ == "PROPN":
            self.subjects[self.sentence] = ("name", main.text)
        elif main is not None:
            self.subjects[self.sentence] = ("other", main.text)
        self.pending = None
        self.sentence += 1


def _clause_subject(token: Token) -> Token | None:
    """The subject of the clause ``token`` is in (a conjoined verb's shared one included)."""
    clause = token.head
    while clause.pos_ not in {"VERB", "AUX"} and clause.head.i != clause.i:
        clause = clause.head
    subject = next((c for c in clause.children if c.dep_ in SUBJECTS), None)
    while subject is None and clause.dep_ in {"conj", "advcl", "xcomp"} and clause.head.i != clause.i:
        clause = clause.head
        subject = next((c for c in clause.children if c.dep_ in SUBJECTS), None)
    return subject


def _joined_to_root(verb: Token) -> bool:
    """A clause joined to the sentence's main clause: a conjoined verb or an adverbial clause on the root."""
    return verb.dep_ in {"conj", "advcl"} and verb.head.dep_ == "ROOT"


def _clause_subjects(sentence: Span) -> list[Token]:
    """The subjects of the sentence's clauses that are not pronouns or "there" (in text order)."""
    return [
        t
        for t in sentence
        if t.dep_ in SUBJECTS | {"csubj", "csubjpass"} and t.pos_ != "PRON" and t.lower_ not in {"there", "here"}
    ]


def _same_clause_subject(mention: _Mention, pronoun: Token) -> bool:
    """An object or oblique pronoun cannot mean its own clause's subject ("X met him": him is not X)."""
    if pronoun.dep_ in SUBJECTS or pronoun.tag_ == "PRP$" or pronoun.dep_ == "poss" or pronoun.lower_.endswith("self"):
        return False
    subject = _clause_subject(pronoun)  # "X took Y ... and collaborated with him": X's clause
    return subject is not None and mention.subject and subject.left_edge.i <= mention.position <= subject.i


def _named_as_relative(sentence: Span, mention: _Mention) -> bool:
    """The person is named as someone's relative: "his father James Williams", "her husband, Tom Smith"."""
    before = [t for t in sentence.doc[max(sentence.start, mention.position - 3) : mention.position] if not t.is_punct]
    return any(t.lemma_.lower() in KINSHIP for t in before[-2:])


def _shown_gender(sentence: Span, mention: _Mention) -> str | None:
    """He or she, when the words beside the name show it ("Mrs. Smith", "his wife, Jane Smith")."""
    before = sentence.doc[max(sentence.start, mention.position - 2) : mention.position]
    words = {t.lower_ for t in before}
    if words & MALE_WORDS:
        return "he"
    if words & FEMALE_WORDS:
        return "she"
    return None


def _mentions(sentence: Span, antecedents: Antecedents, number: int) -> list[_Mention]:
    """The people and things ``sentence`` names: its entities, and the noun phrases that are subjects."""
    out: list[_Mention] = []
    taken: set[int] = set()
    for ent in sentence.ents:
        if ent.label_ == "PERSON":
            text = antecedents.full_name(re.sub(r"['’]s?$", "", original_text(ent)))
            person = True
        elif ent.label_ in THING_LABELS:
            text, person = original_text(ent), False
        else:
            continue
        root = ent.root
        plural = root.tag_ in {"NNS", "NNPS"} and ent.label_ != "PERSON"
        attribute = root.dep_ == "attr" and root.head.lemma_ == "be" and root.head.dep_ == "ROOT"  # "X is <name>"
        subject = root.dep_ in SUBJECTS or attribute
        main = root.dep_ in SUBJECTS and root.head.dep_ == "ROOT"
        out.append(
            _Mention(
                text,
                person,
                plural,
                ent.label_,
                ent[-1].lemma_.lower(),
                number,
                ent.start,
                subject,
                ent.end - 1,
                main,
                attribute,
            )
        )
        taken |= set(range(ent.start, ent.end))
    for token in sentence:
        if token.dep_ not in SUBJECTS or token.i in taken or token.pos_ not in {"NOUN", "PROPN"}:
            continue
        if conjoined(token):
            continue  # "Aspirin and ibuprofen": the first of them alone is not what the subject names (below)
        words = [t for t in token.subtree if t.i <= token.i]  # the phrase up to its head ...
        if any(t.i in taken for t in words):
            continue
        for prep in (c for c in token.children if c.dep_ == "prep" and c.lower_ == "of"):  # ... with "of ..."
            words += list(prep.subtree)
        words = sorted(words, key=lambda t: t.i)
        if len(words) > 8 or misread_phrase(token):
            continue  # long, or opening on "as" ("as 0 calories"): a misread phrase, not a name to repeat
        text = original_text(token.doc[words[0].i : words[-1].i + 1])
        if any(mark in text for mark in '"“”()[]'):
            continue  # a quoted or bracketed phrase: its words are not a name to repeat
        plural = token.tag_ in {"NNS", "NNPS"}
        main = token.head.dep_ == "ROOT"
        out.append(_Mention(text, False, plural, "", token.lemma_.lower(), number, words[0].i, True, token.i, main))
    # conjoined people or things as a subject are a plural mention of their own ("Tom and Anna ... They"): the
    # conjuncts with their own words, not a clause hung on the last ("Coffee and tea, which ..."), at most 8 words
    for token in sentence:
        if token.dep_ in SUBJECTS and conjoined(token):
            words = _conjunction(token)
            text = _joined(words)
            if len(words) > 8 or any(mark in text for mark in '"“”()[]'):
                continue
            main = token.head.dep_ == "ROOT"
            out.append(_Mention(text, False, True, "", token.lemma_.lower(), number, words[0].i, True, token.i, main))
    return sorted(out, key=lambda m: m.position)


def _conjunction(token: Token) -> list[Token]:
    """The words of the conjoined phrase ``token`` heads: its conjuncts with their own words, the relative clauses
    and appositions hung on any of them left out with their commas ("Aspirin, which is cheap, and ibuprofen" is
    "Aspirin and ibuprofen")."""
    members = [token]
    for member in members:
        members.extend(c for c in member.children if c.dep_ == "conj")
    asides = [c for m in members for c in m.children if c.dep_ in _ASIDES]
    edges = {a.left_edge.i - 1 for a in asides} | {a.right_edge.i + 1 for a in asides}
    inside = {t.i for a in asides for t in a.subtree}
    return [t for t in token.subtree if t.i not in inside and not (t.text == "," and t.i in edges)]


def _joined(words: list[Token]) -> str:
    """The words in text order as written: the space each had after it where the next word follows it in the
    text, one space where words were left out between them."""
    parts = []
    for word, following in zip(words, [*words[1:], None]):
        space = "" if following is None else (word.whitespace_ if following.i == word.i + 1 else " ")
        parts.append(original_text(word) + space)
    return "".join(parts)


_ASIDES = {"relcl", "acl", "appos"}


def original_text(span_or_token) -> str:
    return span_or_token.text.replace(NON_BREAKING_HYPHEN, "-")


def conjoined(token: Token) -> bool:
    return any(c.dep_ == "conj" for c in token.children)


def misread_phrase(token: Token) -> bool:
    """The phrase ``token`` heads opens on a preposition or subordinator that heads no prepositional phrase of its
    own ("as 0 calories" of "food and drinks advertised as 0 calories may ..."): the parser cut the sentence in the
    wrong place ("With the invention of satellites, mapping out ..." hung on "mapping" reads as the text does)."""
    first = token.left_edge
    return first.pos_ in {"ADP", "SCONJ"} and first.dep_ != "prep"
