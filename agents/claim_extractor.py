"""Offline claim extraction: a text -> atomic, self-contained claims, each with its sentence's span.

Sentences
    spaCy's parse splits the text; each sentence keeps its character span in the text. A hyphen inside a
    word is parsed as one word ("co-founded"), the text itself is never changed.
What is dropped, and why
    Questions; greetings, thanks and sign-offs ("I hope this helps!"); instructions (a sentence that opens
    with a bare verb: "Note that ...", "Please check ..."); the speaker's own view or situation (first or
    second person subject, "I think ..."); opinions (a copula with only an evaluative adjective: "It is a
    great film"); fragments without a verb; and sentences that name nothing to look up (no name, number or
    date). Each dropped sentence says which.
Atomic claims
    The main predicate and every verb conjoined to it become one claim each, with the subject repeated
    ("He co-founded Twitter in 2006 and served as CEO until 2008" -> two claims); a conjoined passive
    participle borrows the auxiliary ("was born in A and raised in B"). A list of names as subject or
    object gives one claim per name ("include France, China and Russia" -> three).
Self-contained
    A subject or possessive pronoun is replaced by the person (he, she, him, his, her) or the thing (it,
    its, they) the text last named; a surname alone by the full name the text gave first ("Dorsey" ->
    "Jack Dorsey"); a leading connective ("However,", "Additionally,") is cut. A claim whose pronoun has no
    antecedent in the text is dropped, saying so, rather than checked about nobody.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from spacy.tokens import Span, Token

from mermaid_verifier.agents.spacy_pipeline import LazyPipeline
from mermaid_verifier.claims import looks_like_question
from mermaid_verifier.models import DroppedSentence, ExtractedClaim, TextClaims

NON_BREAKING_HYPHEN = "\u2011"
_IN_WORD_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")
_COURTESY = re.compile(
    r"^(hi|hello|hey|thanks|thank you|sure|of course|certainly|absolutely|great question|good question|"
    r"i hope|hope this|feel free|let me know|good luck|you're welcome|you are welcome|as an ai|"
    r"i'm sorry|i am sorry|sorry|here (is|are))\b",
    re.IGNORECASE,
)
_OPINION_OPENERS = re.compile(r"^(i think|i believe|i feel|in my (opinion|view)|personally)\b", re.IGNORECASE)
_HEDGES = re.compile(
    r"^(perhaps|maybe|possibly|presumably|it seems|it appears|it is (possible|likely|conceivable) that|"
    r"it (may|might|could) be that)\b",
    re.IGNORECASE,
)
_CONNECTIVE = re.compile(
    r"^(however|additionally|moreover|furthermore|also|in addition|in fact|notably|indeed|besides|"
    r"therefore|thus|as a result|meanwhile|similarly|in summary|in conclusion|to summarize|to sum up|overall|"
    r"in short|finally|first|second|third|lastly)\s*,\s*",
    re.IGNORECASE,
)
EVALUATIVE = {
    "great",
    "amazing",
    "awesome",
    "wonderful",
    "beautiful",
    "terrible",
    "awful",
    "delicious",
    "interesting",
    "fascinating",
    "boring",
    "good",
    "bad",
    "nice",
    "excellent",
    "fantastic",
    "incredible",
    "impressive",
    "enjoyable",
    "fun",
    "lovely",
}
MALE_PRONOUNS = {"he", "him", "his", "himself"}
FEMALE_PRONOUNS = {"she", "her", "hers", "herself"}
PERSON_PRONOUNS = MALE_PRONOUNS | FEMALE_PRONOUNS
SINGULAR_THING_PRONOUNS = {"it", "its"}
PLURAL_PRONOUNS = {"they", "their", "them"}
THING_PRONOUNS = SINGULAR_THING_PRONOUNS | PLURAL_PRONOUNS
SPEAKER_PRONOUNS = {"i", "me", "my"}
GENERIC_PRONOUNS = {
    "we",
    "us",
    "our",
    "you",
    "your",
}  # often "anyone" in explanations: a speaker's own only in the past
ADVICE_MODALS = {"should", "must", "ought"}
COLLECTIVE_LABELS = {"ORG", "GPE", "NORP"}  # "Argentina ... they won", "Apple ... their phones"
THING_LABELS = {"ORG", "GPE", "LOC", "WORK_OF_ART", "PRODUCT", "FAC", "EVENT", "NORP", "LAW"}
SUBJECTS = {"nsubj", "nsubjpass"}
LISTABLE = {"dobj", "attr", "pobj", "nsubj", "nsubjpass"}
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


class _Antecedents:
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
        for mention in named_attribute + main:
            if self._agrees(mention, pronoun, collective=collective) and (mention.label or not named_only):
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


def _mentions(sentence: Span, antecedents: _Antecedents, number: int) -> list[_Mention]:
    """The people and things ``sentence`` names: its entities, and the noun phrases that are subjects."""
    out: list[_Mention] = []
    taken: set[int] = set()
    for ent in sentence.ents:
        if ent.label_ == "PERSON":
            text = antecedents.full_name(re.sub(r"['’]s?$", "", _original(ent)))
            person = True
        elif ent.label_ in THING_LABELS:
            text, person = _original(ent), False
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
        words = [t for t in token.subtree if t.i <= token.i]  # the phrase up to its head ...
        if any(t.i in taken for t in words):
            continue
        for prep in (c for c in token.children if c.dep_ == "prep" and c.lower_ == "of"):  # ... with "of ..."
            words += list(prep.subtree)
        words = sorted(words, key=lambda t: t.i)
        if len(words) > 8:
            continue
        text = _original(token.doc[words[0].i : words[-1].i + 1])
        if any(mark in text for mark in '"“”()[]'):
            continue  # a quoted or bracketed phrase: its words are not a name to repeat
        plural = token.tag_ in {"NNS", "NNPS"} or _conjoined(token)
        main = token.head.dep_ == "ROOT"
        out.append(_Mention(text, False, plural, "", token.lemma_.lower(), number, words[0].i, True, token.i, main))
    # conjoined people or things as a subject are a plural mention of their own ("Tom and Anna ... They")
    for token in sentence:
        if token.dep_ in SUBJECTS and _conjoined(token):
            span = token.doc[token.left_edge.i : token.right_edge.i + 1]
            out.append(
                _Mention(_original(span), False, True, "", token.lemma_.lower(), number, span.start, True, token.i)
            )
    return sorted(out, key=lambda m: m.position)


def _original(span_or_token) -> str:
    return span_or_token.text.replace(NON_BREAKING_HYPHEN, "-")


def _conjoined(token: Token) -> bool:
    return any(c.dep_ == "conj" for c in token.children)


class SpacyClaimExtractor(LazyPipeline):
    """Text -> :class:`TextClaims` with spaCy rules; the pipeline loads lazily on first use."""

    backend = "offline"

    async def aextract(self, text: str) -> TextClaims:
        return await asyncio.to_thread(self.extract, text)

    def sentence_spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, sentence) for each non-blank sentence of ``text``, stripped of surrounding space."""
        return [span for span, _ in self._sentences(text)]

    def _sentences(self, text: str):
        doc = self.nlp(_IN_WORD_HYPHEN.sub(NON_BREAKING_HYPHEN, text))
        for sentence in doc.sents:
            raw = text[sentence.start_char : sentence.end_char]
            stripped = raw.strip()
            if stripped:
                start = sentence.start_char + len(raw) - len(raw.lstrip())
                yield (start, start + len(stripped), stripped), sentence

    def extract(self, text: str) -> TextClaims:
        antecedents = _Antecedents()
        claims: list[ExtractedClaim] = []
        dropped: list[DroppedSentence] = []
        before: list[str] = []  # the sentences so far: context for a claim whose reference stays as written
        for (start, end, stripped), sentence in self._sentences(text):
            reason = why_not_checkworthy(sentence, stripped)
            if reason is not None:
                dropped.append(DroppedSentence(sentence=stripped, start=start, end=end, reason=reason))
            else:
                made = _sentence_claims(sentence, antecedents) or [_own_words(sentence, antecedents)]
                for claim_text, resolved, kept in made:
                    claims.append(
                        ExtractedClaim(
                            text=claim_text,
                            sentence=stripped,
                            start=start,
                            end=end,
                            resolved=resolved,
                            unresolved=kept,
                            context=" ".join(before[-LOOKBACK:]) if kept and before else None,
                        )
                    )
            antecedents.read(sentence)
            before.append(stripped)
        return TextClaims(claims=_unique(claims), dropped=dropped, extractor="offline")


