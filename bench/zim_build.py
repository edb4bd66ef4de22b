"""Build Kiwix ZIM files with libzim's writer (full-text indexing on), for the tests and the ZIM benches.

* :func:`corpus_articles` turns a wiki-sentence JSONL corpus (``../shared/data/corpus/wiki_sentences.jsonl``)
  into articles: one per page, its sentences in line order, consecutive lines in one paragraph (``<p>``) as on
  a real page, so a reader of the ZIM has to split them into sentences again.
* :func:`generated_articles` makes any number of further articles (people, places, works) from a seed, with
  an infobox and a few sentences each, to bring a ZIM to the size of a real Wikipedia one.
* :func:`write_zim` writes them, with redirects, metadata and (or without) the full-text index.

    python -m bench.zim_build --corpus ../shared/data/corpus/wiki_sentences.jsonl --out wiki.zim
    python -m bench.zim_build --corpus ../shared/data/corpus/wiki_sentences.jsonl --generated 1000000 --out big.zim

Needs the ``zim`` extra (libzim). Writes the ZIM next to the target and renames it into place when done.
"""

from __future__ import annotations

import argparse
import html
import os
import random
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson


@dataclass(frozen=True)
class ZimArticle:
    path: str
    title: str
    html: str  # the content: HTML, or plain text with mimetype text/plain
    mimetype: str = "text/html"


@dataclass(frozen=True)
class ZimRedirect:
    path: str
    title: str
    target: str  # the path it points to


@dataclass
class ZimPlan:
    articles: list[ZimArticle] = field(default_factory=list)
    redirects: list[ZimRedirect] = field(default_factory=list)


def page_path(title: str) -> str:
    return title.replace(" ", "_")


def article_html(
    title: str, paragraphs: Iterable[str], infobox: Iterable[tuple[str, str]] = (), extra: str = ""
) -> str:
    """An article page as mwoffliner writes one, in short: a heading, an infobox table, paragraphs."""
    rows = "".join(
        f'<tr><th scope="row" class="infobox-label">{html.escape(k)}</th><td class="infobox-data">{html.escape(v)}</td></tr>'
        for k, v in infobox
    )
    box = f'<table class="infobox vcard"><tbody>{rows}</tbody></table>' if rows else ""
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    name = html.escape(title)
    return (
        f'<!DOCTYPE html><html><head><meta charset="UTF-8"><title>{name}</title></head><body>'
        f'<h1 class="section-heading">{name}</h1><section data-mw-section-id="0">{box}{body}{extra}</section></body></html>'
    )


def corpus_articles(corpus: Path, pages: set[str] | None = None) -> list[ZimArticle]:
    """One article per page of a wiki-sentence JSONL corpus (only ``pages``, by title, when given); the text is
    the JSONL corpus's own reading of each sentence (:func:`clean_fever_text`)."""
    from mermaid_verifier.tools.corpus_index import clean_fever_text, title_from_page_id

    by_page: dict[str, list[tuple[int, str, str]]] = {}
    with corpus.open("rb") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            record = orjson.loads(raw)
            title = str(record.get("title") or title_from_page_id(str(record["page"])))
            if pages is not None and title not in pages:
                continue
            by_page.setdefault(title, []).append(
                (int(record.get("line") or 0), title, clean_fever_text(record["text"]))
            )
    articles = []
    for title, lines in by_page.items():
        lines.sort()
        paragraphs: list[list[str]] = []
        previous = None
        for line, _, text in lines:
            if not text:
                continue
            if previous is not None and line == previous + 1 and paragraphs:
                paragraphs[-1].append(text)
            else:
                paragraphs.append([text])
            previous = line
        articles.append(ZimArticle(page_path(title), title, article_html(title, (" ".join(p) for p in paragraphs))))
    return articles


_FIRST = "Ada Alan Anna Boris Clara David Elena Farid Grace Hugo Ines Jonas Kofi Lena Marta Nikolai Olga Pedro Rosa Sven Tomas Uma Viktor Wen Yara Zora".split()
_LAST = "Abbott Berger Castillo Dimitrov Eriksen Fontaine Gallo Hansen Ivanova Jensen Kowalski Lindqvist Moreau Novak Okafor Petrov Quinn Rossi Sato Tanaka Ueda Varga Weber Xu Yilmaz Zhang".split()
_PLACES = "Aldmoor Brackenridge Calderton Dunmere Eastwick Fenhollow Glenross Harrowgate Ivybridge Juniper Falls Kestrel Bay Larkspur Millbrook Northam Oakhaven Penrith Quarry Hill Ravensworth Stonebridge Thornbury".split()
_COUNTRIES = "Norway Chile Kenya Portugal Canada Japan Ghana Peru Austria Vietnam Ireland Egypt".split()
_JOBS = "painter physicist novelist architect composer chemist sculptor historian engineer botanist".split()


