"""Name spans for the decomposer: the stretches of a claim that name something, titles the parser splits included.

Name spans (computed first, used to widen arguments)
    Named entities; "Title: Subtitle" runs ("2001: A Space Odyssey", "Law & Order: UK");
    Wikipedia-style disambiguated titles ("Roar (song)", "Australia (2008 film)"); and
    title-like subjects the parser splits: a run of capitalised words and short
    connectors from the start of the clause up to the verb ("Giada at Home was",
    "Hot Right Now is", "Excuse My French is").  The longest span wins on overlap.
"""

from __future__ import annotations

from collections.abc import Iterator

from spacy.tokens import Doc, Span, Token
from spacy.util import filter_spans

from mermaid_verifier.agents.syntax import (
    VERBAL_POS,
    has_expletive,
    matching_bracket,
    noun_phrase_tokens,
    predicate_subjects,
    verb_group_start,
)

# Lower-case words allowed inside a "Title: Subtitle" run.
TITLE_CONNECTORS = frozenset({"of", "the", "and", "&", "'s", "'"})
MAX_DISAMBIGUATOR_TOKENS = 8
# Before a subjectless verb a title may also hold short prepositions ("Giada at Home").
LEADING_TITLE_CONNECTORS = TITLE_CONNECTORS | {"a", "an", "at", "in", "on", "to", "for", "with", "from", "by"}


def name_spans(doc: Doc) -> list[Span]:
    """Named entities, "Title: Subtitle", "Title (disambiguator)" and title-like subjects.

    The longest span wins where they overlap.
    """
    candidates = [*doc.ents, *colon_titles(doc), *parenthetical_titles(doc), *subject_titles(doc)]
    return sorted(filter_spans(candidates), key=lambda span: span.start)


def colon_titles(doc: Doc) -> Iterator[Span]:
    for token in doc:
        if token.text != ":" or token.i == 0 or token.i == len(doc) - 1:
            continue
        start = _title_run_edge(doc, token.i - 1, step=-1)
        end = _title_run_edge(doc, token.i + 1, step=1)
        if start is not None and end is not None:
            yield doc[start : end + 1]


def parenthetical_titles(doc: Doc) -> Iterator[Span]:
    """Wikipedia-style disambiguated titles: "Roar (song)", "Australia (2008 film)"."""
    for token in doc:
        if token.text != "(" or token.i == 0 or not _is_title_word(token.nbor(-1)):
            continue
        close = matching_bracket(token)
        start = _title_run_edge(doc, token.i - 1, step=-1)
        if close is not None and start is not None and close - token.i <= MAX_DISAMBIGUATOR_TOKENS:
            yield doc[start : close + 1]


def _title_run_edge(doc: Doc, index: int, step: int) -> int | None:
    """Index of the outermost title word in a run starting at ``index``, walking by ``step``."""
    edge = None
    while 0 <= index < len(doc):
        token = doc[index]
        if _is_title_word(token):
            edge = index
        elif token.lower_ not in TITLE_CONNECTORS:
            break
        index += step
    return edge


def _is_title_word(token: Token) -> bool:
    return token.is_title or token.is_upper or token.like_num


def subject_titles(doc: Doc) -> Iterator[Span]:
    """Title-like subjects the parser splits: 'Giada at Home was', 'Hot Right Now is', 'Excuse My French is'."""
    for predicate in doc:
        if predicate.pos_ not in VERBAL_POS:
            continue
        subjects = predicate_subjects(predicate)
        if subjects:
            phrase_start, min_length = noun_phrase_tokens(subjects[0])[0].i, 2
        elif predicate.dep_ in {"ROOT", "conj"} and not has_expletive(predicate):
            phrase_start, min_length = verb_group_start(predicate), 1
        else:
            continue
        candidate = doc[title_run_start(doc, phrase_start) : verb_group_start(predicate)]
        if len(candidate) >= min_length and looks_like_title(candidate):
            yield candidate


def looks_like_title(span: Span) -> bool:
    """Capitalised words (and connectors) only, not opening with a common noun ('Residents of X')
    and not a lone stop word ('There')."""
    first = span[0]
    lone_stop_word = len(span) == 1 and first.is_stop
    return first.is_title and first.pos_ != "NOUN" and not lone_stop_word and is_title_run(span)


def title_run_start(doc: Doc, index: int) -> int:
    """Where a run of title words ending before ``index`` starts, if it starts the clause; else ``index``."""
    start = index
    while start > 0 and _can_extend_title_left(doc[start - 1]):
        start -= 1
    return start if _at_clause_start(doc, start) else index


def _can_extend_title_left(token: Token) -> bool:
    is_title_piece = _is_title_word(token) or token.lower_ in LEADING_TITLE_CONNECTORS
    return is_title_piece and token.ent_type_ not in {"DATE", "TIME"}


def is_subjectless_title(name: Span, predicate: Token) -> bool:
    return predicate.dep_ in {"ROOT", "conj"} and _at_clause_start(name.doc, name.start)


def _at_clause_start(doc: Doc, index: int) -> bool:
    return index == 0 or doc[index - 1].text in {".", "!", "?", ";"}


def is_title_run(span: Span) -> bool:
    words_ok = all(_is_title_word(t) or t.lower_ in LEADING_TITLE_CONNECTORS for t in span)
    return len(span) > 0 and words_ok and _is_title_word(span[-1])
