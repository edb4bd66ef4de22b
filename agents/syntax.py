"""What the decomposer's rules read off spaCy's dependency parse, for title finding and triplet building alike:
a predicate's subjects, the auxiliaries in front of a verb, the words of a noun phrase, a bracket's partner."""

from __future__ import annotations

from spacy.tokens import Token

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
AUXILIARY_DEPS = frozenset({"aux", "auxpass", "neg"})
PREPOSITION_OBJECT_DEPS = frozenset({"pobj", "pcomp"})
CLAUSE_ON_NOUN_DEPS = frozenset({"acl", "relcl"})
NOMINAL_POS = frozenset({"NOUN", "PROPN", "NUM", "PRON"})
VERBAL_POS = frozenset({"VERB", "AUX"})
# Right-hand dependents that belong to a noun phrase; everything else on the right
# (prep other than "of", relcl, acl, conj, cc, punct) starts something new.
NOUN_PHRASE_RIGHT_DEPS = frozenset({"compound", "nummod", "appos", "flat", "case", "poss", "amod", "npadvmod"})


def predicate_subjects(token: Token) -> list[Token]:
    """Subject tokens of a predicate (with their conjuncts), or [] if it has none."""
    own = [child for child in token.children if child.dep_ in SUBJECT_DEPS and child.i < token.i]
    if not own:
        own = [child for child in token.children if child.dep_ in SUBJECT_DEPS]
    if own:
        return [own[0], *nominal_conjuncts(own[0])]
    if has_expletive(token):
        return []
    if token.dep_ in CLAUSE_ON_NOUN_DEPS and token.pos_ in VERBAL_POS and token.head.pos_ in NOMINAL_POS:
        return [token.head]
    if token.dep_ == "conj" and token.pos_ in VERBAL_POS and token.head.pos_ in VERBAL_POS:
        return predicate_subjects(token.head)
    return []


def conjuncts(token: Token, pos: frozenset[str]) -> list[Token]:
    """The words conjoined to ``token`` (and to those, in turn) whose part of speech is in ``pos``."""
    found = []
    for child in token.children:
        if child.dep_ == "conj" and child.pos_ in pos:
            found += [child, *conjuncts(child, pos)]
    return found


def nominal_conjuncts(token: Token) -> list[Token]:
    return conjuncts(token, NOMINAL_POS)


def has_expletive(predicate: Token) -> bool:
    return any(child.dep_ == "expl" for child in predicate.children)


def verb_group_start(predicate: Token) -> int:
    """Index of the first auxiliary / negation / adverb directly in front of the predicate."""
    start = predicate.i
    group = {
        child.i
        for child in predicate.lefts
        if child.dep_ in AUXILIARY_DEPS or (child.dep_ == "advmod" and child.is_lower)
    }
    while start - 1 in group:
        start -= 1
    return start


def noun_phrase_tokens(head: Token, with_conjuncts: bool = False) -> list[Token]:
    """The head, its left dependents, and right dependents that belong to the noun phrase.

    An "of" phrase is followed recursively (its object's own clauses stay out); conjuncts
    are kept only inside it ("part of Scotland and England").
    """
    tokens = [head]
    for child in head.lefts:
        tokens += child.subtree
    for child in head.rights:
        if child.dep_ in NOUN_PHRASE_RIGHT_DEPS or (with_conjuncts and child.dep_ in {"cc", "conj"}):
            tokens += child.subtree
        elif child.dep_ == "prep" and child.lower_ == "of":
            tokens.append(child)
            for obj in child.children:
                if obj.dep_ in PREPOSITION_OBJECT_DEPS:
                    tokens += noun_phrase_tokens(obj, with_conjuncts=True)
    tokens.sort(key=lambda token: token.i)
    return list(head.doc[tokens[0].i : tokens[-1].i + 1])


def matching_bracket(opening: Token) -> int | None:
    depth = 0
    for token in opening.doc[opening.i :]:
        depth += {"(": 1, ")": -1}.get(token.text, 0)
        if depth == 0:
            return token.i
    return None