def generated_articles(count: int, seed: int = 13, start: int = 0) -> Iterator[ZimArticle]:
    """``count`` made-up articles (people and towns), the same for the same seed, each with an infobox."""
    rng = random.Random(seed)
    for number in range(start, start + count):
        if number % 3 == 2:
            name = (
                f"{rng.choice(_PLACES)} {rng.choice(['Junction', 'Harbour', 'Crossing', 'Vale', 'Heights'])} {number}"
            )
            country = rng.choice(_COUNTRIES)
            people = rng.randint(200, 90_000)
            founded = rng.randint(1200, 1990)
            paragraphs = [
                f"{name} is a town in {country}. It was founded in {founded} and has a population of {people:,}.",
                f"The town lies on the {rng.choice(_PLACES)} river. Its economy rests on {rng.choice(['fishing', 'timber', 'tourism', 'wool', 'mining'])}.",
            ]
            box = [("Country", country), ("Founded", str(founded)), ("Population", f"{people:,}")]
        else:
            name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)} ({number})"
            born = rng.randint(1800, 1995)
            place = rng.choice(_PLACES)
            job = rng.choice(_JOBS)
            paragraphs = [
                f"{name.rsplit(' (', 1)[0]} (born {born}) is a {job} from {place}, {rng.choice(_COUNTRIES)}.",
                f"They studied in {rng.choice(_PLACES)} and worked in {rng.choice(_PLACES)} from {born + rng.randint(18, 40)}."
                f" Their best-known work was completed in {born + rng.randint(25, 60)}.",
            ]
            box = [("Born", f"{born} {place}"), ("Occupation", job)]
        yield ZimArticle(page_path(name), name, article_html(name, paragraphs, box))


def write_zim(
    target: Path,
    articles: Iterable[ZimArticle],
    redirects: Iterable[ZimRedirect] = (),
    *,
    fulltext: bool = True,
    language: str = "eng",
    metadata: dict[str, str] | None = None,
    main_path: str | None = None,
    progress_every: int = 0,
) -> int:
    """Write a ZIM of these articles and redirects at ``target`` (atomically); returns the number of articles."""
    from libzim.writer import Creator, Hint, Item, StringProvider

    class _Item(Item):
        def __init__(self, article: ZimArticle) -> None:
            super().__init__()
            self.article = article

        def get_path(self) -> str:
            return self.article.path

        def get_title(self) -> str:
            return self.article.title

        def get_mimetype(self) -> str:
            return self.article.mimetype

        def get_contentprovider(self):
            return StringProvider(self.article.html)

        def get_hints(self) -> dict:
            return {Hint.FRONT_ARTICLE: True}

    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    count = 0
    started = time.monotonic()
    creator = Creator(str(partial)).config_verbose(False).config_indexing(fulltext, language)
    with creator:
        if main_path:
            creator.set_mainpath(main_path)
        for article in articles:
            creator.add_item(_Item(article))
            count += 1
            if progress_every and count % progress_every == 0:
                print(f"{count:,} articles ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
        for redirect in redirects:
            creator.add_redirection(redirect.path, redirect.title, redirect.target, {Hint.FRONT_ARTICLE: True})
        creator.add_metadata("Language", language)
        for key, value in {"Title": target.stem, "Creator": "mermaid-verifier tests", **(metadata or {})}.items():
            creator.add_metadata(key, value)
    partial.replace(target)
    return count


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="wiki-sentence JSONL whose pages become articles")
    parser.add_argument("--generated", type=int, default=0, help="made-up articles to add (the ZIM's size)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--no-fulltext", action="store_true", help="leave the full-text index out")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.monotonic()
    real = corpus_articles(args.corpus) if args.corpus else []

    def everything() -> Iterator[ZimArticle]:
        yield from real
        yield from generated_articles(args.generated, args.seed)

    count = write_zim(
        args.out,
        everything(),
        fulltext=not args.no_fulltext,
        metadata={"Creator": "Wikipedia (test build)"},
        progress_every=100_000,
    )
    print(
        f"{args.out}: {count:,} articles ({len(real):,} real pages), {args.out.stat().st_size / 1e6:.1f} MB, "
        f"{time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
