"""corpus_index: the three JSONL layouts, BM25 ranking, page lookup and the on-disk index cache."""

import os
import shutil
from pathlib import Path

import pytest

from mermaid_verifier.errors import CorpusError
from mermaid_verifier.tools.corpus_index import CorpusIndex, normalise_title, read_corpus

FIXTURES = Path(__file__).parent / "fixtures"
WIKI = FIXTURES / "wiki_mini.jsonl"
SCIFACT = FIXTURES / "scifact_mini.jsonl"
GENERIC = FIXTURES / "generic_mini.jsonl"
MALFORMED = FIXTURES / "malformed.jsonl"


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> CorpusIndex:
    return CorpusIndex.open([WIKI, SCIFACT, GENERIC], tmp_path_factory.mktemp("cache"))


def top_id(index: CorpusIndex, query: str) -> str:
    hits = index.search(query, k=3)
    assert hits, f"no hits for {query!r}"
    return hits[0][0].id


# ----------------------------------------------------------------------------- layouts


def test_wiki_sentence_layout():
    passages = list(read_corpus(WIKI))
    assert len(passages) == 14
    by_id = {p.id: p for p in passages}
    first = by_id["wiki_mini:Stanley_Kubrick:0"]
    assert (first.page, first.line, first.title, first.corpus) == ("Stanley_Kubrick", 0, "Stanley Kubrick", "wiki_mini")
    # FEVER's PTB escapes and token spacing are undone in the text
    assert first.text == (
        "Stanley Kubrick (July 26, 1928 -- March 7, 1999) was an American film director, screenwriter, and producer."
    )
    film = by_id["wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:0"]
    assert film.title == "2001: A Space Odyssey (film)"
    assert film.text.startswith("2001: A Space Odyssey is a 1968 epic")
    assert "``" not in by_id["wiki_mini:Soul_Food_-LRB-film-RRB-:0"].text


def test_wiki_record_without_title_gets_a_clean_title_from_its_page_id():
    passages = [p for p in read_corpus(WIKI) if p.page == "The_Shining_-LRB-film-RRB-"]
    assert [p.title for p in passages] == ["The Shining (film)"]


def test_scifact_layout_one_passage_per_abstract_sentence():
    passages = list(read_corpus(SCIFACT))
    assert [p.id for p in passages] == [
        "scifact_mini:4983:0",
        "scifact_mini:4983:1",
        "scifact_mini:4983:2",
        "scifact_mini:5836:0",
        "scifact_mini:5836:2",  # the empty sentence 1 is skipped
        "scifact_mini:7912:0",
        "scifact_mini:7912:1",
    ]
    p = passages[1]
    assert (p.page, p.line, p.corpus) == ("4983", 1, "scifact_mini")
    assert p.title.startswith("Microstructural development of human newborn")
    assert (
        p.text == "Diffusion tensor imaging was used to assess the diffusion of water in the brain of preterm infants."
    )


def test_generic_layout_one_passage_per_record():
    passages = list(read_corpus(GENERIC))
    assert [p.id for p in passages] == [
        "generic_mini:kb-1",
        "generic_mini:kb-2",
        "generic_mini:kb-4",
    ]  # blank kb-3 skipped
    p = passages[0]
    assert (p.page, p.line, p.title) == ("kb-1", None, "Rust (programming language)")
    assert p.text.startswith("Rust is a systems programming language")


def test_malformed_line_names_file_and_line():
    with pytest.raises(CorpusError, match=r"malformed\.jsonl:2: not a corpus record"):
        list(read_corpus(MALFORMED))


@pytest.mark.parametrize(
    "bad_line, reason",
    [("[1, 2, 3]", "not a JSON object"), ('{"id": "x", "title": "no text"}', "neither 'text' nor 'abstract'")],
)
def test_records_in_no_known_layout_are_errors(tmp_path, bad_line, reason):
    path = tmp_path / "odd.jsonl"
    path.write_text('{"id": "a", "text": "fine"}\n\n' + bad_line + "\n")
    with pytest.raises(CorpusError, match=rf"odd\.jsonl:3: .*{reason}"):
        list(read_corpus(path))


