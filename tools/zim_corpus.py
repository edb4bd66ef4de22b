"""A Kiwix ZIM file (an offline Wikipedia, or any ZIM of HTML articles) as a local corpus.

:class:`ZimCorpus` answers the local-corpus server's calls as the JSONL indexes do — ``search(query, k)``,
``get_page(title)``, ``titles_like``, ``pages_named`` — over the ZIM itself: nothing is indexed, the ZIM's own
full-text (Xapian) index and title index are used. It is read through ``libzim`` (openZIM, GPL-3.0-or-later),
installed by the optional extra ``zim`` and imported only when a ZIM is opened.

* **search**: the ZIM's full-text index returns articles holding every word asked for; a many-word query
  that finds nothing is asked again with fewer words (the least distinctive dropped first), then the titles
  are searched (title suggestions). The sentences of the best articles are ranked by BM25 against the query
  (the same tokens as the JSONL index: title and sentence together), best first.
* **a page**: its HTML read by :func:`~mermaid_verifier.tools.article_html.read_article` — prose sentences
  and the infobox rows that state a fact — each a passage with the stable id ``<zim>:<path>:<n>``.
  Redirects are followed; a disambiguation page gives no passages but the pages it lists.
* **bad files** are a :class:`CorpusError` of one line: not found, not a ZIM, truncated or damaged, no
  article in it, or a language other than English (the reader reads English only). A ZIM without a
  full-text index is searched by title only, and that is said once.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from pathlib import Path
from urllib.parse import quote

from mermaid_verifier.errors import CorpusError
from mermaid_verifier.names import disambiguator, normalise_entity
from mermaid_verifier.tools.article_html import Article, plain_article, read_article
from mermaid_verifier.tools.corpus_index import CorpusIndex, Passage, normalise_title

logger = logging.getLogger(__name__)

ZIM_MAGIC = (72173914).to_bytes(4, "little")  # 0x044D495A, the first four bytes of every ZIM file
ZIM_EXTRA = "pip install 'mermaid-verifier[zim]'"
CANDIDATE_ARTICLES = 8  # articles whose sentences a search ranks
QUERY_WORDS = 10  # at most this many words of a query go to the full-text index
PAGE_CACHE = 256  # articles kept read and split
RANKED_SENTENCES = 600  # a search ranks at most this many sentences of its articles (see shortlist)
LEAD_SENTENCES = 3  # an article's first sentences, always among them: they say what the subject is
MAX_REDIRECTS = 8
ENGLISH = {"eng", "en"}
URL_SAFE = "/:()_,!'*;@$&+=-.~"  # kept as they are in a Wikipedia article's address
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_STOPWORDS = frozenset(
    "a an the and or of in on at to for by with from as is are was were be been being has have had do does did "
    "not no it its this that these those he she they his her their who whom which what when where why how "
    "than then there here into onto over under about after before also only very".split()
)


def is_zim(path: Path) -> bool:
    """Whether ``path`` starts with the ZIM magic number (read from the file, whatever its name)."""
    try:
        with Path(path).open("rb") as handle:
            return handle.read(4) == ZIM_MAGIC
    except OSError:
        return False


def zim_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("libzim") is not None


def query_words(query: str) -> list[str]:
    """The words of a query worth asking the full-text index for, most distinctive first: names and numbers
    (capitalised or with digits) before other words, longer before shorter; stop words and repeats left out."""
    words: list[str] = []
    seen: set[str] = set()
    for word in _WORD.findall(query):
        key = word.casefold()
        if key in _STOPWORDS or key in seen or len(word) < 2 and not word.isdigit():
            continue
        seen.add(key)
        words.append(word)
    order = {w: i for i, w in enumerate(words)}
    return sorted(words, key=lambda w: (not (w[:1].isupper() or any(c.isdigit() for c in w)), -len(w), order[w]))[
        :QUERY_WORDS
    ]


def fallback_queries(query: str) -> list[str]:
    """The queries a search tries in turn while it has too few articles: all the query's words, then fewer (the
    least distinctive dropped first) down to the most distinctive word alone, then each other name or number
    alone ("Rick", "Ross" after "Freeway")."""
    words = query_words(query)
    attempts = [" ".join(words[:n]) for n in range(len(words), 0, -1)]
    attempts += [w for w in words[1:] if w[:1].isupper() or any(c.isdigit() for c in w)]
    return list(dict.fromkeys(attempts))


class ZimCorpus:
    """One ZIM file, read through libzim, answering as a corpus index (see the module's description)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.corpus = self.path.stem
        self.archive = open_archive(self.path)
        self.fulltext = bool(self.archive.has_fulltext_index)
        self.source_url = _wiki_base_url(self.archive)
        self._lock = threading.Lock()  # libzim readers are thread-safe; the page cache is not
        self._pages: OrderedDict[str, tuple[str, Article, str]] = OrderedDict()
        self.problem: str | None = None
        if not self.fulltext:
            # said once by the run that opens the corpus (corpora.check_readable), and in each empty search's message
            self.problem = f"{self.path.name} has no full-text index: searching its titles only"
            logger.info("%s", self.problem)

    def __len__(self) -> int:
        return int(self.archive.article_count)

    # ------------------------------------------------------------------ searching

    def search(self, query: str, k: int = 5) -> list[tuple[Passage, float]]:
        """The ``k`` best sentences for ``query`` from the best articles, with their BM25 scores."""
        paths = self.article_paths(query, CANDIDATE_ARTICLES)
        candidates: list[Passage] = []
        read: set[str] = set()  # articles by the path redirects lead to: "Obama" and "Barack_Obama" are one page
        for path in paths:
            try:
                passages = self.passages_of(path)
            except CorpusError as exc:  # one damaged article: the others still answer
                logger.warning("%s", exc)
                continue
            if passages and passages[0].page not in read:
                read.add(passages[0].page)
                candidates += passages
        return rank_passages(candidates, query, k)

    def article_paths(self, query: str, limit: int) -> list[str]:
        """Paths of up to ``limit`` articles for ``query``: the full-text index's best articles holding all its
        words, then, while fewer than ``limit`` are found, those holding fewer of them (the least distinctive
        dropped first); title suggestions when the full text finds nothing."""
        found: list[str] = []
        if self.fulltext:
            from libzim.search import Query, Searcher

            searcher = Searcher(self.archive)
            for attempt in fallback_queries(query):
                # lower case: Xapian reads upper-case AND, OR, NOT, NEAR as operators, and its terms are lower case
                for path in searcher.search(Query().set_query(attempt.casefold())).getResults(0, limit):
                    if path not in found:
                        found.append(path)
                if len(found) >= limit:
                    break
        if not found:
            found = self.suggested_paths(query, limit)
        return found[:limit]

    def suggested_paths(self, text: str, limit: int) -> list[str]:
        from libzim.suggestion import SuggestionSearcher

        text = " ".join(text.split())
        if not text:
            return []
        suggester = SuggestionSearcher(self.archive)
        paths = list(suggester.suggest(text).getResults(0, limit))
        if not paths:  # a title search matches whole words of titles: try the most distinctive words alone
            for attempt in fallback_queries(text)[1:]:
                paths = list(suggester.suggest(attempt).getResults(0, limit))
                if paths:
                    break
        return paths

    # ------------------------------------------------------------------ pages

    def entry_for(self, title: str):
        """The article entry for a title or path (redirects followed), or None."""
        archive = self.archive
        title = " ".join(title.split())
        if not title:
            return None
        candidates = [title, title.replace(" ", "_"), title[:1].upper() + title[1:]]
        candidates.append(candidates[-1].replace(" ", "_"))
        entry = None
        for candidate in dict.fromkeys(candidates):
            if archive.has_entry_by_path(candidate):
                entry = archive.get_entry_by_path(candidate)
                break
            if archive.has_entry_by_title(candidate):
                entry = archive.get_entry_by_title(candidate)
                break
        if entry is None:  # another casing: a title suggestion that folds to the same title
            key = normalise_title(title)
            for path in self.suggested_paths(title, 10):
                found = archive.get_entry_by_path(path)
                if normalise_title(found.title) == key or normalise_title(path) == key:
                    entry = found
                    break
        return None if entry is None else _followed(entry)

    def article(self, path: str) -> tuple[str, Article, str]:
        """(title, read article, the article's own path: where a redirect at ``path`` leads) of the entry at
        ``path``, from the cache when it was read lately."""
        with self._lock:
            cached = self._pages.get(path)
            if cached is not None:
                self._pages.move_to_end(path)
                return cached
        try:
            entry = _followed(self.archive.get_entry_by_path(path))
            if entry is None:
                raise RuntimeError(f"more than {MAX_REDIRECTS} redirects")
            item = entry.get_item()
            title = entry.title or path
            own_path = entry.path
            mimetype = str(item.mimetype)
            content = bytes(item.content) if mimetype.startswith(("text/html", "text/plain")) else b""
        except (RuntimeError, KeyError) as exc:
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise CorpusError(
                f"{self.path.name}: the article {path!r} cannot be read ({detail}); the file may be damaged"
            ) from None
        if mimetype.startswith("text/html"):
            read = read_article(content, title)
        elif mimetype.startswith("text/plain"):
            read = plain_article(content.decode("utf-8", "replace"), title)
        else:  # an image, a stylesheet, a script: no statements
            read = Article(title)
        with self._lock:
            self._pages[path] = (title, read, own_path)
            while len(self._pages) > PAGE_CACHE:
                self._pages.popitem(last=False)
        return title, read, own_path

    def passages_of(self, path: str) -> list[Passage]:
        """The article's sentences, named by the article's own path however it was reached (a redirect, a title
        suggestion), so that one sentence has one id."""
        title, read, path = self.article(path)
        if read.disambiguation:
            return []
        url = self.url_of(path)
        return [
            Passage(f"{self.corpus}:{path}:{n}", path, n, title, text, self.corpus, url)
            for n, text in enumerate(read.sentences)
        ]

    def get_page(self, title: str) -> list[Passage]:
        """Every sentence of the article of that title (or path), in page order; empty when there is none or it
        is a disambiguation page (:meth:`pages_named` lists what it may mean)."""
        entry = self.entry_for(title)
        return [] if entry is None else self.passages_of(entry.path)

    def disambiguation_options(self, title: str) -> list[str] | None:
        """The titles a disambiguation page of that title lists; None when it is no disambiguation page."""
        entry = self.entry_for(title)
        if entry is None:
            return None
        _, read, _ = self.article(entry.path)
        if not read.disambiguation:
            return None
        titles = []
        for path in read.options:
            target = self.entry_for(path)
            if target is not None and target.title not in titles:
                titles.append(target.title)
        return titles

    def titles_like(self, title: str, limit: int = 5) -> list[str]:
        """Titles for 'did you mean' answers: the pages of that name, then the ZIM's title suggestions."""
        found = self.pages_named(title)
        for path in self.suggested_paths(title, limit * 2):
            shown = self.archive.get_entry_by_path(path).title
            if shown not in found:
                found.append(shown)
        return found[:limit]

    def pages_named(self, title: str) -> list[str]:
        """The pages a title without a disambiguator may mean: the pages its disambiguation page lists, else the
        titles of that name with a disambiguator ("House (TV series)" for "House")."""
        key = normalise_title(title)
        if not key or disambiguator(key):
            return []
        options = self.disambiguation_options(title)
        if options is None:
            options = self.disambiguation_options(f"{title} (disambiguation)") or []
        name = normalise_entity(key)
        named = [t for t in options if normalise_entity(normalise_title(t)) == name or disambiguator(t)]
        for path in self.suggested_paths(title, 20):
            shown = self.archive.get_entry_by_path(path).title
            if disambiguator(shown) and normalise_entity(normalise_title(shown)) == name and shown not in named:
                named.append(shown)
        return sorted(named, key=lambda t: (len(t), t))

    def url_of(self, path: str) -> str | None:
        """The article's web address when the ZIM says it is a Wikipedia copy, else None."""
        if not self.source_url:
            return None
        if not self.archive.has_new_namespace_scheme:  # ZIMs made before 2021 keep articles under "A/"
            path = path.removeprefix("A/")
        return f"{self.source_url}{quote(path, safe=URL_SAFE)}"


def _followed(entry):
    """The entry a redirect leads to (up to :data:`MAX_REDIRECTS` hops), the entry itself if it is none; None for
    a longer chain."""
    for _ in range(MAX_REDIRECTS):
        if not entry.is_redirect:
            return entry
        entry = entry.get_redirect_entry()
    return None if entry.is_redirect else entry


def rank_passages(candidates: list[Passage], query: str, k: int) -> list[tuple[Passage, float]]:
    """The ``k`` best of ``candidates`` for ``query`` by BM25 over title and text, as the JSONL index ranks. Long
    articles give thousands of sentences: above :data:`RANKED_SENTENCES` only the sentences sharing a word with
    the query (most shared first) and each article's first sentences are ranked."""
    if not candidates or k <= 0:
        return []
    return CorpusIndex.build(shortlist(candidates, query)).search(query, k)


def shortlist(candidates: list[Passage], query: str, limit: int = 0) -> list[Passage]:
    """At most ``limit`` (default :data:`RANKED_SENTENCES`) of the candidates, in their order: all of them when
    they are few; else each article's first :data:`LEAD_SENTENCES` and those sharing most words with the query."""
    limit = limit or RANKED_SENTENCES
    if len(candidates) <= limit:
        return candidates
    wanted = {w.casefold() for w in _WORD.findall(query)} - _STOPWORDS
    shared = [len(wanted & {w.casefold() for w in _WORD.findall(p.text)}) for p in candidates]
    lead = [p.line is not None and p.line < LEAD_SENTENCES for p in candidates]
    order = sorted(range(len(candidates)), key=lambda i: (not lead[i], -shared[i], i))
    keep = {i for i in order[:limit] if lead[i] or shared[i]}
    return [p for i, p in enumerate(candidates) if i in keep]


def open_archive(path: Path):
    """The libzim archive at ``path``, checked; a one-line :class:`CorpusError` saying what is wrong."""
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"corpus file not found: {path}")
    if not path.is_file():
        raise CorpusError(f"corpus path is not a file: {path}")
    if not is_zim(path):
        raise CorpusError(f"{path} is not a ZIM file (it does not start with the ZIM magic number)")
    if not zim_available():
        raise CorpusError(f"reading the ZIM file {path} needs libzim: {ZIM_EXTRA}")
    from libzim.reader import Archive

    try:
        archive = Archive(path)
        count = archive.article_count
    except RuntimeError as exc:
        detail = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
        raise CorpusError(f"{path} is a damaged or truncated ZIM file ({detail}); download it again") from None
    if count == 0:
        raise CorpusError(f"{path} holds no articles")
    language = _metadata(archive, "Language")
    if language and not set(language.replace(" ", "").split(",")) & ENGLISH:
        raise CorpusError(
            f"{path} is a ZIM in {language!r}; the stance model reads English only: use an English ZIM (wikipedia_en_…)"
        )
    return archive