def why_not_checkworthy(sentence: Span, text: str) -> str | None:
    """Why a sentence holds nothing to check, or None when it states something checkable: every statement of
    fact is a claim, a general or explanatory one included (as in FActScore, SAFE and VeriScore)."""
    if text.rstrip().endswith("?") or (looks_like_question(text) and not _opens_with_subject_clause(sentence)):
        return "a question, not a statement"
    if _COURTESY.match(text):
        return "a greeting, courtesy or sign-off: nothing to check"
    if _OPINION_OPENERS.match(text):
        return "the speaker's own view, not a checkable fact"
    if _HEDGES.match(text):
        return "hedged speculation, not a claim"
    words = [t for t in sentence if not t.is_punct and not t.is_space]
    if not any(t.pos_ in {"VERB", "AUX"} for t in words):
        return "not a full statement (no verb)"
    root = sentence.root
    subjects = [c for c in root.children if c.dep_ in SUBJECTS | {"expl"}]
    first = words[0] if words else None
    if first is not None and (first.lower_ == "please" or (first.i == root.i and root.tag_ == "VB" and not subjects)):
        return "an instruction, not a statement"
    if any(t.lower_ in SPEAKER_PRONOUNS and t.pos_ == "PRON" for s in subjects for t in s.subtree):
        return "the speaker's own view or situation: not a checkable fact"
    if any(s.lower_ in GENERIC_PRONOUNS for s in subjects):
        if root.tag_ == "VBD" and any(s.lower_ in {"we", "us", "our"} for s in subjects):
            return "the speaker's own situation (what we did): not a checkable fact"
        modal = any(c.lower_ in ADVICE_MODALS for c in root.children if c.dep_ == "aux")
        if modal and any(s.lower_ in {"you", "your"} for s in subjects):
            return "advice to the reader, not a statement of fact"
    if root.lemma_ == "be" and _only_evaluative(root) and len(words) <= 10:
        return "an opinion, not a checkable fact"
    return None


