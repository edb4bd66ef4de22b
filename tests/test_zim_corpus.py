"""A Kiwix ZIM file as a corpus: its articles read as sentences, searched through its own indexes, served by the
local-corpus server, and every bad or odd file named in one line. The ZIMs are built here with libzim's writer
(bench/zim_build.py); the tests skip when libzim (the zim extra) is not installed."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.errors import CorpusError
from mermaid_verifier.tools.article_html import read_article, split_paragraph
from mermaid_verifier.tools.corpora import MergedCorpus, check_readable, open_corpus_index, resolve_corpora
from mermaid_verifier.tools.zim_corpus import ZimCorpus, fallback_queries, is_zim, query_words
from mermaid_verifier.wiring import Overrides

from .conftest import ScriptedStance, requires_shared_data
from .graph_kit import verify

pytest.importorskip("libzim", reason="the zim extra (libzim) is not installed")

from bench.zim_build import ZimArticle, ZimRedirect, article_html, corpus_articles, write_zim  # noqa: E402

WIKI_MINI = Path(__file__).parent / "fixtures" / "wiki_mini.jsonl"

OBAMA_HTML = """<!DOCTYPE html><html><head><title>Barack Obama</title><style>.x{}</style></head><body>
<h1>Barack Obama</h1>
<div class="hatnote navigation-not-searchable">For other uses, see Obama (disambiguation).</div>
<section data-mw-section-id="0">
<table class="infobox vcard"><tbody>
<tr><th colspan="2" class="infobox-above">Barack Obama</th></tr>
<tr><th scope="row" class="infobox-label">Born</th><td class="infobox-data">Barack Hussein Obama II<br>
<span style="display:none">(<span class="bday">1961-08-04</span>)</span>August 4, 1961<br>
<div class="birthplace">Honolulu, Hawaii, U.S.</div></td></tr>
<tr><th scope="row" class="infobox-label">Political party</th><td class="infobox-data">Democratic</td></tr>
<tr><th scope="row" class="infobox-label">Signature</th><td class="infobox-data">a drawing</td></tr>
</tbody></table>
<p><b>Barack Hussein Obama II</b> (born August 4, 1961) is an American politician who served as the 44th
president of the United States.<sup id="cite_ref-1" class="reference"><a href="#cite_note-1">[1]</a></sup> He was
born in Honolulu, Hawaii.<span class="mw-editsection">[edit]</span> Obama graduated from Columbia University in 1983.</p>
<figure><figcaption>Obama in 2012, a caption, not a statement.</figcaption></figure>
</section>
<details><summary><h2 id="Early_life">Early life</h2></summary><section>
<p>Obama was born at the Kapiolani Medical Center in Honolulu. Dr. Smith was not there.</p>
<ul><li>He lived in Jakarta from 1967 to 1971.</li></ul>
</section></details>
<h2 id="References">References</h2><ol class="references"><li>Cited work. Another sentence.</li></ol>
<h2>Later</h2><p>Nothing after the references is read.</p>
</body></html>"""

MERCURY_HTML = """<html><head><title>Mercury</title></head><body><h1>Mercury</h1>
<p><b>Mercury</b> may refer to:</p>
<ul><li><a href="Mercury_(planet)">Mercury (planet)</a>, the planet nearest the Sun</li>
<li><a href="./Mercury_(element)">Mercury (element)</a>, a chemical element</li>
<li><a href="Freddie_Mercury">Freddie Mercury</a>, a singer</li></ul>
<table id="disambigbox" class="metadata plainlinks dmbox dmbox-disambig"><tr><td>This disambiguation page lists
articles associated with the title Mercury.</td></tr></table></body></html>"""


def _plain(title: str, *paragraphs: str, infobox=()) -> ZimArticle:
    return ZimArticle(title.replace(" ", "_"), title, article_html(title, paragraphs, infobox))


ARTICLES = [
    ZimArticle("Barack_Obama", "Barack Obama", OBAMA_HTML),
    ZimArticle("Mercury", "Mercury", MERCURY_HTML),
    _plain("Mercury (planet)", "Mercury is the smallest planet in the Solar System and the nearest to the Sun."),
    _plain("Mercury (element)", "Mercury is a chemical element with the symbol Hg and atomic number 80."),
    _plain("Freddie Mercury", "Freddie Mercury was a British singer and songwriter, the lead vocalist of Queen."),
    _plain(
        "Ada Lovelace",
        "Augusta Ada King, Countess of Lovelace, was an English mathematician and writer.",
        "She was born in London in 1815. Lovelace wrote the first published algorithm for Babbage's engine.",
        infobox=[("Born", "10 December 1815 London, England"), ("Died", "27 November 1852 (aged 36) Marylebone")],
    ),
    _plain("Oslo", "Oslo is the capital and most populous city of Norway.", infobox=[("Country", "Norway")]),
    ZimArticle(
        "Bergen", "Bergen", "Bergen is a city in Norway. It lies on the west coast.\n\nIt has rain.", "text/plain"
    ),
    ZimArticle("Logo.png", "Logo", "\x89PNG not text", "image/png"),
]
REDIRECTS = [
    ZimRedirect("Obama", "Obama", "Barack_Obama"),
    ZimRedirect("Lady_Lovelace", "Lady Lovelace", "Ada_Lovelace"),
]


@pytest.fixture(scope="module")
def zim_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("zims")
    write_zim(folder / "mini.zim", ARTICLES, REDIRECTS, metadata={"Creator": "Wikipedia"})
    write_zim(folder / "titles-only.zim", ARTICLES, REDIRECTS, fulltext=False)
    write_zim(folder / "french.zim", ARTICLES[:2], language="fra")
    write_zim(folder / "empty.zim", [])
    return folder


@pytest.fixture(scope="module")
def mini(zim_dir) -> ZimCorpus:
    return ZimCorpus(zim_dir / "mini.zim")


# ----------------------------------------------------------------------------- the article's HTML


def test_an_article_reads_as_its_prose_and_infobox_facts_in_page_order():
    article = read_article(OBAMA_HTML, "Barack Obama")
    assert article.sentences == [
        "Barack Obama was born Barack Hussein Obama II August 4, 1961 Honolulu, Hawaii, U.S.",
        "Barack Obama's political party is Democratic.",
        "Barack Hussein Obama II (born August 4, 1961) is an American politician who served as the 44th president "
        "of the United States.",
        "He was born in Honolulu, Hawaii.",
        "Obama graduated from Columbia University in 1983.",
        "Obama was born at the Kapiolani Medical Center in Honolulu.",
        "Dr. Smith was not there.",
        "He lived in Jakarta from 1967 to 1971.",
    ]  # no hatnote, reference mark, edit link, hidden date, caption, signature row or back matter
    assert not article.disambiguation


def test_a_disambiguation_page_is_no_article_but_lists_the_pages_it_means():
    article = read_article(MERCURY_HTML, "Mercury")
    assert article.disambiguation
    assert article.options == ["Mercury_(planet)", "Mercury_(element)", "Freddie_Mercury"]


@pytest.mark.parametrize("html", ["", "   ", "<html></html>", b"\x00\x01 not html"])
def test_an_empty_or_odd_page_has_no_sentences(html):
    assert read_article(html, "Odd").sentences == []


def test_paragraph_splitting_keeps_initials_and_abbreviations():
    assert split_paragraph("J. R. R. Tolkien was born in 1892. He moved to the U.S. in 1900? Yes. He did not.") == [
        "J. R. R. Tolkien was born in 1892.",
        "He moved to the U.S. in 1900?",
        "Yes.",
        "He did not.",
    ]


# ----------------------------------------------------------------------------- the corpus


def test_query_words_put_names_and_numbers_first_and_fall_back_to_fewer():
    assert query_words("Ada Lovelace was born in the year 1915 in London.") == [
        "Lovelace",
        "London",
        "1915",
        "Ada",
        "born",
        "year",
    ]
    attempts = fallback_queries("Ada Lovelace was born in 1915.")
    assert attempts[0] == "Lovelace 1915 Ada born"
    assert "Lovelace" in attempts and attempts.index("Lovelace") > attempts.index("Lovelace 1915")
    assert attempts[-2:] == ["1915", "Ada"]


def test_search_ranks_the_sentences_of_the_articles_found(mini):
    hits = mini.search("Lovelace born London 1815", k=3)
    assert hits, "nothing found"
    best, score = hits[0]
    assert best.title == "Ada Lovelace" and score > 0
    assert "born" in best.text and "1815" in best.text
    assert best.id == f"mini:Ada_Lovelace:{best.line}" and best.page == "Ada_Lovelace" and best.corpus == "mini"


def test_a_many_word_query_that_finds_nothing_falls_back_to_fewer_words(mini):
    # no article holds "Lovelace" and "Zanzibar" both: the search asks again without the less distinctive word
    hits = mini.search("Lovelace Zanzibar", k=3)
    assert hits and hits[0][0].title == "Ada Lovelace"


@pytest.mark.parametrize("query", ["NEAR Lovelace", "Lovelace AND NOT", "OR Lovelace (", 'Lovelace "'])
def test_operator_words_and_stray_marks_in_a_query_are_searched_as_words(mini, query):
    hits = mini.search(query, k=2)
    assert hits and hits[0][0].title == "Ada Lovelace"


def test_long_articles_rank_their_lead_and_the_sentences_sharing_the_query_words():
    from mermaid_verifier.tools.corpus_index import Passage
    from mermaid_verifier.tools.zim_corpus import shortlist

    filler = [Passage(f"z:P:{n}", "P", n, "P", f"Filler sentence number {n} about weather.", "z") for n in range(50)]
    needle = Passage("z:P:50", "P", 50, "P", "Lovelace was born in London.", "z")
    candidates = filler + [needle]
    assert shortlist(candidates, "Lovelace born London", limit=100) == candidates  # few: all of them
    short = shortlist(candidates, "Lovelace born London", limit=10)
    assert short == filler[:3] + [needle]  # the lead and the one sharing words, in page order


def test_ids_are_stable_and_pages_read_in_order(mini, zim_dir):
    again = ZimCorpus(zim_dir / "mini.zim")
    first = mini.get_page("Ada Lovelace")
    assert [p.id for p in first] == [p.id for p in again.get_page("Ada Lovelace")]
    assert [p.line for p in first] == list(range(len(first)))
    assert first[0].text == "Ada Lovelace was born 10 December 1815 London, England."
    assert first[1].text == "Ada Lovelace died 27 November 1852 (aged 36) Marylebone."


def test_redirects_case_and_paths_reach_the_article(mini):
    by_title = [p.id for p in mini.get_page("Barack Obama")]
    assert by_title
    assert [p.id for p in mini.get_page("Obama")] == by_title  # a redirect
    assert [p.id for p in mini.get_page("barack Obama")] == by_title  # first letter as Wikipedia folds it
    assert [p.id for p in mini.get_page("Barack_Obama")] == by_title  # a path
    assert [p.title for p in mini.get_page("Lady Lovelace")][:1] == ["Ada Lovelace"]


def test_a_sentence_reached_through_a_redirect_has_the_articles_id_and_is_listed_once(zim_dir, monkeypatch):
    """A title search finds the redirect "Obama": its sentences are Barack Obama's, with the ids get_page gives
    them, so evidence found both ways is one row each; a search that finds a redirect and its article reads it once."""
    titles_only = ZimCorpus(zim_dir / "titles-only.zim")
    found = [p for p, _ in titles_only.search("Obama born Honolulu", 20)]
    page = {p.id: p for p in titles_only.get_page("Barack Obama")}
    assert found and all(p.id in page and p.page == "Barack_Obama" and p.text == page[p.id].text for p in found)
    monkeypatch.setattr(titles_only, "article_paths", lambda query, limit: ["Obama", "Barack_Obama"])
    ids = [p.id for p, _ in titles_only.search("Obama born Honolulu", 20)]
    assert len(ids) == len(set(ids)) == len(page)


def test_a_disambiguation_page_gives_no_passages_but_the_pages_of_that_name(mini):
    assert mini.get_page("Mercury") == []
    assert mini.pages_named("Mercury") == ["Mercury (planet)", "Mercury (element)"]
    assert "Mercury (planet)" in mini.titles_like("Mercury")
    assert mini.pages_named("Mercury (planet)") == []


def test_plain_text_articles_are_read_and_other_content_has_no_sentences(mini):
    assert [p.text for p in mini.get_page("Bergen")] == [
        "Bergen is a city in Norway.",
        "It lies on the west coast.",
        "It has rain.",
    ]
    assert mini.get_page("Logo") == []


def test_an_unknown_title_has_no_page_and_suggestions_when_there_are_some(mini):
    assert mini.get_page("Nowhere Land") == []
    assert mini.titles_like("Lovelace") == ["Ada Lovelace"]


def test_a_wikipedia_zim_links_each_passage_to_its_article(mini, zim_dir):
    passage = mini.get_page("Freddie Mercury")[0]
    assert passage.url == "https://en.wikipedia.org/wiki/Freddie_Mercury"
    assert ZimCorpus(zim_dir / "titles-only.zim").get_page("Freddie Mercury")[0].url is None  # not said to be Wikipedia


def test_a_zim_without_a_full_text_index_is_searched_by_title_and_said_once(zim_dir, caplog):
    with caplog.at_level(logging.WARNING):
        check_readable(zim_dir / "titles-only.zim")
    assert [r.getMessage() for r in caplog.records].count(
        f"{zim_dir / 'titles-only.zim'} has no full-text index: it is searched by its titles only"
    ) == 1
    corpus = ZimCorpus(zim_dir / "titles-only.zim")
    assert corpus.problem and "titles only" in corpus.problem
    hits = corpus.search("Ada Lovelace was born in 1815", k=2)
    assert hits and hits[0][0].title == "Ada Lovelace"


# ----------------------------------------------------------------------------- bad and odd files


def _truncated(zim_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "truncated.zim"
    target.write_bytes((zim_dir / "mini.zim").read_bytes()[:5000])
    return target


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda zims, tmp: tmp / "absent.zim", "corpus file not found"),
        (lambda zims, tmp: _truncated(zims, tmp), "is a damaged or truncated ZIM file"),
        (lambda zims, tmp: (tmp / "fake.zim").write_text('{"page": "x"}\n') and tmp / "fake.zim", "is not a ZIM file"),
        (lambda zims, tmp: zims / "french.zim", "is a ZIM in 'fra'; the stance model reads English only"),
        (lambda zims, tmp: zims / "empty.zim", "holds no articles"),
    ],
)
def test_a_bad_file_is_one_clear_line(zim_dir, tmp_path, make, expected):
    path = make(zim_dir, tmp_path)
    with pytest.raises(CorpusError) as raised:
        resolve_corpora((path,), tmp_path / "cache")
    message = str(raised.value)
    assert expected in message and str(path) in message and "\n" not in message


def test_without_libzim_the_message_names_the_extra(zim_dir, monkeypatch):
    import mermaid_verifier.tools.zim_corpus as zim_corpus

    monkeypatch.setattr(zim_corpus, "zim_available", lambda: False)
    with pytest.raises(CorpusError, match=r"needs libzim: pip install 'mermaid-verifier\[zim\]'"):
        ZimCorpus(zim_dir / "mini.zim")


def test_a_zim_is_known_by_its_magic_number_not_its_name(zim_dir, tmp_path):
    renamed = tmp_path / "wikipedia.bin"
    renamed.write_bytes((zim_dir / "mini.zim").read_bytes())
    assert is_zim(renamed) and not is_zim(WIKI_MINI)
    assert isinstance(open_corpus_index([renamed], tmp_path), ZimCorpus)


def test_the_core_never_imports_libzim_for_a_jsonl_corpus(tmp_path):
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from mermaid_verifier.tools.corpora import open_corpus_index, resolve_corpora\n"
        f"paths = resolve_corpora((Path({str(WIKI_MINI)!r}),), Path({str(tmp_path)!r}))\n"
        f"open_corpus_index(paths, Path({str(tmp_path)!r})).search('Kubrick', 3)\n"
        "import mermaid_verifier.graph, mermaid_verifier.cli\n"
        "print('libzim' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- served


async def test_the_local_corpus_server_serves_a_zim(zim_dir, tmp_path):
    from mermaid_verifier.tools.servers.local_corpus_server import create_server

    server = create_server([zim_dir / "mini.zim"], tmp_path / "cache")
    async with create_connected_server_and_client_session(server) as client:
        found = await client.call_tool("search", {"query": "Freddie Mercury singer Queen", "k": 2})
        page = await client.call_tool("get_page", {"title": "Mercury"})
    hits = found.structuredContent["passages"]
    assert hits[0]["title"] == "Freddie Mercury" and hits[0]["url"].endswith("/Freddie_Mercury")
    assert hits[0]["id"].startswith("mini:Freddie_Mercury:")
    assert page.structuredContent["passages"] == []
    assert page.structuredContent["same_name"] == ["Mercury (planet)", "Mercury (element)"]


def test_a_jsonl_corpus_and_a_zim_answer_as_one(zim_dir, tmp_path):
    merged = open_corpus_index([WIKI_MINI, zim_dir / "mini.zim"], tmp_path / "cache")
    assert isinstance(merged, MergedCorpus)
    corpora = {p.corpus for p, _ in merged.search("Kubrick Lovelace 1815 born directed", k=6)}
    assert corpora == {"wiki_mini", "mini"}
    assert merged.get_page("Ada Lovelace")[0].corpus == "mini"


def test_several_processes_read_one_zim_at_once(zim_dir):
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from mermaid_verifier.tools.zim_corpus import ZimCorpus\n"
        "corpus = ZimCorpus(Path(sys.argv[1]))\n"
        "for _ in range(40):\n"
        "    hits = corpus.search('Lovelace London 1815', 2)\n"
        "print(hits[0][0].id)\n"
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(zim_dir / "mini.zim")], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    answers = [worker.communicate(timeout=120)[0].strip() for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    assert len(set(answers)) == 1 and answers[0].startswith("mini:Ada_Lovelace:")


async def test_the_graph_verifies_against_a_zim_and_names_the_zim_and_article(zim_dir, make_resources):
    stance = ScriptedStance({"born in London in 1815": "supports"})
    resources = make_resources(stance, corpora=(zim_dir / "mini.zim",), use_memory=False)
    try:
        out = await verify(resources, "Ada Lovelace was born in 1815.")
    finally:
        await resources.aclose()
    assert out["verdict"].label.value == "SUPPORTS"
    deciding = [e for e in out["evidence"] if "born in London in 1815" in e.text]
    assert deciding and deciding[0].corpus == "mini" and deciding[0].title == "Ada Lovelace"
    assert deciding[0].url == "https://en.wikipedia.org/wiki/Ada_Lovelace"


# ----------------------------------------------------------------------------- the same pages as JSONL


@pytest.mark.shared_data
def test_a_zim_of_corpus_pages_reads_back_the_corpus_sentences(tmp_path):
    from mermaid_verifier.tools.corpus_index import read_corpus

    source = requires_shared_data("corpus", "wiki_sentences.jsonl")
    slice_ = tmp_path / "slice.jsonl"
    with source.open("rb") as handle:
        slice_.write_bytes(b"".join(line for _, line in zip(range(1500), handle)))
    write_zim(tmp_path / "slice.zim", corpus_articles(slice_))
    by_title: dict[str, list[str]] = {}
    for passage in read_corpus(slice_):
        by_title.setdefault(passage.title, []).append(passage.text)
    zim = ZimCorpus(tmp_path / "slice.zim")
    same = sum(sorted(p.text for p in zim.get_page(title)) == sorted(texts) for title, texts in by_title.items())
    assert same / len(by_title) >= 0.95, f"{same} of {len(by_title)} pages read back sentence for sentence"
    # and a page's own sentence is found by a search of its words
    title, texts = next(iter(by_title.items()))
    assert any(p.title == title for p, _ in zim.search(texts[0], 5))


def test_the_zim_builder_cli_writes_a_readable_zim(tmp_path):
    corpus = tmp_path / "pages.jsonl"
    corpus.write_text(
        "\n".join(
            json.dumps({"page": "Oslo", "line": n, "text": t})
            for n, t in enumerate(["Oslo is the capital of Norway.", "It lies at the head of the Oslofjord."])
        )
        + "\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-m", "bench.zim_build", "--corpus", str(corpus),
         "--generated", "30", "--out", str(tmp_path / "built.zim")],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    corpus_zim = ZimCorpus(tmp_path / "built.zim")
    assert len(corpus_zim) == 31
    assert [p.text for p in corpus_zim.get_page("Oslo")] == [
        "Oslo is the capital of Norway.",
        "It lies at the head of the Oslofjord.",
    ]


@pytest.mark.shared_data
async def test_the_same_claims_reach_the_same_verdicts_against_the_jsonl_pages_and_their_zim(tmp_path, decomposer):
    """End to end with the shipped stance model: validation claims of FEVER paper_dev against a JSONL corpus of
    their gold pages (and, for NOT ENOUGH INFO claims, the pages they name) and against a ZIM of the same pages.
    The full validation part is in docs/zim.md (bench/zim_parity.py)."""
    from mermaid_verifier.config import Settings
    from mermaid_verifier.graph import open_verifier

    claims_file = requires_shared_data("fever", "paper_dev.jsonl")
    corpus = requires_shared_data("corpus", "wiki_sentences.jsonl")
    split = json.loads((Path(__file__).parents[1] / "training" / "splits" / "fever_paper_dev.json").read_text())
    rows = [json.loads(line) for line in claims_file.open()]
    chosen = [r for r in rows if split["assignment"].get(str(r["id"])) == "validation"][:24]
    pages = {e[2] for r in chosen for group in r["evidence"] for e in group if e[2]}
    records = [json.loads(line) for line in corpus.open()]
    named = {r["page"] for r in records for c in chosen if r["page"].replace("_", " ").split(" (")[0] in c["claim"]}
    slice_ = tmp_path / "pages.jsonl"
    slice_.write_text("".join(json.dumps(r) + "\n" for r in records if r["page"] in pages | named))
    write_zim(tmp_path / "pages.zim", corpus_articles(slice_))

    async def verdicts(path: Path) -> list[str]:
        settings = Settings.from_env({}, corpora=(path,), cache_dir=tmp_path / "cache", use_memory=False)
        async with open_verifier(settings, overrides=Overrides(decomposer=decomposer)) as verifier:
            return [(await verifier.ainvoke({"claim": r["claim"]}))["verdict"].label.value for r in chosen]

    from_jsonl, from_zim = await verdicts(slice_), await verdicts(tmp_path / "pages.zim")
    same = sum(a == b for a, b in zip(from_jsonl, from_zim))
    assert same >= 0.9 * len(chosen), list(zip([r["claim"] for r in chosen], from_jsonl, from_zim))


# ----------------------------------------------------------------------------- the command line, memory, reports


def test_verify_with_a_truncated_zim_is_one_line_and_exit_2(zim_dir, tmp_path):
    from .conftest import VERIFY

    bad = _truncated(zim_dir, tmp_path)
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"}
    done = subprocess.run(
        [*VERIFY, "--corpus", str(bad), "Ada Lovelace was born in 1815."],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad} is a damaged or truncated ZIM file")


async def test_the_evidence_memory_remembers_what_a_zim_gave(zim_dir, make_resources, tmp_path):
    stance = ScriptedStance({"born in London in 1815": "supports"})
    claim = "Ada Lovelace was born in 1815."
    first = make_resources(stance, corpora=(zim_dir / "mini.zim",), memory_dir=tmp_path / "memory")
    try:
        out = await verify(first, claim)
    finally:
        await first.aclose()
    again = make_resources(stance, corpora=(zim_dir / "mini.zim",), memory_dir=tmp_path / "memory")
    try:
        recalled = await verify(again, claim)
    finally:
        await again.aclose()
    assert out["stats"].memory_hits == 0 and recalled["stats"].memory_hits > 0
    assert recalled["verdict"].label.value == "SUPPORTS"
    assert any(e.corpus == "mini" and e.from_memory for e in recalled["evidence"])


def test_reports_name_the_zim_and_link_the_article():
    from mermaid_verifier.rendering import evidence_view

    view = evidence_view(
        {"id": "wikipedia_en_all:Ada_Lovelace:3", "source": "local-corpus", "corpus": "wikipedia_en_all",
         "page": "Ada_Lovelace", "line": 3, "title": "Ada Lovelace", "text": "She was born in 1815.",
         "url": "https://en.wikipedia.org/wiki/Ada_Lovelace"}
    )  # fmt: skip
    assert view["href"] == "https://en.wikipedia.org/wiki/Ada_Lovelace"
    assert view["corpus"] == "wikipedia_en_all" and view["source"] == "local-corpus"
    assert evidence_view({"id": "wikipedia:X", "source": "wikipedia", "corpus": "wikipedia"})["corpus"] is None