def _metadata(archive, key: str) -> str:
    try:
        return bytes(archive.get_metadata(key)).decode("utf-8", "replace").strip()
    except (RuntimeError, KeyError):
        return ""


WIKIMEDIA = ("wikipedia.org", "wiktionary.org", "wikivoyage.org", "wikiquote.org", "wikibooks.org", "wikisource.org",
             "wikinews.org", "wikiversity.org")  # fmt: skip


def _wiki_base_url(archive) -> str | None:
    """The address of the wiki a ZIM copies, for links to its articles: its ``Source`` metadata when that names a
    Wikimedia wiki (mwoffliner writes ``en.wikipedia.org``), English Wikipedia when its other metadata says
    Wikipedia, else None (no link: the ZIM is named by each passage's corpus and the article by its title)."""
    source = _metadata(archive, "Source").casefold().removeprefix("https://").removeprefix("http://").strip("/")
    if re.fullmatch(r"[a-z0-9-]+\.(?:m\.)?[a-z]+\.org", source) and source.endswith(WIKIMEDIA):
        return f"https://{source}/wiki/"
    said = " ".join(_metadata(archive, key) for key in ("Creator", "Name", "Publisher", "Title")).casefold()
    return "https://en.wikipedia.org/wiki/" if "wikipedia" in said else None