def _opens_with_subject_clause(sentence: Span) -> bool:
    """ "What is really going on is ...": a wh-word that opens the subject, not a question."""
    first = sentence[0]
    return any(first in s.subtree for s in sentence.root.children if s.dep_ in {"csubj", "nsubj", "csubjpass"})


def _only_evaluative(root: Token) -> bool:
    complements = [c for c in root.children if c.dep_ in {"acomp", "attr"}]
    if not complements:
        return False
    for c in complements:
        words = {t.lower_ for t in c.subtree if t.pos_ in {"ADJ", "ADV"}}
        nouns = [t for t in c.subtree if t.pos_ in {"PROPN", "NUM"} or t.ent_type_]
        if nouns or not words & EVALUATIVE:
            return False
    return True


SPLIT_MARKERS = {"while", "whereas", "although", "though", "because"}


def _predicates(root: Token) -> list[Token]:
    """The root, the verbs conjoined to it (a chain: "A and B, and C") and the clauses that state a fact of
    their own ("while B has ...", "because B is ...")."""
    out = [root]
    for token in out:
        out.extend(_verb_conjuncts(token))
        out.extend(_own_clauses(token))
    return out


def _own_clauses(token: Token) -> list[Token]:
    """Adverbial clauses with their own subject opened by "while", "although", "because" ..."""
    return [
        c
        for c in token.children
        if c.dep_ == "advcl"
        and any(m.dep_ == "mark" and m.lower_ in SPLIT_MARKERS for m in c.children)
        and any(s.dep_ in SUBJECTS for s in c.children)
    ]


def _relative_clauses(tokens: set[Token]) -> list[tuple[Token, Token]]:
    """(noun, clause) for each non-restrictive relative clause (", which ...", ", who ...") on a noun here."""
    out = []
    for noun in tokens:
        for clause in noun.children:
            if clause.dep_ != "relcl" or clause not in tokens:
                continue
            pronoun = next((c for c in clause.children if c.dep_ in SUBJECTS and c.lower_ in {"which", "who"}), None)
            before = noun.doc[clause.left_edge.i - 1] if clause.left_edge.i > 0 else None
            if pronoun is not None and before is not None and before.text == ",":
                out.append((noun, clause))
    return out


def _appositives(tokens: set[Token]) -> list[tuple[Token, Token]]:
    """(name, appositive) for each ", a/an/the <noun> ..." that describes a name here ("Michael Phelps, an American
    swimmer who ...")."""
    out = []
    for token in tokens:
        if token.dep_ != "appos" or token.pos_ != "NOUN" or token.head not in tokens:
            continue
        if token.head.pos_ == "PROPN" and any(c.dep_ == "det" for c in token.children):
            out.append((token.head, token))
    return out


