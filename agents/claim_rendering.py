"""Claim rendering: a checkworthy sentence -> its atomic claims, each written out with its references resolved.

Atomic claims
    The main predicate and every verb conjoined to it become one claim each, with the subject repeated
    ("He co-founded Twitter in 2006 and served as CEO until 2008" -> two claims); a conjoined passive
    participle borrows the auxiliary ("was born in A and raised in B"). A list of names as subject or
    object gives one claim per name ("include France, China and Russia" -> three).
Writing a claim out
    Its words in text order, each pronoun, surname or definite description replaced where
    :class:`~mermaid_verifier.agents.coreference.Antecedents` says what it stands for; a leading connective
    ("However,", "Additionally,") is cut, brackets left without their partner dropped.
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from mermaid_verifier.agents.coreference import (
    KIND_LABELS,
    PERSON_PRONOUNS,
    SUBJECTS,
    THING_PRONOUNS,
    Antecedents,
    conjoined,
    misread_phrase,
    original_text,
)

_CONNECTIVE = re.compile(
    r"^(however|additionally|moreover|furthermore|also|in addition|in fact|notably|indeed|besides|"
    r"therefore|thus|as a result|meanwhile|similarly|in summary|in conclusion|to summarize|to sum up|overall|"
    r"in short|finally|first|second|third|lastly)\s*,\s*",
    re.IGNORECASE,
)
LISTABLE = {"dobj", "attr", "pobj", "nsubj", "nsubjpass"}
SPLIT_MARKERS = {"while", "whereas", "although", "though", "because"}
CORE_OBJECTS = {"dobj", "attr", "prt", "acomp", "dative", "oprd"}  # a verb's words a place named after it follows


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


PLACE_PREPOSITIONS = {"GPE": "in", "LOC": "in", "FAC": "at"}  # what a claim says of a place ", where ..." speaks of


def _relative_clauses(tokens: set[Token]) -> list[tuple[Token, Token, Token | None]]:
    """(noun, clause, its "where" or None) for each non-restrictive relative clause (", which ...", ", who ...",
    and ", where ..." on a named place) on a noun here."""
    out = []
    for noun in sorted(tokens, key=lambda t: t.i):  # in text order: a set's order changes from run to run
        for clause in noun.children:
            if clause.dep_ != "relcl" or clause not in tokens:
                continue
            pronoun = next((c for c in clause.children if c.dep_ in SUBJECTS and c.lower_ in {"which", "who"}), None)
            where = _where(noun, clause)
            before = noun.doc[clause.left_edge.i - 1] if clause.left_edge.i > 0 else None
            if (pronoun is not None or where is not None) and before is not None and before.text == ",":
                out.append((noun, clause, where))
    return out


def _where(noun: Token, clause: Token) -> Token | None:
    """The "where" that opens a relative clause on a named place ("Paris, where she met Pierre"), else None."""
    opening = clause.doc[clause.left_edge.i]
    if noun.ent_type_ in PLACE_PREPOSITIONS and opening.lower_ == "where" and opening.head.i == clause.i:
        return opening
    return None


def _where_claim(
    noun: Token, clause: Token, phrase: list[Token], body: set[Token], antecedents: Antecedents
) -> tuple[str, dict, list[str]]:
    """What a ", where ..." clause says, with the place it speaks of put back after its verb and objects ("Paris,
    where she met Pierre" → "Marie Curie met Pierre in Paris."; "Boston, where they lived until 1950" → "They
    lived in Boston until 1950."): the clause alone would not say where."""
    anchor = max([clause.i, *(c.right_edge.i for c in clause.children if c.dep_ in CORE_OBJECTS)])
    head, tail = [t for t in body if t.i <= anchor], [t for t in body if t.i > anchor]
    said, resolved, kept = _render(head, antecedents)
    place, place_resolved, place_kept = _render(phrase, antecedents)
    rest, rest_resolved, rest_kept = _render(tail, antecedents) if tail else ("", {}, [])
    resolved_all = {**resolved, **place_resolved, **rest_resolved}
    pronouns = [t for t in body if t.pos_ == "PRON" and t.lower_ in PERSON_PRONOUNS | THING_PRONOUNS]
    if not said or not place or any(original_text(t) not in resolved_all for t in pronouns):
        return "", resolved, kept  # "where his father worked": whose father, only the sentence says
    words = [said.rstrip("."), PLACE_PREPOSITIONS[noun.ent_type_], _as_written(place, phrase).rstrip(".")]
    if rest:
        words.append(_as_written(rest, tail).rstrip("."))
    return " ".join(words) + ".", resolved_all, kept + place_kept + rest_kept


def _as_written(text: str, tokens: list[Token]) -> str:
    """``text`` rendered from ``tokens`` with the capital :func:`_render` gives a claim's first word taken back
    where the first word is not capitalised in the text ("the Sorbonne", "until 1950")."""
    first = min(tokens, key=lambda t: t.i) if tokens else None
    if first is not None and text and first.text[:1].islower():
        return text[:1].lower() + text[1:]
    return text


def _closing_member(clause: Token) -> tuple[set[Token], set[Token]]:
    """The second of two nouns the parser listed inside a relative clause across a comma ("which houses the Mona
    Lisa, and the Orsay museum"): a list of two takes no comma before its "and", so the comma closes the clause
    and the noun belongs to the sentence ("He visited the Louvre, ..., and the Orsay museum"). Its words with its
    "and", which go to the sentence, and the comma, which goes with neither; both empty where there is no such
    noun."""
    doc = clause.doc
    for token in clause.subtree:
        if token.dep_ != "conj" or token.pos_ not in {"NOUN", "PROPN"} or token.right_edge.i != clause.right_edge.i:
            continue
        head = token.head
        if head.i == clause.i or head.dep_ == "conj" or [c for c in head.children if c.dep_ == "conj"] != [token]:
            continue
        if token.left_edge.i < 2:
            continue
        cc, comma = doc[token.left_edge.i - 1], doc[token.left_edge.i - 2]
        between = doc[head.i + 1 : comma.i]
        if cc.dep_ == "cc" and cc.head.i == head.i and comma.text == "," and not any(t.text == "," for t in between):
            return set(token.subtree) | {cc}, {comma}
    return set(), set()


def _described(noun: Token, clause: Token) -> Token:
    """What a relative clause on ``noun`` speaks of: the noun, or the head of the whole list of which it is a
    member (see :func:`_of_the_list`)."""
    head = noun
    while head.dep_ == "conj":
        head = head.head
    return head if _of_the_list(noun, clause) else noun


def _of_the_list(noun: Token, clause: Token) -> bool:
    """Whether a relative clause on a list's last member speaks of the whole list: its verb is plural and the
    member singular ("Aspirin and ibuprofen, which are cheap,")."""
    if noun.dep_ != "conj" or noun.tag_ in {"NNS", "NNPS"} or any(c.dep_ == "conj" for c in noun.children):
        return False
    verbs = [clause, *(c for c in clause.children if c.dep_ in {"aux", "auxpass"})]
    return any(t.tag_ == "VBP" or t.lower_ == "were" for t in verbs)


def _other_member(token: Token, noun: Token, clause: Token) -> bool:
    """A word of another member of the list ``noun`` heads, or a comma or conjunction between them, where the
    clause comes before those members ("and ibuprofen" of "Aspirin, which is cheap, and ibuprofen"): the clause
    speaks of ``noun`` alone."""
    chain = token
    while chain.i != noun.i and chain.head.i != chain.i:
        if chain.head.i == noun.i:
            separator = chain.dep_ in {"conj", "cc"} or chain.text == ","
            return separator and chain.i > clause.right_edge.i
        chain = chain.head
    return False


def _appositives(tokens: set[Token]) -> list[tuple[Token, Token]]:
    """(name, appositive) for each ", a/an/the <noun> ..." that describes a name here ("Michael Phelps, an American
    swimmer who ...")."""
    out = []
    for token in sorted(tokens, key=lambda t: t.i):  # in text order, as above
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


def _verb_conjunctions(predicate: Token) -> set[int]:
    """The "and"/"or" (and "either", "both") that join the predicate to a verb split off as its own claim; one
    before a word the parser hung on the verb that is not a verb ("broken down into methanol and the amino acids
    ...", "acids" conjoined to "broken") stays, since that word stays in the claim."""
    conjuncts = [c for c in predicate.children if c.dep_ == "conj"]  # (children come in text order)
    out: set[int] = set()
    for word in predicate.children:
        if word.dep_ not in {"cc", "preconj"}:
            continue
        joined = next((c for c in conjuncts if c.i > word.i), None)
        if joined is None or joined.pos_ in {"VERB", "AUX"}:
            out.add(word.i)
    return out


def _misread_subject(predicate: Token) -> bool:
    """A subject phrase the parser misread (:func:`misread_phrase`): the claims it would give ("Even food and
    drinks advertised.") are not the text's."""
    return any(c.dep_ in SUBJECTS and misread_phrase(c) for c in predicate.children)


def _subjectless(root: Token) -> bool:
    """A main verb with a finite auxiliary and no subject ("Prior to the invention of satellites, continents ...
    were mapped out" with the subject read into the preposition's object): no claim of it would say what the
    sentence says."""
    auxiliaries = [c for c in root.children if c.dep_ in {"aux", "auxpass"}]
    finite = any(c.tag_ in {"VBD", "VBZ", "VBP", "MD"} for c in auxiliaries)
    words = [root, *auxiliaries]  # (a subject hung on "has" of "has contributed" is the verb's all the same)
    return finite and not any(c.dep_ in SUBJECTS | {"csubj", "csubjpass", "expl"} for w in words for c in w.children)


def sentence_claims(sentence: Span, antecedents: Antecedents) -> list[tuple[str, dict, list[str]]]:
    """(claim text, references resolved, references kept as written) per atomic claim of the sentence."""
    root = sentence.root
    joined = [c for c in root.children if c.dep_ == "conj"]
    verbless = not any(c.pos_ in {"VERB", "AUX"} for c in joined)
    if root.pos_ not in {"VERB", "AUX"} and joined and (verbless or root.pos_ == "PROPN"):
        return []  # a list and no verb ("Coffee and tea contain caffeine" parsed as nouns), or a verb conjoined to a
        # name ("Tom, who lives in Paris, and Anna met" with "Tom" the root): read whole
    predicates = _predicates(root) if root.pos_ in {"VERB", "AUX"} else [root]
    if _subjectless(root) or any(_misread_subject(p) for p in predicates):
        return []  # "... advertised as 0 calories may not provide": the parse is not the sentence's; read whole
    subject: Token | None = None
    made: list[tuple[str, dict, list[str]]] = []
    for predicate in predicates:
        own_subject = next((c for c in predicate.children if c.dep_ in SUBJECTS), None)
        subject = own_subject or subject
        excluded = {t.i for c in _verb_conjuncts(predicate) + _own_clauses(predicate) for t in c.subtree}
        excluded |= _verb_conjunctions(predicate)
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
        for noun, clause, where in relatives:
            doc = noun.doc
            moved, dropped = _closing_member(clause)
            whole = set(tokens)  # the sentence's words with the clause, for a clause that stays in it
            tokens -= set(clause.subtree)
            tokens |= moved  # "the Louvre, which houses the Mona Lisa, and the Orsay museum": visited, not housed
            tokens -= {t for t in doc[clause.left_edge.i - 1 : clause.left_edge.i]}
            closing = doc[clause.right_edge.i + 1 : clause.right_edge.i + 3]
            a_subject = noun.dep_ in SUBJECTS or noun.dep_ == "conj" and noun.head.dep_ in SUBJECTS
            if a_subject or len(closing) == 2 and closing[1].dep_ == "cc":  # "The tower, which is in Paris, was
                # built", "cars, which are sold in Europe, and trucks": no comma left before the verb or the "and"
                tokens -= {t for t in closing[:1] if t.text == ","}
            phrase = {
                t
                for t in _described(noun, clause).subtree
                if t not in clause.subtree
                and not (t.is_punct and t.i >= clause.left_edge.i - 1)
                and not _other_member(t, noun, clause)
            }
            if where is not None:  # "where" is the place's; the clause's own subject stays
                body = set(clause.subtree) - moved - dropped - {where}
                if noun.dep_ == "appos" and noun.head.ent_type_ in PLACE_PREPOSITIONS:  # "Ulm, Germany, where"
                    phrase = {t for t in noun.head.subtree if t not in clause.subtree and t.i < clause.left_edge.i - 1}
                ordered = sorted(phrase, key=lambda t: t.i)
                text, resolved, kept = _where_claim(noun, clause, ordered, body, antecedents)
                if kept or not text:  # a reference the clause alone cannot resolve: read in the sentence
                    tokens = whole
                    continue
            else:
                body = (
                    {t for t in clause.subtree if not (t.dep_ in SUBJECTS and t.head.i == clause.i)} - moved - dropped
                )
                text, resolved, kept = _render(sorted(phrase | body, key=lambda t: t.i), antecedents)
            if text:
                made.append((text, resolved, kept))
        if predicate is not root and own_subject is None and subject is not None:
            tokens |= set(subject.subtree)  # a conjoined verb shares the subject ...
            if predicate.tag_ == "VBN" and not any(c.dep_ in {"aux", "auxpass"} for c in predicate.children):
                tokens |= {c for c in root.children if c.dep_ in {"aux", "auxpass"}}  # ... and "was" of "was born"
        for variant, words in _list_variants(sorted(tokens, key=lambda t: t.i), predicate):
            text, resolved, kept = _render(variant, antecedents, words)
            if text:
                made.append((text, resolved, kept))
        made += described_later
    return made


def own_words(sentence: Span, antecedents: Antecedents) -> tuple[str, dict, list[str]]:
    """The whole sentence as one claim (references resolved where they can be), when no clause gave one."""
    text, resolved, kept = _render(list(sentence), antecedents)
    return (text or sentence.text.strip()), resolved, kept


def _list_variants(tokens: list[Token], predicate: Token) -> list[tuple[list[Token], dict[int, str]]]:
    """One token list per name of a list of names ("France, China and Russia"), else the tokens as they are; each
    with the words to write otherwise: the verb made singular for one name of a listed subject ("Apple and
    Microsoft were founded" -> "Apple was founded")."""
    present = {t.i for t in tokens}
    for head in tokens:
        if head.dep_ not in LISTABLE or _in_description(head, predicate):
            continue
        members = [head]
        for member in members:  # "A, B, C and D": each conjunct hangs on the one before
            members.extend(c for c in member.children if c.dep_ == "conj" and c.i in present)
        names = all(m.pos_ == "PROPN" or m.ent_type_ for m in members)
        things = len(members) >= 3 and all(m.pos_ in {"NOUN", "PROPN"} for m in members)
        if len(members) < 2 or not (names or things) or _symmetric(head):  # common nouns: three or more
            continue
        subject = head.dep_ in SUBJECTS
        if subject and _plural_complement(predicate):  # "Apple and Microsoft are technology companies (that
            return [(tokens, {})]  # make A, B and C)": said of them together, with its own lists kept whole
        own = {m.i: _member_tokens(m, members) for m in members}
        listed = set().union(*own.values()) | {
            t.i for m in members for c in m.children if c.dep_ in {"cc", "punct"} for t in c.subtree
        }
        verb = _finite_verb(predicate, present) if subject else None
        return [
            (
                [t for t in tokens if t.i not in listed or t.i in own[m.i]],
                {verb.i: _singular(verb)} if verb is not None and m.tag_ not in {"NNS", "NNPS"} else {},
            )
            for m in members
        ]
    return [(tokens, {})]


def _in_description(token: Token, predicate: Token) -> bool:
    """Inside what describes a noun ("founded in 1998 by Larry Page and Sergey Brin" of "The company, founded
    ..., is"): a list there is said of its members together, not of each ("founded by Larry Page")."""
    while token.i != predicate.i and token.head.i != token.i:
        if token.dep_ in {"acl", "relcl", "appos"}:
            return True
        token = token.head
    return False


RECIPROCAL = {"meet", "marry", "divorce", "date", "wed", "collaborate", "cooperate", "correspond", "disagree",
              "negotiate", "interact", "differ", "coexist", "reconcile", "separate", "compete", "partner"}  # fmt: skip


def _symmetric(head: Token) -> bool:
    """ "between A, B and C", "A, B and C merged", "Tom and Anna met": a relation of the members together, not of
    each (a reciprocal verb with a subject list and no object)."""
    verb = head.head
    if head.dep_ in SUBJECTS and verb.lemma_ in RECIPROCAL and not any(c.dep_ == "dobj" for c in verb.children):
        return True
    return verb.lower_ in {"between", "among", "amongst"} or verb.lemma_ in {"merge", "combine", "unite", "mix"}


def _plural_complement(predicate: Token) -> bool:
    """ "are technology companies": a copula whose complement is a plural noun."""
    return predicate.lemma_ == "be" and any(c.dep_ == "attr" and c.tag_ in {"NNS", "NNPS"} for c in predicate.children)


_SINGULAR = {"are": "is", "were": "was", "have": "has", "do": "does", "'re": "'s"}


def _finite_verb(predicate: Token, present: set[int]) -> Token | None:
    """The word of the predicate that agrees with a plural subject: "are" of "are made", "were", "have", or a
    present-tense verb ("contain")."""
    for token in [c for c in predicate.children if c.dep_ in {"aux", "auxpass"} and c.i in present] + [predicate]:
        conjoined_present = (
            token.tag_ == "VB" and token.dep_ == "conj" and token.head.tag_ == "VBP"
        )  # "make … and sell"
        if token.i in present and (token.tag_ == "VBP" or token.lower_ == "were" or conjoined_present):
            return token
        if token.tag_ in {"MD", "VBD", "VBZ"}:
            return None  # "can", "founded", "is": the same for one as for several
    return None


def _singular(verb: Token) -> str:
    """The third-person singular of a plural present (or "were"), in the verb's own case."""
    word = verb.text
    lower = word.lower()
    if lower in _SINGULAR:
        singular = _SINGULAR[lower]
    elif re.search(r"(s|sh|ch|x|z|o)$", lower):
        singular = lower + "es"
    elif re.search(r"[^aeiou]y$", lower):
        singular = lower[:-1] + "ies"
    else:
        singular = lower + "s"
    return singular[:1].upper() + singular[1:] if word[:1].isupper() else singular


def _member_tokens(member: Token, members: list[Token]) -> set[int]:
    """A list member's own words: its subtree without the members that hang on it and their separators."""
    others = {m.i for m in members if m is not member}
    skip: set[int] = set()
    for child in member.children:
        if child.i in others or child.dep_ in {"cc", "punct"}:
            skip |= {t.i for t in child.subtree}
    return {t.i for t in member.subtree if t.i not in skip}


def _render(
    tokens: list[Token], antecedents: Antecedents, words: dict[int, str] | None = None
) -> tuple[str, dict, list[str]]:
    """The claim's text from its tokens (in text order), references resolved: (text, resolved, kept), ``kept``
    the pronouns left as written because nothing, or more than one thing, fits them; ``words`` the tokens (by
    index) to write otherwise."""
    resolved: dict[str, str] = {}
    kept: list[str] = []
    ordered = sorted(set(tokens), key=lambda t: t.i)
    present = {t.i for t in ordered}
    skip: set[int] = set()
    parts: list[str] = []
    for position, token in enumerate(ordered):
        if token.i in skip:
            continue
        word = (words or {}).get(token.i) or original_text(token)
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
                    resolved[original_text(token)] = word
        elif token.ent_type_ == "PERSON" and token.ent_iob_ == "B":
            entity = next(e for e in token.doc.ents if e.start == token.i)
            full = antecedents.full_name(original_text(entity))
            if full != original_text(entity):
                resolved[original_text(entity)] = full
                word = full
                skip |= {t.i for t in entity[1:]}
                token = entity[-1]
        elif token.lower_ == "the" and token.dep_ == "det" and _plain_description(token.head, present):
            head = token.head
            named = antecedents.describe(head)
            if named is not None and not token.ent_type_:
                phrase = original_text(token.doc[token.i : head.i + 1])
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
    plural = subject.tag_ in {"NNS", "NNPS"} or conjoined(subject)
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
