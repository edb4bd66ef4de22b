"""Offline claim decomposer: spaCy dependency parse + NER -> triplets, keywords, entities.

The output drives the evidence search: a triplet's subject is looked up as a page title,
keywords become search queries and entities key the evidence memory.  Every subject and
object is therefore a *contiguous span of the claim* (after whitespace is collapsed to
single spaces), never a lone head token and never rewritten text.

Name spans (computed first, used to widen arguments)
    Named entities and the titles the parser splits (:func:`.titles.name_spans`).
Predicates
    A verb or copula with its own subject (``nsubj``/``nsubjpass``/``csubj``), a verb
    conjoined to a predicate (``conj``; it inherits the subject and, when it has the same
    verb form and no auxiliary of its own, the auxiliaries: "was written and directed by"),
    a participle / relative clause on a noun (``acl``/``relcl``), whose subject is the noun
    it modifies ("The Beatles were a band formed in Liverpool" -> (a band, formed in,
    Liverpool)), or a subjectless main verb right after a title-like name span.  A relative
    pronoun argument ("that", "who", "which") is replaced by the noun it refers to.
    Expletive subjects ("There is ...") and verbs inside a name span ('"I Want You Back"')
    make no triplet.
Relation
    The predicate's auxiliaries and negation (``aux``/``auxpass``/``neg``: "not", "n't",
    "never") in claim order, the verb, its particle, then the lower-cased preposition that
    introduces the object: "was directed by", "was born in", "is not".  An open complement
    extends it ("refused to be"), as does an adjective complement with a preposition or
    complement ("was incapable of", "is unable to host").  Other adverbs ("only",
    "exclusively") are not part of the relation.
Objects
    One triplet per object: direct object, attribute (copula), object predicate,
    adjective complement, the agent of a passive ("by") and every prepositional object of
    the predicate ("Apple was founded by Steve Jobs in 1976" -> two triplets).  A
    prepositional phrase other than "of" on an object gives one more triplet with that
    object folded into the relation ("is a character in", Don Quixote).  Conjuncts of an
    argument give one triplet each ("worked as a glamor model and a stripper"); a verb with
    no object borrows the object of a later conjoined verb ("released and distributed the
    film"); a nominal ``conj`` that a parse error hangs on the verb counts as a conjunct of
    the verb's last object ("starred in Big and Cast Away").  Without a core object, the
    first noun to the verb's right in a stray relation (``npadvmod``, ``dep``, ...) not
    already inside an object is taken; this recovers titles the small model splits
    ("directed 2001: A Space Odyssey").  Where two objects would overlap, the first wins.
    A main predicate with a subject and no object yields (subject, verb phrase, "").
Argument spans
    The head with its left dependents (determiner, compound, modifiers, possessor) and
    right-hand compounds, numbers, appositions and "of" phrases (followed recursively,
    with their conjuncts: "part of Scotland and England").  Relative clauses, other
    prepositional phrases and the argument's own conjuncts are left out.  The span is then
    widened to every name span it overlaps (never across the verb), so "the 49ers' 63rd
    season" and "2001: A Space Odyssey" come out whole, and to a closing bracket it opens.
    Determiners and adverbs inside the span are kept as written ("a vegan", "The
    Beatles", "only Chinese"); edge punctuation (quotes) is stripped.
Keywords
    Name spans, noun chunks (without leading prepositional phrases, split at finite verbs
    and commas a mis-parse put inside them, pronouns dropped), numbers in neither, and the
    lemma of each main verb that is not a stop word ("direct", not "be" / "have").  Each is
    stripped of leading determiners and lower-case adverbs and of a trailing possessive
    "'s".  A count inside a longer chunk ("two" in "two people") is dropped; a date inside
    one ("2001" in "2001 film") is kept.  Deduplicated case-insensitively, in claim order.
    A claim with none of these falls back to its non-stop words.
Entities
    Name spans other than numeric entity types (dates, cardinals, money...) plus noun
    chunks headed by a proper noun, cleaned like keywords ("Beatles", "Damon Albarn"),
    without any that lie inside a longer one, deduplicated, in claim order.
Fallback
    Empty or whitespace-only claims give an empty Decomposition.  When the parse yields no
    predicate at all but a finite verb is tagged ("Kellogg's sells products" parsed as one
    noun phrase), one triplet is cut linearly around that verb (words before it in the
    clause, words after).  A fragment with no verb gives no triplets, only keywords and
    entities.  Nothing here raises on odd input.

Known gaps (mostly en_core_web_sm errors carried through)
    * Verbs tagged as nouns give no triplet: "Poldark airs on HBO", "Mud stars Matthew
      McConaughey", "Residents of Basildon work in Central London".
    * Hyphenated verbs are split: "helped co-found Rage in 1962" gives (Brad Wilk, helped,
      found Rage).  "Calcaneal spurs are unable to ..." parses "spurs" as the verb.
    * A prepositional phrase the parser attaches to the wrong noun stays there: in
      "directed 2001: A Space Odyssey in 1968" the date is lost; in "became ... during the
      49ers' 63rd season in the NFL" the relation becomes "became during the 49ers' 63rd
      season in".
    * "City, State" subjects can lose the city when it is parsed as a modifier of the
      verb ("Prescott, Arizona is in ..." -> subject "Arizona").
    * Clause objects are not followed: "was born after the Apple II came out" gives
      (Steve Wozniak, was born, "").
    * Clauses on a copula's attribute keep that noun as subject: "CBS is the network that
      aired The Millers" gives (the network, aired, The Millers), not (CBS, aired, ...).
    * The title heuristics can over-reach on a capitalised clause opening, and NER
      boundaries, right or wrong, decide how far an argument widens.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable

from spacy.tokens import Doc, Span, Token

from mermaid_verifier.agents.spacy_pipeline import LazyPipeline
from mermaid_verifier.agents.syntax import (
    AUXILIARY_DEPS,
    NOMINAL_POS,
    PREPOSITION_OBJECT_DEPS,
    VERBAL_POS,
    conjuncts,
    matching_bracket,
    nominal_conjuncts,
    noun_phrase_tokens,
    predicate_subjects,
    verb_group_start,
)
from mermaid_verifier.agents.titles import is_subjectless_title, name_spans
from mermaid_verifier.models import Decomposition, Triplet

INHERITED_AUXILIARY_DEPS = frozenset({"aux", "auxpass"})
CORE_OBJECT_DEPS = frozenset({"dobj", "attr", "oprd", "dative"})
PREPOSITION_DEPS = frozenset({"prep", "agent"})
STRAY_OBJECT_DEPS = frozenset({"npadvmod", "dep", "appos", "nmod", "nsubj", "obj"})
FINITE_VERB_TAGS = frozenset({"VBD", "VBZ", "VBP", "VBN"})
RELATIVE_PRONOUNS = frozenset({"that", "which", "who", "whom", "whose"})
NUMERIC_ENTITY_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY"})


class SpacyDecomposer(LazyPipeline):
    """Claim -> Decomposition with spaCy; the pipeline loads lazily on first use."""

    def decompose(self, claim: str) -> Decomposition:
        text = " ".join(claim.split())
        if not text:
            return Decomposition()
        return decompose_doc(self.nlp(text))

    async def adecompose(self, claim: str) -> Decomposition:
        return await asyncio.to_thread(self.decompose, claim)


def decompose_doc(doc: Doc) -> Decomposition:
    names = name_spans(doc)
    triplets = extract_triplets(doc, names)
    entities = extract_entities(doc, names)
    if not entities and triplets:  # "Aspirin reduces the risk of …": what the claim is about is its subject
        subject = subject_topic(triplets[0].subject)
        entities = [subject] if subject else []
    return Decomposition(triplets=triplets, keywords=extract_keywords(doc, names), entities=entities)


_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_PRONOUNS = {"it", "he", "she", "they", "this", "that", "these", "those", "we", "i", "you", "one", "there"}


def names_something(decomposition: Decomposition) -> bool:
    """Whether a claim names anything evidence could be about: an entity, or a subject that is not a pronoun."""
    return bool(decomposition.entities) or any(subject_topic(t.subject) for t in decomposition.triplets)


def subject_topic(subject: str) -> str:
    """A triplet subject as the name of what the claim is about: its article dropped ("the bridge" ->
    "bridge"); a pronoun names nothing."""
    bare = _ARTICLE.sub("", subject.strip())
    return "" if bare.casefold() in _PRONOUNS else bare


# --------------------------------------------------------------------------- triplets


def extract_triplets(doc: Doc, names: list[Span]) -> list[Triplet]:
    triplets: list[Triplet] = []
    for predicate in doc:
        subjects = [] if _inside_any(predicate, names) else subject_spans(predicate, names)
        if not subjects:  # not a predicate, or a verb inside a title ("I Want You Back")
            continue
        relation_head = join_tokens(relation_tokens(predicate))
        objects = predicate_objects(predicate)
        for subject in subjects:
            triplets += triplets_for_subject(subject, relation_head, objects, names, predicate)
    return list(dict.fromkeys(triplets)) or fallback_triplets(doc, names)


def fallback_triplets(doc: Doc, names: list[Span]) -> list[Triplet]:
    """When the parse gives no predicate ('The dress inspired hashtags' parsed as one noun
    phrase), split the clause around its first finite verb: words before it, words after."""
    for verb in doc:
        if not _is_fallback_verb(verb) or _inside_any(verb, names):
            continue
        start = verb_group_start(verb)
        clause_start = max([t.i + 1 for t in doc[:start] if t.text in {",", ";", "."}], default=0)
        subject = strip_edge_punctuation(doc[clause_start:start])
        obj = strip_edge_punctuation(doc[verb.i + 1 :])
        if any(not token.is_stop for token in subject):
            relation = join_tokens(doc[start : verb.i + 1])
            return [Triplet(subject=subject.text, relation=relation, object=obj.text)]
    return []


def triplets_for_subject(
    subject: Span, relation_head: str, objects: list[tuple[str, Token]], names: list[Span], predicate: Token
) -> list[Triplet]:
    object_spans = [(suffix, argument_span(obj, names, predicate)) for suffix, obj in objects]
    kept: list[tuple[str, Span]] = []
    for suffix, span in object_spans:
        # The first reading of a stretch of the claim wins: "is in X: At Y" is not also "is at".
        if span.text and not any(spans_overlap(span, other) for other in [subject, *(k for _, k in kept)]):
            kept.append((suffix, span))
    if not kept and is_main_predicate(predicate):
        return [Triplet(subject=subject.text, relation=relation_head, object="")]
    return [Triplet(subject=subject.text, relation=relation_head + suffix, object=span.text) for suffix, span in kept]


def _is_fallback_verb(token: Token) -> bool:
    """A finite verb, or a copula, but not an auxiliary of a later verb."""
    is_auxiliary = token.dep_ in AUXILIARY_DEPS and token.head.pos_ == "VERB"
    return token.pos_ in VERBAL_POS and token.tag_ in FINITE_VERB_TAGS and not is_auxiliary


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


def spans_overlap(first: Span, second: Span) -> bool:
    return first.start < second.end and second.start < first.end


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
        if child.dep_ in CORE_OBJECT_DEPS and child.pos_ == "ADP":  # dative "given to X"
            objects += preposition_objects_of(child, prefix="")
        elif child.dep_ in CORE_OBJECT_DEPS:
            objects += with_conjuncts("", child)
            objects += object_prepositions("", child)
        elif child.dep_ == "acomp":
            objects += adjective_complement_objects(child)
        elif child.dep_ in PREPOSITION_DEPS:
            objects += preposition_objects_of(child, prefix="")
        elif child.dep_ == "xcomp" and child.pos_ in VERBAL_POS:
            objects += open_complement_objects(child)
        elif child.dep_ == "conj" and child.pos_ in {"NOUN", "PROPN"} and objects:
            objects.append((objects[-1][0], child))  # parse error: "starred in A and B" with B on the verb
    if not any(suffix == "" for suffix, _ in objects):
        objects += stray_object(predicate, objects)
    return objects


def with_conjuncts(suffix: str, token: Token) -> list[tuple[str, Token]]:
    return [(suffix, token)] + [(suffix, conjunct) for conjunct in nominal_conjuncts(token)]


def preposition_objects(head: Token, prefix: str) -> list[tuple[str, Token]]:
    objects: list[tuple[str, Token]] = []
    for preposition in head.children:
        if preposition.dep_ in PREPOSITION_DEPS:
            objects += preposition_objects_of(preposition, prefix)
    return objects


def preposition_objects_of(preposition: Token, prefix: str, nested: bool = True) -> list[tuple[str, Token]]:
    suffix = f"{prefix} {preposition.lower_}"
    objects: list[tuple[str, Token]] = []
    for child in preposition.children:
        if child.dep_ in PREPOSITION_OBJECT_DEPS:
            objects += with_conjuncts(suffix, child)
            objects += object_prepositions(suffix, child) if nested else []
    return objects


def object_prepositions(suffix: str, obj: Token) -> list[tuple[str, Token]]:
    """Non-"of" prepositional phrases on an object, one level deep: ("is a character in", Don Quixote)."""
    prefix = f"{suffix} {join_tokens(noun_phrase_tokens(obj))}"
    objects: list[tuple[str, Token]] = []
    for preposition in obj.children:
        if preposition.dep_ == "prep" and preposition.lower_ != "of":
            objects += preposition_objects_of(preposition, prefix, nested=False)
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


def stray_object(predicate: Token, objects: list[tuple[str, Token]]) -> list[tuple[str, Token]]:
    """The first noun hung on the verb by a stray relation, unless it belongs to an object already."""
    covered = {token.i for _, obj in objects for token in noun_phrase_tokens(obj)}
    for child in predicate.rights:
        if child.dep_ in STRAY_OBJECT_DEPS and child.pos_ in NOMINAL_POS and child.i not in covered:
            return [("", child)]
    return []


def later_conjoined_verbs(predicate: Token) -> list[Token]:
    first = predicate
    while first.dep_ == "conj" and first.head is not first:
        first = first.head
    group = [first, *conjuncts(first, VERBAL_POS)]
    return [verb for verb in group if verb.i > predicate.i]


# --------------------------------------------------------------------------- argument spans


def argument_span(token: Token, names: list[Span], predicate: Token) -> Span:
    """The argument's noun phrase, widened to the name spans it overlaps (never over the verb)."""
    token = resolve_relative_pronoun(token)
    # a clausal subject is whole: "13 Going on 30 is a film" (the parser reads the title as a clause)
    phrase = list(token.subtree) if token.dep_ in {"csubj", "csubjpass"} else noun_phrase_tokens(token)
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
    chunks = content_noun_chunks(doc, names)
    phrases = [name for name in names if not _is_count_inside(name, chunks)] + chunks
    numbers = [doc[t.i : t.i + 1] for t in doc if t.like_num and not _inside_any(t, phrases)]
    verbs = [doc[t.i : t.i + 1] for t in main_verbs(doc)]
    spans = sorted([*phrases, *numbers, *verbs], key=lambda span: (span.start, -len(span)))
    texts = [token_lemma_or_text(span) for span in spans]
    return dedupe_case_insensitive(texts) or content_words(doc)