def _name_tokens(head: Token) -> list[Token]:
    """The words of the name ``head`` ends: its entity, or its compounds and itself."""
    entity = next((e for e in head.doc.ents if e.start <= head.i < e.end), None)
    if entity is not None:
        return list(entity)
    return [t for t in head.subtree if t.i <= head.i and t.dep_ in {"compound", "flat"}] + [head]


def _verb_conjuncts(token: Token) -> list[Token]:
    return [c for c in token.children if c.dep_ == "conj" and c.pos_ in {"VERB", "AUX"}]


def _sentence_claims(sentence: Span, antecedents: _Antecedents) -> list[tuple[str, dict, list[str]]]:
    """(claim text, references resolved, references kept as written) per atomic claim of the sentence."""
    root = sentence.root
    predicates = _predicates(root) if root.pos_ in {"VERB", "AUX"} else [root]
    subject: Token | None = None
    made: list[tuple[str, dict, list[str]]] = []
    for predicate in predicates:
        own_subject = next((c for c in predicate.children if c.dep_ in SUBJECTS), None)
        subject = own_subject or subject
        excluded = {t.i for c in _verb_conjuncts(predicate) + _own_clauses(predicate) for t in c.subtree}
        excluded |= {c.i for c in predicate.children if c.dep_ in {"cc", "preconj"}}
        if predicate.dep_ == "advcl":  # "while B has ...": the clause without its "while"
            excluded |= {c.i for c in predicate.children if c.dep_ == "mark"}
        tokens = {t for t in predicate.subtree if t.i not in excluded}
        if own_subject is not None and own_subject.lower_ in {"this", "that", "these", "those"} and len(predicates) > 1:
            continue  # "This is because B, and ...": the clauses it introduces are the claims
        described_later: list[tuple[str, dict, list[str]]] = []  # what an appositive says, after the claim
        for noun, appositive in _appositives(tokens):
            name, _, _ = _render([t for t in _name_tokens(noun)], antecedents)
            tokens -= set(appositive.subtree)
            tokens -= {t for t in appositive.doc[appositive.left_edge.i - 1 : appositive.left_edge.i] if t.is_punct}
            after = (
                appositive.doc[appositive.right_edge.i + 1]
                if appositive.right_edge.i + 1 < len(appositive.doc)
                else None
            )
            if after is not None and after.text == "," and after.i in {t.i for t in tokens}:
                tokens -= {after}
            clause = next((c for c in appositive.children if c.dep_ == "relcl"), None)
            appositive_words = [t for t in appositive.subtree if clause is None or t not in clause.subtree]
            described, resolved, kept = _render(appositive_words, antecedents)
            copula = "was" if root.tag_ == "VBD" else "is"
            if name and described:
                described_later.append(
                    (f"{name.rstrip('.')} {copula} {described[:1].lower()}{described[1:]}", resolved, kept)
                )
            if (
                name
                and clause is not None
                and any(c.dep_ in SUBJECTS and c.lower_ in {"who", "that", "which"} for c in clause.children)
            ):
                clause_words = [t for t in clause.subtree if not (t.dep_ in SUBJECTS and t.head.i == clause.i)]
                said, resolved, kept = _render(clause_words, antecedents)
                if said:
                    described_later.append((f"{name.rstrip('.')} {said[:1].lower()}{said[1:]}", resolved, kept))
        relatives = _relative_clauses(tokens)
        for noun, clause in relatives:
            tokens -= set(clause.subtree)
            tokens -= {t for t in noun.doc[clause.left_edge.i - 1 : clause.left_edge.i]}
            phrase = {
                t
                for t in noun.subtree
                if t not in clause.subtree and not (t.is_punct and t.i >= clause.left_edge.i - 1)
            }
            body = {t for t in clause.subtree if not (t.dep_ in SUBJECTS and t.head.i == clause.i)}
            text, resolved, kept = _render(sorted(phrase | body, key=lambda t: t.i), antecedents)
            if text:
                made.append((text, resolved, kept))
        if predicate is not root and own_subject is None and subject is not None:
            tokens |= set(subject.subtree)  # a conjoined verb shares the subject ...
            if predicate.tag_ == "VBN" and not any(c.dep_ in {"aux", "auxpass"} for c in predicate.children):
                tokens |= {c for c in root.children if c.dep_ in {"aux", "auxpass"}}  # ... and "was" of "was born"
        for variant in _list_variants(sorted(tokens, key=lambda t: t.i)):
            text, resolved, kept = _render(variant, antecedents)
            if text:
                made.append((text, resolved, kept))
        made += described_later
    return made


