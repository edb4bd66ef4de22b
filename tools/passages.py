"""The documents a text is checked against, read as passages: pure helpers, no MCP.

Grounding ("is this answer backed by these documents?") reads passages, not single sentences: a claim
often needs two or three neighbouring sentences together (MiniCheck and AlignScore read chunks for the same
reason). Each document is split into sentences that keep their character span in the document (a blank line
always ends one; a single line break does too, unless the next line goes on in lower case, as a wrapped
line does), and every run of one to ``max(sizes)`` consecutive sentences, up to ``MAX_PASSAGE_CHARS``, is a
passage. A BM25 index (bm25s, Snowball stemming, as for corpora) over the passages finds the ones a claim
is about, and :meth:`PassageIndex.window` widens a hit to the 2-4 sentences around it, so a fact told over
neighbouring sentences ("Acme opened a plant in Leipzig. It cost EUR 40 million.") is read together.

Indexes are built on the fly and kept in memory by the documents' content (:class:`PassageIndexCache`):
the same documents given again, by another request, are not split or indexed twice.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import bm25s

from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import GivenDocument
from mermaid_verifier.tools.corpus_index import bm25_top, tokenize

logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets its own logger to DEBUG: an index a call is noise

MAX_PASSAGE_CHARS = 1_500  # about 350 tokens: what the reader takes in at most
MAX_SENTENCE_CHARS = 1_000
_LINE_BREAK = re.compile(r"\n(?![ \t]*[a-z])")  # a line break that ends a sentence
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True, slots=True)
class DocumentPassage:
    """One to a few consecutive sentences of a given document, with their span in it."""

    document: int  # the document's place among those given
    name: str
    title: str
    text: str
    start: int
    end: int
    first_sentence: int
    sentences: int


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, stripped of surrounding space, in order."""
    nlp = sentencizer()
    spans: list[tuple[int, int]] = []
    for block_start, block_end in _blocks(text):
        block = text[block_start:block_end]
        flat = block.replace("\n", " ")  # the same length: offsets stay the document's
        for sentence in nlp(flat).sents:
            start = block_start + sentence.start_char
            end = block_start + sentence.end_char
            spans += _cut(text, start, end)
    return spans


def _blocks(text: str) -> list[tuple[int, int]]:
    """Spans of the text between hard breaks (paragraphs, and lines that do not run on)."""
    cuts = sorted({m.start() for m in _PARAGRAPH.finditer(text)} | {m.start() for m in _LINE_BREAK.finditer(text)})
    blocks, start = [], 0
    for cut in [*cuts, len(text)]:
        if text[start:cut].strip():
            blocks.append((start, cut))
        start = cut + 1
    return blocks


def _cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentence's span stripped, cut where a reader would when it runs on past ``MAX_SENTENCE_CHARS``."""
    raw = text[start:end]
    start += len(raw) - len(raw.lstrip())
    end -= len(raw) - len(raw.rstrip())
    out = []
    while end - start > MAX_SENTENCE_CHARS:
        cut = text.rfind(" ", start, start + MAX_SENTENCE_CHARS)
        cut = cut if cut > start else start + MAX_SENTENCE_CHARS
        out.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        out.append((start, end))
    return out


_NLP = None
_NLP_LOCK = threading.Lock()


def sentencizer():
    """spaCy's rule-based sentence splitter on a blank English pipeline, built once per process (thread-safe): the
    one that splits the user's documents and the default corpus's summaries."""
    global _NLP
    with _NLP_LOCK:
        if _NLP is None:
            from spacy.lang.en import English

            nlp = English()
            nlp.add_pipe("sentencizer")
            _NLP = nlp
    return _NLP