def test_open_missing_file_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match="corpus file not found: .*nope.jsonl"):
        CorpusIndex.open([tmp_path / "nope.jsonl"], tmp_path / "cache")


def test_open_malformed_file_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match=r"malformed\.jsonl:2"):
        CorpusIndex.open([MALFORMED], tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("bm25-*")), "no index may be cached for a bad corpus"


def test_corpus_without_passages_is_a_corpus_error(tmp_path):
    path = tmp_path / "blank.jsonl"
    path.write_text('{"id": "a", "text": "  "}\n')
    with pytest.raises(CorpusError, match="no passages"):
        CorpusIndex.open([path], tmp_path / "cache")


# ----------------------------------------------------------------------------- search and pages


def test_search_ranks_the_right_passage_first(index):
    assert top_id(index, "Mount Everest peak height metres") == "wiki_mini:Mount_Everest:1"
    assert top_id(index, "how many hearts does an octopus have") == "generic_mini:kb-4"
    assert top_id(index, "diffusion tensor imaging preterm infants") == "scifact_mini:4983:1"
    assert top_id(index, "Who wrote the screenplay with Arthur C. Clarke?") == (
        "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:1"
    )
    # "He directed ..." is found through its page title (the title is indexed with each sentence)
    kubrick = {p.id for p, _ in index.search("Stanley Kubrick directed 2001: A Space Odyssey", k=2)}
    assert kubrick == {"wiki_mini:Stanley_Kubrick:1", "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:0"}


def test_search_scores_are_positive_and_descending(index):
    hits = index.search("Soul Food film", k=10)
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert len(hits) <= 10
    assert len(index.search("film", k=2)) == 2


def test_search_without_matching_words_is_empty(index):
    assert index.search("zyxxy qwertz", k=5) == []
    assert index.search("the of and", k=5) == []  # stop words only
    assert index.search("", k=5) == []


def test_get_page_by_fever_id_and_by_plain_title(index):
    by_id = index.get_page("Soul_Food_-LRB-film-RRB-")
    assert [p.line for p in by_id] == [0, 1, 2]  # line order, though the file lists 0, 2, 1
    assert all(p.title == "Soul Food (film)" for p in by_id)
    assert index.get_page("Soul Food (film)") == by_id
    assert index.get_page("  soul   FOOD (film) ") == by_id
    assert [p.id for p in index.get_page("2001: A Space Odyssey (film)")] == [
        "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:0",
        "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:1",
    ]
    assert [p.line for p in index.get_page("Vitamin D supplementation and fracture risk.")] == [0, 1]
    assert index.get_page("Soul Food") == []


def test_titles_like_suggests_titles_containing_the_query(index):
    assert sorted(index.titles_like("soul food")) == ["Soul Food (TV series)", "Soul Food (film)"]
    assert index.titles_like("Kubrick") == ["Stanley Kubrick"]
    assert index.titles_like("zyxxy") == []
    assert len(index.titles_like("o", limit=3)) == 3


def _titled(*titles: str) -> CorpusIndex:
    from mermaid_verifier.tools.corpus_index import Passage

    return CorpusIndex.build(
        [
            Passage(
                id=f"t:{i}", page=title.replace(" ", "_"), line=0, title=title, text=f"{title} is a page.", corpus="t"
            )
            for i, title in enumerate(titles)
        ]
    )


def test_titles_like_puts_pages_of_the_same_name_before_titles_that_merely_contain_it():
    index = _titled("A Doll's House", "Acid house", "House of Cards", "House (TV series)", "House (film)", "Greenhouse")
    # same name with a disambiguator, then "starts with", then "contains"; shorter first within each
    assert index.titles_like("House", limit=10) == [
        "House (film)",
        "House (TV series)",
        "House of Cards",
        "Acid house",
        "Greenhouse",
        "A Doll's House",
    ]
    assert index.titles_like("house", limit=2) == ["House (film)", "House (TV series)"]