def _own_words(sentence: Span, antecedents: _Antecedents) -> tuple[str, dict, list[str]]:
    """The whole sentence as one claim (references resolved where they can be), when no clause gave one."""
    text, resolved, kept = _render(list(sentence), antecedents)
    return (text or sentence.text.strip()), resolved, kept


def _list_variants(tokens: list[Token]) -> list[list[Token]]:
    """One token list per name of a list of names ("France, China and Russia"), else the tokens as they are."""
    present = {t.i for t in tokens}
    for head in tokens:
        if head.dep_ not in LISTABLE:
            continue
        members = [head]
        for member in members:  # "A, B, C and D": each conjunct hangs on the one before
            members.extend(c for c in member.children if c.dep_ == "conj" and c.i in present)
        names = all(m.pos_ == "PROPN" or m.ent_type_ for m in members)
        things = len(members) >= 3 and all(m.pos_ in {"NOUN", "PROPN"} for m in members) and not _symmetric(head)
        if len(members) < 2 or not (names or things):  # "A, B and C" of common nouns: three or more
            continue
        own = {m.i: _member_tokens(m, members) for m in members}
        listed = set().union(*own.values()) | {
            t.i for m in members for c in m.children if c.dep_ in {"cc", "punct"} for t in c.subtree
        }
        return [[t for t in tokens if t.i not in listed or t.i in own[m.i]] for m in members]
    return [tokens]


def _symmetric(head: Token) -> bool:
    """ "between A, B and C", "A, B and C merged": a relation of the members together, not of each."""
    return head.head.lower_ in {"between", "among", "amongst"} or head.head.lemma_ in {
        "merge",
        "combine",
        "unite",
        "mix",
    }


def _member_tokens(member: Token, members: list[Token]) -> set[int]:
    """A list member's own words: its subtree without the members that hang on it and their separators."""
    others = {m.i for m in members if m is not member}
    skip: set[int] = set()
    for child in member.children:
        if child.i in others or child.dep_ in {"cc", "punct"}:
            skip |= {t.i for t in child.subtree}
    return {t.i for t in member.subtree if t.i not in skip}


def _render(tokens: list[Token], antecedents: _Antecedents) -> tuple[str, dict, list[str]]:
    """The claim's text from its tokens (in text order), references resolved: (text, resolved, kept), ``kept``
    the pronouns left as written because nothing, or more than one thing, fits them."""
    resolved: dict[str, str] = {}
    kept: list[str] = []
    ordered = sorted(set(tokens), key=lambda t: t.i)
    present = {t.i for t in ordered}
    skip: set[int] = set()
    parts: list[str] = []
    for position, token in enumerate(ordered):
        if token.i in skip:
            continue
        word = _original(token)
        if (
            token.pos_ == "PRON"
            and token.lower_ in PERSON_PRONOUNS | THING_PRONOUNS
            and not token.lower_.endswith("self")
        ):
            possessive = token.tag_ == "PRP$" or token.dep_ == "poss"
            object_it = token.lower_ == "it" and token.dep_ not in SUBJECTS
            if (
                (token.dep_ in SUBJECTS | {"dobj", "pobj", "dative"} or possessive)
                and not object_it  # an object "it" rarely means a thing named before ("won it", "made it to the final")
                and not _expletive(token)  # "It is believed that ...": no one
                and not _bound_in_clause(token, present)  # "Fish use their colours": the claim names them already
            ):
                name = None if _quoted(token) else antecedents.resolve(token)  # a quoted speaker's "he": as said
                if name is None:
                    kept.append(word)
                elif name != word:
                    word = (name + ("'" if name.endswith("s") else "'s")) if possessive else name
                    resolved[_original(token)] = word
        elif token.ent_type_ == "PERSON" and token.ent_iob_ == "B":
            entity = next(e for e in token.doc.ents if e.start == token.i)
            full = antecedents.full_name(_original(entity))
            if full != _original(entity):
                resolved[_original(entity)] = full
                word = full
                skip |= {t.i for t in entity[1:]}
                token = entity[-1]
        elif token.lower_ == "the" and token.dep_ == "det" and _plain_description(token.head, present):
            head = token.head
            named = antecedents.describe(head)
            if named is not None and not token.ent_type_:
                phrase = _original(token.doc[token.i : head.i + 1])
                resolved[phrase] = named
                word = named
                skip |= set(range(token.i + 1, head.i + 1))
                token = head
        following = next((t for t in ordered[position + 1 :] if t.i not in skip), None)
        parts.append(word + (token.whitespace_ if following is not None and following.i == token.i + 1 else " "))
    text = _balanced("".join(parts))
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"([(])\s+", r"\1", text)
    text = _CONNECTIVE.sub("", text.strip()).strip(" ,;:-")
    text = re.sub(r"[\s.!;:,]+$", "", text).strip()
    if not text:
        return "", resolved, kept
    return text[:1].upper() + text[1:] + ".", resolved, kept


