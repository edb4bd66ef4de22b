"""The on-disk corpus index (tantivy): the in-memory index's answers, safe queries, an index per corpus
version, incremental indexing of added files, interrupted builds, backend choice and the MCP server."""

import os
import shutil
import sys
from pathlib import Path

import orjson
import pytest

pytest.importorskip("tantivy")

from mcp.shared.memory import create_connected_server_and_client_session  # noqa: E402

from mermaid_verifier.config import Settings  # noqa: E402
from mermaid_verifier.errors import ConfigError, CorpusError  # noqa: E402
from mermaid_verifier.tools import tantivy_index, toolbox  # noqa: E402
from mermaid_verifier.tools.corpus_index import CorpusIndex, read_corpus  # noqa: E402
from mermaid_verifier.tools.servers.local_corpus_server import create_server  # noqa: E402
from mermaid_verifier.tools.tantivy_index import (  # noqa: E402
    MANIFEST,
    TantivyCorpusIndex,
    choose_index_backend,
    open_index,
    sanitize_query,
)

FIXTURES = Path(__file__).parent / "fixtures"
WIKI = FIXTURES / "wiki_mini.jsonl"
SCIFACT = FIXTURES / "scifact_mini.jsonl"
GENERIC = FIXTURES / "generic_mini.jsonl"
MALFORMED = FIXTURES / "malformed.jsonl"
SPACE_ODYSSEY = "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-"


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[TantivyCorpusIndex, CorpusIndex]:
    cache = tmp_path_factory.mktemp("cache")
    return TantivyCorpusIndex.open([WIKI], cache), CorpusIndex.open([WIKI], cache)


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The corpus files read while building (by name)."""
    seen: list[str] = []

    def recording_read(path):
        seen.append(Path(path).name)
        return read_corpus(path)

    monkeypatch.setattr(tantivy_index, "read_corpus", recording_read)
    return seen


def ids(hits) -> list[str]:
    return [p.id for p, _ in hits]


def index_dirs(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("tantivy-*") if ".tmp" not in p.name)


def touch_later(path: Path) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # coarse-mtime filesystems


# ----------------------------------------------------------------------------- the in-memory index's answers


@pytest.mark.parametrize(
    "query, top",
    [
        ("Who wrote the screenplay with Arthur C. Clarke?", f"{SPACE_ODYSSEY}:1"),
        ("Mount Everest peak height metres", "wiki_mini:Mount_Everest:1"),
        ("Kubrick films Clockwork Orange Strangelove", "wiki_mini:Stanley_Kubrick:2"),
        ("Soul Food television series Showtime", None),  # whatever memory ranks first, tantivy does too
    ],
)
def test_search_ranks_like_the_in_memory_index(both, query, top):
    tantivy, memory = both
    on_disk, in_memory = tantivy.search(query, k=3), memory.search(query, k=3)
    assert on_disk, f"no hits for {query!r}"
    if top is not None:
        assert ids(on_disk)[0] == top
    assert ids(on_disk) == ids(in_memory)
    scores = [s for _, s in on_disk]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    # the same Passage records, field for field
    assert [p for p, _ in on_disk] == [p for p, _ in in_memory]


def test_search_finds_a_sentence_through_its_page_title(both):
    tantivy, _ = both
    assert set(ids(tantivy.search("Stanley Kubrick directed 2001: A Space Odyssey", k=2))) == {
        "wiki_mini:Stanley_Kubrick:1",
        f"{SPACE_ODYSSEY}:0",
    }


def test_search_without_matching_words_is_empty(both):
    tantivy, _ = both
    assert tantivy.search("zyxxy qwertz", k=5) == []
    assert tantivy.search("the of and", k=5) == []  # stop words only: nothing, not everything
    assert tantivy.search("", k=5) == [] and tantivy.search("Kubrick", k=0) == []
    assert len(tantivy.search("film", k=2)) == 2


def test_get_page_matches_the_in_memory_index_for_every_page(both):
    tantivy, memory = both
    pages = {p.page for p in read_corpus(WIKI)} | {p.title for p in read_corpus(WIKI)}
    for page in pages:
        assert tantivy.get_page(page) == memory.get_page(page), page
    soul_food = tantivy.get_page("Soul_Food_-LRB-film-RRB-")
    assert [p.line for p in soul_food] == [0, 1, 2]  # line order, though the file lists 0, 2, 1
    assert tantivy.get_page("  soul   FOOD (film) ") == soul_food
    assert tantivy.get_page("Soul Food") == [] and tantivy.get_page("") == []


@pytest.mark.parametrize(
    "title, named, like",
    [
        ("Soul Food", ["Soul Food (film)", "Soul Food (TV series)"], ["Soul Food (film)", "Soul Food (TV series)"]),
        ("Shining", ["The Shining (film)"], ["The Shining (film)"]),
        ("the shining", ["The Shining (film)"], ["The Shining (film)"]),
        ("Kubrick", [], ["Stanley Kubrick"]),
        ("Soul Food (album)", [], []),
        ("zyxxy", [], []),
        (
            "o",
            [],
            [
                "Mount Everest",
                "Soul Food (film)",
                "Nikolaj Coster-Waldau",
                "Soul Food (TV series)",
                "2001: A Space Odyssey (film)",
            ],
        ),  # limit 5: the shortest of the titles containing "o"
        ("2001: A Space (", [], []),  # regex syntax in a title is literal
        ("2001: A Space", [], ["2001: A Space Odyssey (film)"]),
    ],
)
def test_pages_named_and_titles_like_match_the_in_memory_index(both, title, named, like):
    tantivy, memory = both
    assert tantivy.pages_named(title) == memory.pages_named(title) == named
    assert tantivy.titles_like(title) == memory.titles_like(title) == like


def test_titles_like_ranks_same_name_then_prefix_then_contains(tmp_path):
    corpus = tmp_path / "houses.jsonl"
    titles = ["A Doll's House", "Acid house", "House of Cards", "House (TV series)", "House (film)", "Greenhouse"]
    corpus.write_bytes(
        b"".join(
            orjson.dumps({"page": t.replace(" ", "_"), "line": 0, "title": t, "text": f"{t} is a page."}) + b"\n"
            for t in titles
        )
    )
    tantivy = TantivyCorpusIndex.open([corpus], tmp_path / "cache")
    memory = CorpusIndex.open([corpus], tmp_path / "cache")
    expected = ["House (film)", "House (TV series)", "House of Cards", "Acid house", "Greenhouse", "A Doll's House"]
    assert tantivy.titles_like("House", limit=10) == memory.titles_like("House", limit=10) == expected
    assert tantivy.titles_like("house", limit=2) == ["House (film)", "House (TV series)"]


def test_all_three_layouts_round_trip(tmp_path):
    paths = [WIKI, SCIFACT, GENERIC]
    tantivy = TantivyCorpusIndex.open(paths, tmp_path / "cache")
    passages = [p for path in paths for p in read_corpus(path)]
    assert len(tantivy) == len(passages) == 24
    assert tantivy.get_page("kb-1") == [p for p in passages if p.page == "kb-1"]  # line None survives
    assert tantivy.get_page("kb-1")[0].line is None
    assert ids(tantivy.search("how many hearts does an octopus have", 1)) == ["generic_mini:kb-4"]
    assert ids(tantivy.search("diffusion tensor imaging preterm infants", 1)) == ["scifact_mini:4983:1"]


# ----------------------------------------------------------------------------- query syntax never raises


@pytest.mark.parametrize(
    "query",
    [
        '"Arthur C. Clarke" screenplay',
        "title:Kubrick",
        "screenplay AND",
        "OR Clarke",
        "NOT NOT",
        "AND OR NOT",
        "(Clarke",
        "Clarke)",
        "[a TO z]",
        "{1 TO 2}",
        "Clarke^2",
        "Clark~1",
        "+Clarke -Kubrick",
        "Clarke*",
        "\\",
        '"',
        ":",
        "IN [a b]",
        "/regex.*/",
        "Kubrick's film",
        "2001: A Space Odyssey (film)",
        "a" * 500,
        "ü ß 東京 😀",
    ],
)
def test_query_syntax_characters_never_raise(both, query):
    tantivy, _ = both
    hits = tantivy.search(query, k=3)
    assert isinstance(hits, list)


def test_syntax_characters_are_read_as_words(both):
    tantivy, _ = both
    assert ids(tantivy.search('screenplay:"Arthur C. Clarke" AND (written)', 1)) == [f"{SPACE_ODYSSEY}:1"]
    # "NOT" and "-" are not operators: the Kubrick sentence is still found
    assert "wiki_mini:Stanley_Kubrick:2" in ids(tantivy.search("NOT -Strangelove", 3))
    assert sanitize_query('Title:"A" AND (b) OR [c TO d] +e -f') == "title b c d e f"
    assert sanitize_query("the of and") == ""


async def test_the_server_answers_queries_full_of_syntax(tmp_path):
    server = create_server([WIKI], tmp_path / "cache", index_backend="tantivy")
    async with create_connected_server_and_client_session(server) as client:
        for query in ['"unbalanced', "a:b:c", "AND", "((", "Clarke^", "[x TO"]:
            result = await client.call_tool("search", {"query": query})
            assert not result.isError, (query, result.content)


# ----------------------------------------------------------------------------- an index per corpus version


def test_second_open_loads_from_disk(tmp_path, reads):
    cache = tmp_path / "cache"
    first = TantivyCorpusIndex.open([WIKI, GENERIC], cache)
    assert sorted(reads) == ["generic_mini.jsonl", "wiki_mini.jsonl"]
    second = TantivyCorpusIndex.open([GENERIC, WIKI], cache)  # the order of the files does not matter
    assert len(reads) == 2, "the corpus was re-read instead of loaded"
    assert second.index_dir == first.index_dir
    query = "Kubrick screenplay Clarke"
    assert [(p.id, round(s, 4)) for p, s in second.search(query, 3)] == [
        (p.id, round(s, 4)) for p, s in first.search(query, 3)
    ]


def test_a_changed_corpus_file_is_reindexed_never_served_stale(tmp_path, reads):
    corpus = tmp_path / "kb.jsonl"
    shutil.copy(GENERIC, corpus)
    cache = tmp_path / "cache"
    before = TantivyCorpusIndex.open([corpus], cache)
    assert ids(before.search("three hearts blue blood", 1)) == ["kb:kb-4"]

    text = corpus.read_text().replace("An octopus has three hearts and blue blood.", "An octopus has eight arms.")
    corpus.write_text(text)
    touch_later(corpus)
    after = TantivyCorpusIndex.open([corpus], cache)
    assert reads == ["kb.jsonl", "kb.jsonl"]
    # a new directory, and the earlier version's is removed rather than left on disk for ever
    assert after.index_dir != before.index_dir and index_dirs(cache) == [after.index_dir]
    (hit,) = after.search("octopus eight arms", 1)
    assert hit[0].id == "kb:kb-4" and hit[0].text == "An octopus has eight arms."
    assert after.search("three hearts blue blood", 5) == []  # the old text is gone
    assert [p.text for p in after.get_page("Octopus")] == ["An octopus has eight arms."]


def test_adding_a_corpus_file_indexes_only_that_file(tmp_path, reads):
    cache = tmp_path / "cache"
    first = TantivyCorpusIndex.open([WIKI], cache)
    first_segments = {p.name: p.stat().st_ino for p in first.index_dir.iterdir() if p.suffix == ".store"}
    assert reads == ["wiki_mini.jsonl"] and first_segments

    both = TantivyCorpusIndex.open([WIKI, GENERIC], cache)
    assert reads == ["wiki_mini.jsonl", "generic_mini.jsonl"]  # only the new file was read
    assert both.index_dir != first.index_dir
    manifest = orjson.loads((both.index_dir / MANIFEST).read_bytes())
    assert {Path(f["path"]).name: f["passages"] for f in manifest["files"]} == {
        "wiki_mini.jsonl": 14,
        "generic_mini.jsonl": 3,
    }
    assert len(both) == manifest["passages"] == 17
    # the first file's segment is the same file on disk (linked), not a rebuilt one
    linked = {p.name: p.stat().st_ino for p in both.index_dir.iterdir() if p.name in first_segments}
    assert linked == first_segments
    assert ids(both.search("octopus hearts", 1)) == ["generic_mini:kb-4"]
    assert ids(both.search("screenplay Arthur Clarke", 1)) == [f"{SPACE_ODYSSEY}:1"]
    assert both.get_page("Soul Food (film)") == first.get_page("Soul Food (film)")
    # the first set's index still serves that set
    assert len(TantivyCorpusIndex.open([WIKI], cache)) == 14 and len(reads) == 2


def test_a_changed_file_in_the_indexed_set_means_a_full_build(tmp_path, reads):
    corpus = tmp_path / "kb.jsonl"
    shutil.copy(GENERIC, corpus)
    cache = tmp_path / "cache"
    TantivyCorpusIndex.open([corpus], cache)
    with corpus.open("a") as handle:
        handle.write('{"id": "kb-5", "title": "Axolotl", "text": "The axolotl can regrow its limbs."}\n')
    touch_later(corpus)
    index = TantivyCorpusIndex.open([corpus, WIKI], cache)
    assert sorted(reads) == ["kb.jsonl", "kb.jsonl", "wiki_mini.jsonl"]  # kb.jsonl read again
    assert len(index) == 14 + 4
    assert ids(index.search("axolotl limbs", 1)) == ["kb:kb-5"]


def test_a_build_interrupted_before_the_manifest_is_rebuilt(tmp_path, reads, monkeypatch):
    cache = tmp_path / "cache"

    def crash(*args):
        raise KeyboardInterrupt("killed while building")

    monkeypatch.setattr(tantivy_index, "_write_manifest", crash)
    monkeypatch.setattr(tantivy_index, "_discard_build", lambda path: None)  # a killed process removes nothing
    with pytest.raises(KeyboardInterrupt):
        TantivyCorpusIndex.open([WIKI], cache)
    assert index_dirs(cache) == []  # nothing half-built is served
    (left,) = cache.glob("tantivy-*.tmp*")
    abandoned = left.rename(left.with_name(left.name.replace(f".tmp{os.getpid()}-", ".tmp999999999-")))
    monkeypatch.undo()
    monkeypatch.setattr(
        tantivy_index, "read_corpus", lambda path: (reads.append(Path(path).name), read_corpus(path))[1]
    )
    index = TantivyCorpusIndex.open([WIKI], cache)
    assert reads == ["wiki_mini.jsonl", "wiki_mini.jsonl"]  # built again
    assert not abandoned.exists()  # the dead build's files are cleared away
    assert len(index) == 14 and ids(index.search("Mount Everest peak height metres", 1)) == [
        "wiki_mini:Mount_Everest:1"
    ]


def test_an_index_dir_without_its_manifest_is_rebuilt(tmp_path, reads):
    cache = tmp_path / "cache"
    index = TantivyCorpusIndex.open([WIKI], cache)
    (index.index_dir / MANIFEST).unlink()  # as a build killed before its last step leaves it
    again = TantivyCorpusIndex.open([WIKI], cache)
    assert reads == ["wiki_mini.jsonl", "wiki_mini.jsonl"]
    assert (again.index_dir / MANIFEST).is_file() and len(again) == 14


def test_a_manifest_that_disagrees_with_the_index_is_rebuilt(tmp_path, reads):
    cache = tmp_path / "cache"
    index = TantivyCorpusIndex.open([WIKI], cache)
    manifest = orjson.loads((index.index_dir / MANIFEST).read_bytes())
    manifest["passages"] = 99
    (index.index_dir / MANIFEST).write_bytes(orjson.dumps(manifest))
    again = TantivyCorpusIndex.open([WIKI], cache)
    assert len(reads) == 2 and len(again) == 14


def test_a_stale_index_that_cannot_be_removed_at_once_is_still_rebuilt(tmp_path, reads, monkeypatch):
    # the stale index may still be open in this process, or a closing thread may still touch it: its removal can
    # fail part way, and the rebuilt index must take its name all the same
    cache = tmp_path / "cache"
    index = TantivyCorpusIndex.open([WIKI], cache)
    manifest = orjson.loads((index.index_dir / MANIFEST).read_bytes())
    manifest["passages"] = 99
    (index.index_dir / MANIFEST).write_bytes(orjson.dumps(manifest))
    real_rmtree = shutil.rmtree
    kept = []

    def failing_rmtree(path, *args, **kwargs):
        if not kept:  # the first removal leaves the directory where it is, with a file in it
            kept.append(Path(path))
            if kwargs.get("ignore_errors"):
                return None
            raise OSError(39, "Directory not empty", str(path))
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(tantivy_index.shutil, "rmtree", failing_rmtree)
    again = TantivyCorpusIndex.open([WIKI], cache)
    assert len(reads) == 2 and len(again) == 14
    assert again.index_dir == index.index_dir and kept and kept[0] != index.index_dir
    assert [p.name for p in cache.iterdir() if ".tmp" in p.name] == []


def test_bad_corpora_are_corpus_errors_and_leave_no_index(tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(CorpusError, match="corpus file not found: .*nope.jsonl"):
        TantivyCorpusIndex.open([tmp_path / "nope.jsonl"], cache)
    with pytest.raises(CorpusError, match=r"malformed\.jsonl:2"):
        TantivyCorpusIndex.open([MALFORMED], cache)
    blank = tmp_path / "blank.jsonl"
    blank.write_text('{"id": "a", "text": "  "}\n')
    with pytest.raises(CorpusError, match="no passages"):
        TantivyCorpusIndex.open([blank], cache)
    assert list(cache.glob("tantivy-*")) == []


def test_a_failed_build_is_removed_even_when_its_first_removal_fails(tmp_path, monkeypatch):
    # a closing writer can still write into the directory while it is removed ("Directory not empty")
    real_rmtree = shutil.rmtree
    failures = []

    def flaky_rmtree(path, *args, **kwargs):
        if ".tmp" in Path(path).name and not failures:
            failures.append(path)
            raise OSError(39, "Directory not empty", str(path))
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(tantivy_index.shutil, "rmtree", flaky_rmtree)
    cache = tmp_path / "cache"
    with pytest.raises(CorpusError, match=r"malformed\.jsonl:2"):
        TantivyCorpusIndex.open([MALFORMED], cache)
    assert len(failures) == 1
    assert list(cache.glob("tantivy-*")) == []


def test_an_interrupted_build_removes_its_directory(tmp_path, monkeypatch):
    def interrupted(path):
        yield from read_corpus(path)
        raise KeyboardInterrupt

    monkeypatch.setattr(tantivy_index, "read_corpus", interrupted)
    cache = tmp_path / "cache"
    with pytest.raises(KeyboardInterrupt):
        TantivyCorpusIndex.open([WIKI], cache)
    assert list(cache.glob("tantivy-*")) == []


# ----------------------------------------------------------------------------- choosing the backend


def test_auto_keeps_small_corpora_in_memory_and_puts_large_ones_on_disk(tmp_path, monkeypatch):
    assert choose_index_backend([WIKI], "auto") == "memory"
    assert choose_index_backend([WIKI], "tantivy") == "tantivy"
    assert choose_index_backend([WIKI], "memory") == "memory"
    assert isinstance(open_index([WIKI], tmp_path, "auto"), CorpusIndex)
    monkeypatch.setattr(tantivy_index, "AUTO_ONDISK_MIN_BYTES", WIKI.stat().st_size - 1)
    assert choose_index_backend([WIKI], "auto") == "tantivy"
    assert isinstance(open_index([WIKI], tmp_path, "auto"), TantivyCorpusIndex)
    with pytest.raises(ConfigError, match="unknown index backend 'lucene'"):
        choose_index_backend([WIKI], "lucene")


def test_without_tantivy_asking_for_it_is_a_config_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tantivy", None)  # import tantivy now fails
    with pytest.raises(ConfigError, match=r"pip install 'mermaid-verifier\[ondisk\]'"):
        TantivyCorpusIndex.open([WIKI], tmp_path)
    with pytest.raises(ConfigError, match="tantivy"):
        open_index([WIKI], tmp_path, "tantivy")
    # auto falls back to memory for a large corpus, with a warning
    monkeypatch.setattr(tantivy_index, "AUTO_ONDISK_MIN_BYTES", 0)
    assert choose_index_backend([WIKI], "auto") == "memory"


async def test_the_server_says_clearly_when_tantivy_is_missing(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tantivy", None)
    server = create_server([WIKI], tmp_path / "cache", index_backend="tantivy")
    async with create_connected_server_and_client_session(server) as client:
        result = await client.call_tool("search", {"query": "Kubrick"})
    assert result.isError
    message = result.content[0].text
    assert "needs the 'tantivy' package" in message and "\n" not in message


def test_settings_index_backend(monkeypatch):
    assert Settings.from_env({}).index_backend == "auto"
    assert Settings.from_env({"MERMAID_INDEX_BACKEND": " Tantivy "}).index_backend == "tantivy"
    assert Settings.from_env({"MERMAID_INDEX_BACKEND": "memory"}, index_backend="tantivy").index_backend == "tantivy"
    with pytest.raises(ConfigError, match="MERMAID_INDEX_BACKEND must be one of auto, memory, tantivy"):
        Settings.from_env({"MERMAID_INDEX_BACKEND": "lucene"})
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None if name == "tantivy" else object())
    with pytest.raises(ConfigError, match="needs the 'tantivy' package"):
        Settings(index_backend="tantivy")


def test_the_backend_is_passed_to_the_server_process(monkeypatch, tmp_path):
    started = []
    monkeypatch.setattr(toolbox, "stdio_server", lambda name, command, args, **kw: started.append(args))
    toolbox.corpus_server([WIKI], tmp_path, "tantivy")
    toolbox.corpus_server([WIKI], tmp_path)
    assert started[0][started[0].index("--index-backend") + 1] == "tantivy"
    assert "--index-backend" not in started[1]  # the server reads MERMAID_INDEX_BACKEND, else auto

    from mermaid_verifier.tools import sources

    monkeypatch.setattr(sources, "corpus_server", lambda corpora, cache, backend=None: started.append(backend))
    sources.plan_sources(("local",), [WIKI], tmp_path, tmp_path, index_backend="memory")
    assert started[-1] == "memory"


# ----------------------------------------------------------------------------- the MCP server on tantivy


async def test_server_with_the_tantivy_backend_answers_search_and_get_page(tmp_path):
    cache = tmp_path / "cache"
    server = create_server([WIKI, GENERIC], cache, index_backend="tantivy")
    async with create_connected_server_and_client_session(server) as client:
        found = await client.call_tool("search", {"query": "Who wrote the screenplay with Arthur C. Clarke?", "k": 3})
        page = await client.call_tool("get_page", {"title": "Soul_Food_-LRB-film-RRB-", "max_passages": 2})
        missing = await client.call_tool("get_page", {"title": "Soul Food"})
    assert not found.isError and not page.isError and not missing.isError
    top = found.structuredContent["passages"][0]
    assert top["id"] == f"{SPACE_ODYSSEY}:1"
    assert top["text"] == "The screenplay was written by Kubrick and Arthur C. Clarke."
    assert top["title"] == "2001: A Space Odyssey (film)" and top["line"] == 1 and top["score"] > 0
    data = page.structuredContent
    assert [p["line"] for p in data["passages"]] == [0, 1] and (data["total_passages"], data["truncated"]) == (3, True)
    assert missing.structuredContent["same_name"] == ["Soul Food (film)", "Soul Food (TV series)"]
    assert index_dirs(cache) and not list(cache.glob("bm25-*"))  # on disk, not in memory


def test_stdio_server_parses_the_index_backend_option():
    from mermaid_verifier.tools.servers.local_corpus_server import parse_args

    assert parse_args(["--index-backend", "TANTIVY"]).index_backend == "tantivy"
    assert parse_args([]).index_backend is None
    with pytest.raises(SystemExit):
        parse_args(["--index-backend", "lucene"])


async def test_stdio_server_with_the_tantivy_backend_answers(tmp_path):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cache = tmp_path / "cache"
    params = StdioServerParameters(
        command=sys.executable,
        cwd=tmp_path,
        args=[
            "-m",
            "mermaid_verifier.tools.servers.local_corpus_server",
            "--corpus",
            str(WIKI),
            "--cache-dir",
            str(cache),
            "--index-backend",
            "tantivy",
        ],
    )
    with (tmp_path / "stderr.log").open("w") as errlog:
        with anyio.fail_after(60):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    result = await session.call_tool("search", {"query": "Kubrick screenplay Arthur Clarke", "k": 3})
    assert not result.isError and result.structuredContent["passages"][0]["id"] == f"{SPACE_ODYSSEY}:1"
    assert index_dirs(cache) and not list(cache.glob("bm25-*"))


def _run_server(args: list[str], env_extra: dict[str, str], cwd: Path):
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("MERMAID_CORPUS", "MERMAID_INDEX_BACKEND")}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "mermaid_verifier.tools.servers.local_corpus_server", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def test_server_command_line_refuses_a_bad_or_unavailable_backend(tmp_path):
    common = ["--corpus", str(WIKI), "--cache-dir", str(tmp_path / "cache")]
    done = _run_server(common, {"MERMAID_INDEX_BACKEND": "lucene"}, tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "MERMAID_INDEX_BACKEND must be one of auto, memory, tantivy, got 'lucene'" in done.stderr

    shadow = tmp_path / "shadow" / "tantivy"  # a tantivy that cannot be imported, found first on the path
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not installed')\n")
    pythonpath = os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", "")])
    done = _run_server([*common, "--index-backend", "tantivy"], {"PYTHONPATH": pythonpath}, tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "mermaid-verifier-corpus-server: error: --index-backend tantivy needs the "
        "'tantivy' package: pip install 'mermaid-verifier[ondisk]'"
    )