def test_pages_named_are_the_pages_whose_name_without_disambiguator_or_article_is_asked_for(index):
    assert index.pages_named("Soul Food") == ["Soul Food (film)", "Soul Food (TV series)"]
    assert index.pages_named("Shining") == ["The Shining (film)"]  # the article is not part of the name
    assert index.pages_named("the shining") == ["The Shining (film)"]
    assert index.pages_named("Kubrick") == [] and index.pages_named("") == []
    assert index.pages_named("Soul Food (album)") == []  # a disambiguator says which page is meant


def test_normalise_title():
    assert normalise_title("Soul_Food_-LRB-film-RRB-") == "soul food (film)"
    assert normalise_title("2001-COLON-_A_Space_Odyssey") == "2001: a space odyssey"


# ----------------------------------------------------------------------------- the index cache


def test_second_open_loads_from_disk_instead_of_rebuilding(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = CorpusIndex.open([WIKI, GENERIC], cache)
    assert len(list(cache.glob("bm25-*/passages.json"))) == 1

    def no_build(*args, **kwargs):
        raise AssertionError("the index was rebuilt instead of loaded")

    def no_read(*args, **kwargs):
        raise AssertionError("the corpus was re-read instead of loaded")

    monkeypatch.setattr(CorpusIndex, "build", classmethod(no_build))
    monkeypatch.setattr("mermaid_verifier.tools.corpus_index.read_corpus", no_read)
    second = CorpusIndex.open([WIKI, GENERIC], cache)
    assert second.passages == first.passages
    query = "Kubrick screenplay Clarke"
    assert [(p.id, round(s, 4)) for p, s in second.search(query, 3)] == [
        (p.id, round(s, 4)) for p, s in first.search(query, 3)
    ]
    assert second.get_page("Soul_Food_-LRB-film-RRB-") == first.get_page("Soul_Food_-LRB-film-RRB-")


def test_cache_is_invalidated_when_the_corpus_file_changes(tmp_path, monkeypatch):
    corpus = tmp_path / "kb.jsonl"
    shutil.copy(GENERIC, corpus)
    cache = tmp_path / "cache"
    builds = []
    real_build = CorpusIndex.build.__func__

    def counting_build(cls, passages):
        builds.append(len(passages))
        return real_build(cls, passages)

    monkeypatch.setattr(CorpusIndex, "build", classmethod(counting_build))
    CorpusIndex.open([corpus], cache)
    CorpusIndex.open([corpus], cache)
    assert builds == [3]

    with corpus.open("a") as handle:
        handle.write('{"id": "kb-5", "title": "Axolotl", "text": "The axolotl can regrow its limbs."}\n')
    stat = corpus.stat()
    os.utime(corpus, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # coarse-mtime filesystems
    changed = CorpusIndex.open([corpus], cache)
    assert builds == [3, 4]
    assert changed.search("axolotl limbs", 1)[0][0].id == "kb:kb-5"
    # the earlier version's index is removed, not left on disk for ever; another corpus's stays
    other = tmp_path / "other.jsonl"
    shutil.copy(GENERIC, other)
    CorpusIndex.open([other], cache)
    assert len(list(cache.glob("bm25-*"))) == 2 and builds == [3, 4, 3]
    CorpusIndex.open([corpus], cache)
    assert builds == [3, 4, 3]  # the current version is still served from its cache


def test_unreadable_cache_is_rebuilt(tmp_path):
    cache = tmp_path / "cache"
    CorpusIndex.open([GENERIC], cache)
    (passages_json,) = cache.glob("bm25-*/passages.json")
    passages_json.write_text("{not json")
    index = CorpusIndex.open([GENERIC], cache)
    assert top_id(index, "octopus hearts") == "generic_mini:kb-4"


def test_unwritable_cache_dir_still_serves_the_index(tmp_path, caplog):
    not_a_dir = tmp_path / "cache"
    not_a_dir.write_text("a file where the cache directory should be")
    index = CorpusIndex.open([GENERIC], not_a_dir)
    assert top_id(index, "octopus hearts") == "generic_mini:kb-4"
    assert any("cannot cache" in r.getMessage() for r in caplog.records)
