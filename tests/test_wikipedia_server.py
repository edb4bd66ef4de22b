"""The wikipedia MCP server, in process, against hand-written MediaWiki API cassettes (no network)."""

import time

import pytest
import wikipedia.wikipedia as wikipedia_module
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools.source_common import ResponseCache
from mermaid_verifier.tools.wikipedia_server import create_server, split_sentences

from .test_source_servers import (  # noqa: F401 - block_network is an autouse fixture
    FAST_RETRY,
    assert_passage,
    block_network,
    call,
    error_text,
    listed_tools,
    source_vcr,
    structured,
)

VCR = source_vcr("wikipedia")


@pytest.fixture
def server(tmp_path):
    return create_server(ResponseCache(tmp_path / "cache"), retry=FAST_RETRY, min_interval_s=0)


async def test_tools_and_schemas(server):
    tools = await listed_tools(server)
    assert set(tools) == {"search_titles", "page_summary", "page_sentences"}
    props = tools["search_titles"].inputSchema["properties"]
    assert (props["k"]["minimum"], props["k"]["maximum"], props["k"]["default"]) == (1, 20, 5)
    props = tools["page_sentences"].inputSchema["properties"]
    assert props["max_sentences"]["default"] == 20 and props["start_line"]["default"] == 0
    assert {"passages", "options", "suggestions", "found"} <= set(tools["page_summary"].outputSchema["properties"])


async def test_search_titles_then_a_cache_hit_without_a_second_request(server):
    arguments = {"query": "Stanley  Kubrick 2001", "k": 3}
    with VCR.use_cassette("search_titles.yaml") as cassette:
        async with create_connected_server_and_client_session(server) as client:
            first = structured(await client.call_tool("search_titles", arguments))
            second = structured(await client.call_tool("search_titles", {"query": "stanley kubrick 2001", "k": 3}))
        assert cassette.play_count == 1 and cassette.all_played
    assert first["titles"] == ["Stanley Kubrick", "2001: A Space Odyssey", "Stanley Kubrick filmography"]
    assert (first["query"], first["suggestion"], first["message"]) == ("Stanley Kubrick 2001", None, None)
    assert second["titles"] == first["titles"]


async def test_search_without_hits_passes_on_the_spelling_suggestion(server):
    with VCR.use_cassette("search_titles_empty.yaml") as cassette:
        data = structured(await call(server, "search_titles", {"query": "Kubrik Odysee zzqx"}))
    assert cassette.all_played
    assert data["titles"] == [] and data["suggestion"] == "kubrick odyssey zzqx"
    assert "No Wikipedia page matched" in data["message"] and "'kubrick odyssey zzqx'" in data["message"]


async def test_page_summary_follows_a_redirect(server):
    with VCR.use_cassette("page_summary_redirect.yaml") as cassette:
        data = structured(await call(server, "page_summary", {"title": "Kubrick"}))
    assert cassette.play_count == 3
    assert (data["title"], data["found"], data["resolved_title"]) == ("Kubrick", True, "Stanley Kubrick")
    assert data["url"] == "https://en.wikipedia.org/wiki/Stanley_Kubrick"
    [passage] = data["passages"]
    assert_passage(passage, "wikipedia")
    assert (passage["id"], passage["page"], passage["line"]) == ("wikipedia:Stanley_Kubrick", "Stanley_Kubrick", None)
    assert passage["text"].startswith("Stanley Kubrick (July 26, 1928 – March 7, 1999) was an American filmmaker")
    assert "Arthur C. Clarke" in passage["text"] and "\n" not in passage["text"]
    assert (passage["score"], passage["published_at"], passage["authors"]) == (None, None, None)


async def test_page_sentences_numbers_each_sentence_and_skips_headings_and_back_matter(server):
    with VCR.use_cassette("page_sentences.yaml") as cassette:
        async with create_connected_server_and_client_session(server) as client:
            page = structured(await client.call_tool("page_sentences", {"title": "Stanley_Kubrick"}))
            part = structured(await client.call_tool("page_sentences",
                                                     {"title": "Stanley Kubrick", "max_sentences": 2, "start_line": 2}))
        assert cassette.play_count == 2  # the second call is served from the cache
    texts = [p["text"] for p in page["passages"]]
    assert texts == [
        "Stanley Kubrick (July 26, 1928 – March 7, 1999) was an American filmmaker and photographer.",
        "He directed 2001: A Space Odyssey, released in 1968.",
        "His other films include Dr. Strangelove, A Clockwork Orange and The Shining.",
        "Kubrick was born in Manhattan, New York City.",
        "His father, Jacob L. Kubrick, was a doctor.",
        "Kubrick worked as a photographer for Look magazine from 1945.",
        "He sold his first photograph at 17!",
    ]
    assert [p["line"] for p in page["passages"]] == list(range(7))
    assert page["passages"][3]["id"] == "wikipedia:Stanley_Kubrick:3"
    for passage in page["passages"]:
        assert_passage(passage, "wikipedia")
        assert passage["url"] == "https://en.wikipedia.org/wiki/Stanley_Kubrick"
    assert (page["total_passages"], page["truncated"], page["message"]) == (7, False, None)
    assert [p["line"] for p in part["passages"]] == [2, 3]
    assert part["truncated"] is True and "start_line=4" in part["message"]