def _is_count_inside(name: Span, chunks: list[Span]) -> bool:
    """'two' inside 'two people' adds nothing as a query; a date inside a chunk still does."""
    is_count = name.label_ in NUMERIC_ENTITY_LABELS - {"DATE", "TIME"}
    return is_count and any(c.start <= name.start and name.end <= c.end and len(c) > len(name) for c in chunks)


def content_words(doc: Doc) -> list[str]:
    """Last resort for fragments with no chunk, entity, number or verb: the non-stop words."""
    words = [t.text for t in doc if t.is_alpha and not t.is_stop]
    return dedupe_case_insensitive(words)


def extract_entities(doc: Doc, names: list[Span]) -> list[str]:
    named = [span for span in names if span.label_ not in NUMERIC_ENTITY_LABELS]
    proper_chunks = [chunk for chunk in content_noun_chunks(doc, names) if chunk.root.pos_ == "PROPN"]
    cleaned = [clean_phrase(span) for span in [*named, *proper_chunks]]
    outermost = [span for span in cleaned if len(span) and not _inside_longer(span, cleaned)]
    return dedupe_case_insensitive(span.text for span in sorted(outermost, key=lambda span: span.start))


def content_noun_chunks(doc: Doc, names: list[Span]) -> list[Span]:
    """Noun chunks that are not pronouns and not just a piece of a name span."""
    chunks = [trim_leading_prepositions(chunk) for chunk in doc.noun_chunks if chunk.root.pos_ != "PRON"]
    pieces = [piece for chunk in chunks for piece in split_at_verbs_and_commas(chunk)]
    return [piece for piece in pieces if clean_phrase(piece).text and not _within_any(piece, names)]


def split_at_verbs_and_commas(chunk: Span) -> list[Span]:
    """A mis-parsed chunk 'Kellogg's sells products' -> "Kellogg's", 'products'."""
    pieces, start = [], chunk.start
    for token in chunk:
        if token.tag_ in FINITE_VERB_TAGS - {"VBN"} or token.text in {",", ";"}:
            pieces.append(chunk.doc[start : token.i])
            start = token.i + 1
    pieces.append(chunk.doc[start : chunk.end])
    return [piece for piece in pieces if any(t.pos_ in NOMINAL_POS for t in piece)]


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
    """ "Albarn's" -> "Albarn", but not the "'s" of "1970's"."""
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