def document_passages(
    documents: Sequence[GivenDocument], sizes: Sequence[int], spans_of: Sequence[list[tuple[int, int]]] | None = None
) -> list[DocumentPassage]:
    """Every run of ``sizes`` consecutive sentences of each document (at most ``MAX_PASSAGE_CHARS``);
    ``spans_of``: each document's sentence spans, when already split."""
    out: list[DocumentPassage] = []
    for number, document in enumerate(documents):
        spans = spans_of[number] if spans_of is not None else sentence_spans(document.text)
        for size in sorted(set(sizes)):
            for first in range(0, len(spans) - size + 1):
                start, end = spans[first][0], spans[first + size - 1][1]
                if size > 1 and end - start > MAX_PASSAGE_CHARS:
                    continue
                out.append(passage_of(number, document, spans, first, first + size))
    return out


def passage_of(
    number: int, document: GivenDocument, spans: list[tuple[int, int]], first: int, last: int
) -> DocumentPassage:
    """Sentences ``first`` to ``last`` (exclusive) of document ``number``, with their character span."""
    start, end = spans[first][0], spans[last - 1][1]
    return DocumentPassage(
        document=number,
        name=document.name,
        title=document.title,
        text=" ".join(document.text[start:end].split()),
        start=start,
        end=end,
        first_sentence=first,
        sentences=last - first,
    )


def documents_key(documents: Sequence[GivenDocument], sizes: Sequence[int]) -> str:
    """A fingerprint of the documents' names, titles and texts and the passage sizes."""
    digest = hashlib.sha256(repr(sorted(set(sizes))).encode())
    for document in documents:
        for part in (document.name, document.title, document.text):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()[:32]


class PassageIndex:
    """BM25 over the passages of a set of documents."""

    def __init__(self, documents: Sequence[GivenDocument], sizes: Sequence[int]) -> None:
        if not documents:
            raise UsageError("no documents to check against: give at least one")
        self.documents = list(documents)
        self.spans = [sentence_spans(d.text) for d in self.documents]
        self.passages = document_passages(self.documents, sizes, self.spans)
        self._retriever: bm25s.BM25 | None = None
        corpus = tokenize([f"{p.title} . {p.text}" for p in self.passages])
        if any(corpus):  # documents of stop words only ("IF") have nothing to search by
            self._retriever = bm25s.BM25()
            self._retriever.index(corpus, show_progress=False)

    def search(self, query: str, k: int) -> list[DocumentPassage]:
        """The ``k`` passages BM25 ranks highest for ``query`` (fewer when fewer share a word with it)."""
        if self._retriever is None:
            return []
        ranked = bm25_top(self._retriever, self._retriever.vocab_dict, query, k, len(self.passages))
        return [self.passages[i] for i, _ in ranked]

    def window(self, hit: DocumentPassage, size: int) -> DocumentPassage:
        """The ``size`` neighbouring sentences around ``hit`` (it in the middle, one more after than before
        where they do not split evenly), within its document and ``MAX_PASSAGE_CHARS``; ``hit`` itself when
        it is already as long."""
        spans = self.spans[hit.document]
        first, last = hit.first_sentence, hit.first_sentence + hit.sentences  # [first, last)
        after = True
        while last - first < size and (first > 0 or last < len(spans)):
            if (after and last < len(spans)) or first == 0:
                grown = (first, last + 1)
            else:
                grown = (first - 1, last)
            after = not after
            if spans[grown[1] - 1][1] - spans[grown[0]][0] > MAX_PASSAGE_CHARS:
                break
            first, last = grown
        if (first, last) == (hit.first_sentence, hit.first_sentence + hit.sentences):
            return hit
        return passage_of(hit.document, self.documents[hit.document], spans, first, last)


class PassageIndexCache:
    """Passage indexes kept by the documents' content, the least recently used dropped past ``size``."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._indexes: OrderedDict[str, PassageIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, documents: Sequence[GivenDocument], sizes: Sequence[int]) -> PassageIndex:
        key = documents_key(documents, sizes)
        with self._lock:
            if key in self._indexes:
                self._indexes.move_to_end(key)
                return self._indexes[key]
        index = PassageIndex(documents, sizes)  # built outside the lock: other texts go on meanwhile
        with self._lock:
            self._indexes[key] = index
            self._indexes.move_to_end(key)
            while len(self._indexes) > self.size:
                self._indexes.popitem(last=False)
        return index

    def __len__(self) -> int:
        return len(self._indexes)