QUOTES = {'"', "“", "”", "«", "»"}


def _quoted(token: Token) -> bool:
    """Inside a quotation in its sentence (an odd number of quotation marks before it): whom a quoted speaker's
    pronoun means is the speaker's to say, not the text's."""
    sentence = token.sent
    marks = sum(1 for t in sentence if t.i < token.i and (t.text in QUOTES or t.text in {"``", "''"}))
    return marks % 2 == 1


def _expletive(token: Token) -> bool:
    """ "It is believed that ...", "It seems that ...", "It is worth noting ...": an "it" that stands for nothing."""
    if token.lower_ != "it" or token.dep_ not in SUBJECTS | {"expl"}:
        return False
    if token.dep_ == "expl":
        return True
    verb = token.head
    later = [c for c in verb.children if c.i > token.i]
    if verb.pos_ == "ADJ" and any(c.dep_ in {"xcomp", "ccomp"} for c in later):  # "made it difficult to hear"
        return True
    if verb.lemma_ == "be" and verb.i < token.i:  # "be it near the surface or deep"
        return True
    clause_after = any(t.dep_ in {"xcomp", "ccomp", "csubj", "advcl"} for c in later for t in c.subtree)
    if verb.lemma_ == "be" and any(c.dep_ in {"acomp", "attr"} for c in later) and clause_after:
        return True  # "it is common for NATO to assign ...", "it is worth noting that ..."
    clause = any(c.dep_ in {"ccomp", "csubj", "xcomp"} for c in later)
    passive = token.dep_ == "nsubjpass"
    weather = verb.lemma_ in {"rain", "snow", "seem", "appear", "happen", "take"}
    adjective = any(c.dep_ == "acomp" for c in later)
    return (clause and (passive or verb.lemma_ in {"be", "seem", "appear", "happen"} or adjective)) or (
        weather and verb.lemma_ in {"rain", "snow"}
    )


def _bound_in_clause(token: Token, present: set[int]) -> bool:
    """A possessive that refers to its own clause's subject, which the claim holds ("fish use their colours")."""
    if not (token.tag_ == "PRP$" or token.dep_ == "poss"):
        return False
    clause = token.head
    while clause.pos_ not in {"VERB", "AUX"} and clause.head.i != clause.i:
        clause = clause.head
    subject = next((c for c in clause.children if c.dep_ in SUBJECTS), None)
    if subject is None or subject.pos_ == "PRON" or subject.i not in present:
        return False
    plural = subject.tag_ in {"NNS", "NNPS"} or _conjoined(subject)
    return (token.lower_ == "their") == plural and token.lower_ not in PERSON_PRONOUNS - {"his", "her"}


def _plain_description(head: Token, present: set[int]) -> bool:
    """ "the tower", "the old company": a definite noun phrase with nothing after its noun that would tell which
    one ("the capital of France" says it itself), whose words are all in the claim."""
    if head.pos_ != "NOUN" or head.ent_type_ or head.lemma_.lower() not in KIND_LABELS and head.tag_ != "NN":
        return False
    if any(
        c.i > head.i and c.dep_ not in {"punct"} for c in head.children if c.dep_ in {"prep", "acl", "relcl", "appos"}
    ):
        return False
    left = head.left_edge.i
    return all(i in present for i in range(left, head.i + 1)) and all(
        head.doc[i].dep_ in {"det", "amod", "compound"} or i == head.i for i in range(left, head.i + 1)
    )


def _balanced(text: str) -> str:
    """The text without brackets whose partner was left out of the claim."""
    keep = [True] * len(text)
    opened: list[int] = []
    for i, char in enumerate(text):
        if char == "(":
            opened.append(i)
        elif char == ")":
            if opened:
                opened.pop()
            else:
                keep[i] = False
    for i in opened:
        keep[i] = False
    return "".join(c for c, k in zip(text, keep) if k)


def _unique(claims: list[ExtractedClaim]) -> list[ExtractedClaim]:
    seen: set[str] = set()
    out = []
    for claim in claims:
        key = claim.text.lower()
        if key not in seen:
            seen.add(key)
            out.append(claim)
    return out