async def test_a_disambiguation_page_lists_the_options(server):
    with VCR.use_cassette("disambiguation.yaml") as cassette:
        data = structured(await call(server, "page_sentences", {"title": "Mercury"}))
    assert cassette.all_played
    assert (data["found"], data["disambiguation"], data["passages"]) == (False, True, [])
    assert data["options"] == ["Mercury (planet)", "Mercury (element)", "Mercury (mythology)", "Freddie Mercury"]
    assert "'Mercury' is a disambiguation page" in data["message"] and "'Mercury (planet)'" in data["message"]


async def test_a_missing_page_suggests_similar_titles(server):
    with VCR.use_cassette("missing.yaml") as cassette:
        data = structured(await call(server, "page_summary", {"title": "Stanley Kubrick Odyssey Film"}))
    assert cassette.all_played
    assert (data["found"], data["passages"], data["disambiguation"]) == (False, [], False)
    assert data["suggestions"] == ["2001: A Space Odyssey (film)", "Stanley Kubrick"]
    assert data["message"].startswith("No Wikipedia page titled 'Stanley Kubrick Odyssey Film'. Similar titles:")


async def test_429_is_retried_after_the_time_retry_after_asks(server, caplog):
    with VCR.use_cassette("retry_429.yaml") as cassette:
        started = time.monotonic()
        data = structured(await call(server, "search_titles", {"query": "Stanley Kubrick"}))
        elapsed = time.monotonic() - started
    assert cassette.play_count == 2
    assert data["titles"] == ["Stanley Kubrick", "Stanley Kubrick filmography"]
    assert elapsed >= 0.2  # Retry-After: 0.2 (the backoff alone would be 0.01 s)
    assert "HTTP 429" in caplog.text and "retrying in 0.20s" in caplog.text


async def test_5xx_on_every_attempt_is_one_line(server):
    with VCR.use_cassette("http_503.yaml") as cassette:
        message = error_text(await call(server, "search_titles", {"query": "Stanley Kubrick"}))
    assert cassette.play_count == 3
    assert message == "Wikipedia returned HTTP 503 (Service Unavailable) after 3 attempts"


@pytest.mark.parametrize("cassette_name, expected", [
    ("malformed.yaml", "Wikipedia returned a malformed response: not valid JSON (Expecting value: line 1 column 1 (char 0))"),
    ("api_error.yaml", "Wikipedia reported an error: maxlag: Waiting for 10.64.48.35: 6 seconds lagged."),
])
async def test_a_bad_body_is_one_line_and_not_cached(server, cassette_name, expected):
    with VCR.use_cassette(cassette_name) as cassette:
        message = error_text(await call(server, "search_titles", {"query": "Stanley Kubrick"}))
    assert cassette.play_count == 1 and message == expected
    with VCR.use_cassette("search_titles_empty.yaml"):  # nothing was cached: the next call asks again
        again = await call(server, "search_titles", {"query": "Stanley Kubrick"})
    assert again.isError and "Can't play back this request" in again.content[0].text


async def test_a_timeout_is_one_line(tmp_path):
    server = create_server(ResponseCache(tmp_path), timeout_s=2.5, retry=FAST_RETRY, min_interval_s=0)
    with VCR.use_cassette("timeout.yaml") as cassette:
        message = error_text(await call(server, "search_titles", {"query": "Stanley Kubrick"}))
    assert message == "Wikipedia did not answer within 2.5s (timed out)"
    assert cassette.play_count == 0  # the answer never came


async def test_without_a_cassette_the_network_is_unreachable(server, block_network):
    message = error_text(await call(server, "page_summary", {"title": "Stanley Kubrick"}))
    assert message == "Wikipedia is unreachable: cannot resolve en.wikipedia.org (no network or DNS?)"
    assert block_network == [("dns", "en.wikipedia.org")]


@pytest.mark.parametrize("title, expected", [
    ("   ", "the title is empty"),
    ("Foo#Bar", "is not a valid Wikipedia title: it contains '#'"),
    ("[[Link]]", "is not a valid Wikipedia title"),
])
async def test_bad_titles_are_refused_without_a_request(server, title, expected):
    message = error_text(await call(server, "page_summary", {"title": title}))
    assert expected in message


def test_the_package_reaches_the_network_only_through_our_session():
    create_server(None)
    assert type(wikipedia_module.requests).__name__ == "_RequestsShim"
    create_server(None)  # idempotent
    assert type(wikipedia_module.requests).__name__ == "_RequestsShim"


def test_sentence_splitting_keeps_abbreviations_and_initials_together():
    text = ("J. R. R. Tolkien was born in 1892. He moved to the U.S. He said \"Hi.\" Then 3.5 per cent left.\n"
            "\n== Early life ==\nSt. Mary was there, e.g. on Jan. 3.\n== See also ==\nList of things.")
    assert split_sentences(text) == [
        "J. R. R. Tolkien was born in 1892.", "He moved to the U.S. He said \"Hi.\"",
        "Then 3.5 per cent left.", "St. Mary was there, e.g. on Jan. 3.",
    ]
