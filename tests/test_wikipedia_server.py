"""The wikipedia MCP server, in process, against MediaWiki API answers recorded by public projects
(tests/cassettes/wikipedia; origins in tests/cassettes/SOURCES.md), with no network."""

import time

import pytest
import wikipedia
import wikipedia.wikipedia as wikipedia_module
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools.servers.source_cache import ResponseCache
from mermaid_verifier.tools.servers.wikipedia_server import (
    WikipediaClient,
    create_server,
    disambiguation_options,
    https_url,
    mediawiki_error_detail,
    split_sentences,
    summary_result,
)

from .source_kit import (
    FAST_RETRY,
    assert_passage,
    call,
    error_text,
    listed_tools,
    recorded_body,
    source_vcr,
    structured,
)

pytestmark = pytest.mark.usefixtures("block_network")  # no test here reaches the network

VCR = source_vcr("wikipedia")
CELTUCE = {"query": "Celtuce", "k": 1}  # a recorded search; the error cassettes answer it too


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
    with VCR.use_cassette("search_titles.yaml") as cassette:
        async with create_connected_server_and_client_session(server) as client:
            first = structured(await client.call_tool("search_titles", {"query": "Python  programming", "k": 10}))
            second = structured(await client.call_tool("search_titles", {"query": "python programming", "k": 10}))
        assert cassette.play_count == 1 and cassette.all_played
    assert first["titles"] == [
        "Python (programming language)",
        "History of Python",
        "Outline of the Python programming language",
        "Python syntax and semantics",
        "Mojo (programming language)",
        "Core Python Programming",
        "Flask (web framework)",
        "Zen of Python",
        "Glob (programming)",
        "Python",
    ]
    assert (first["query"], first["suggestion"], first["message"]) == ("Python programming", None, None)
    assert second["titles"] == first["titles"]


async def test_a_search_with_hits_still_passes_on_the_spelling_suggestion(server):
    with VCR.use_cassette("search_titles_suggestion.yaml") as cassette:
        data = structured(await call(server, "search_titles", {"query": "butteryfly", "k": 1}))
    assert cassette.all_played
    assert (data["titles"], data["suggestion"], data["message"]) == (["Butterfly's Tongue"], "butterfly", None)


@pytest.mark.parametrize(
    "cassette_name, query, suggestion, advice",
    [
        ("search_titles_empty.yaml", "hallelulejah", "hallelujah", "Wikipedia suggests searching for 'hallelujah'."),
        ("search_titles_none.yaml", "qmxjsudek", None, "Try fewer or different keywords, or another spelling."),
    ],
)
async def test_a_search_without_hits_says_what_to_try(server, cassette_name, query, suggestion, advice):
    with VCR.use_cassette(cassette_name) as cassette:
        data = structured(await call(server, "search_titles", {"query": query, "k": 10}))
    assert cassette.all_played
    assert (data["titles"], data["suggestion"]) == ([], suggestion)
    assert data["message"] == f"No Wikipedia page matched {query!r}. {advice}"


async def test_page_summary_is_the_lead_section_as_one_passage(server):
    with VCR.use_cassette("page_summary.yaml") as cassette:
        data = structured(await call(server, "page_summary", {"title": "Celtuce"}))
    assert cassette.play_count == 2  # page info, then the extract
    assert (data["title"], data["found"], data["resolved_title"]) == ("Celtuce", True, "Celtuce")
    assert data["url"] == "https://en.wikipedia.org/wiki/Celtuce"  # the recorded fullurl is http://
    [passage] = data["passages"]
    assert_passage(passage, "wikipedia")
    assert (passage["id"], passage["page"], passage["line"]) == ("wikipedia:Celtuce", "Celtuce", None)
    assert passage["text"].startswith(
        "Celtuce (Lactuca sativa var. asparagina, augustana, or angustata), also called stem lettuce"
    )
    assert "wosun (Chinese: 莴笋; pinyin: wōsŭn)" in passage["text"]
    # the lead's two paragraphs are one passage, without the line break between them
    assert "in general). The stem is usually harvested at a length of around 15–20 cm" in passage["text"]
    assert "\n" not in passage["text"] and passage["text"].endswith("more strongly flavored ingredients.")
    assert (passage["score"], passage["published_at"], passage["authors"]) == (None, None, None)


def test_a_redirect_is_followed_through_our_session():
    # The package resolves a redirect with a second page-info request; both go through our session.
    # (No public recording holds the target's extract, so the redirect is replayed up to that point.)
    client = WikipediaClient(cache=None, retry=FAST_RETRY, min_interval_s=0)
    with VCR.use_cassette("redirect.yaml") as cassette, client._active():
        page = wikipedia.page("Menlo Park, New Jersey", auto_suggest=False, redirect=True)
    assert cassette.play_count == 2 and cassette.all_played
    assert (page.title, page.pageid) == ("Edison, New Jersey", "125414")
    assert https_url(page.url) == "https://en.wikipedia.org/wiki/Edison,_New_Jersey"


async def test_page_sentences_numbers_each_sentence_and_skips_headings_and_back_matter(server):
    title = "Tropical Depression Ten (2005)"
    with VCR.use_cassette("page_sentences.yaml") as cassette:
        async with create_connected_server_and_client_session(server) as client:
            page = structured(await client.call_tool("page_sentences", {"title": title}))
            tail = structured(
                await client.call_tool(
                    "page_sentences", {"title": title.replace(" ", "_"), "max_sentences": 10, "start_line": 25}
                )
            )
        assert cassette.play_count == 2  # the second call is served from the cache
    texts = [p["text"] for p in page["passages"]]
    assert texts[:2] == [
        "Tropical Depression Ten was the tenth tropical cyclone of the record-breaking 2005 Atlantic hurricane season.",
        "It formed on August 13 from a tropical wave that emerged from the west coast of Africa on August 8.",
    ]
    # the first sentence after the '== Meteorological history ==' heading
    assert texts[5] == (
        "On August 8, a tropical wave emerged from the west coast of Africa and entered the Atlantic Ocean."
    )
    assert texts[8] == "At the time, it was located about 1,600 miles (2,600 km) east of Barbados."
    assert texts[12].startswith('Late on August 13, it was "beginning to look like Irene-junior')
    assert texts[12].endswith('upper-level outflow pattern".')
    assert [p["line"] for p in page["passages"]] == list(range(20))
    assert page["passages"][3]["id"] == "wikipedia:Tropical_Depression_Ten_(2005):3"
    for passage in page["passages"] + tail["passages"]:
        assert_passage(passage, "wikipedia")
        assert passage["url"] == "https://en.wikipedia.org/wiki/Tropical_Depression_Ten_(2005)"
        assert "==" not in passage["text"]
    assert (page["total_passages"], page["truncated"]) == (30, True)
    assert page["message"] == "Showing sentences 0-19 of 30; call again with start_line=20 to read on."
    # the page ends with 'See also', an empty 'References' and 'External links': none of it is read
    assert [p["line"] for p in tail["passages"]] == [25, 26, 27, 28, 29]
    assert tail["passages"][-1]["text"] == (
        "Katrina was the costliest hurricane, and one of the five deadliest, in the history of the United States."
    )
    assert (tail["truncated"], tail["message"]) == (False, "Showing sentences 25-29 of 30.")


async def test_a_disambiguation_page_lists_the_options(server):
    with VCR.use_cassette("disambiguation.yaml") as cassette:
        data = structured(await call(server, "page_sentences", {"title": "Dodge Ram (disambiguation)"}))
    assert cassette.all_played
    assert (data["found"], data["disambiguation"], data["passages"]) == (False, True, [])
    assert data["url"] == "https://en.wikipedia.org/wiki/Dodge_Ram_(disambiguation)"
    # every linked list item, nested 'See also' items included, in page order, each once, by link
    # target: the page's last item is the piped link [[Ram Trucks|Ram (brand)]]
    assert data["options"] == [
        "Dodge Ramcharger",
        "Dodge Ram Van",
        "Dodge Mini Ram",
        "Dodge Caravan C/V",
        "Ram C/V",
        "Dodge Ram 50",
        "Dodge D-Series",
        "Dodge Rampage",
        "Ram Trucks",
    ]
    assert data["message"].startswith(
        "'Dodge Ram (disambiguation)' is a disambiguation page: it may refer to 'Dodge Ramcharger'; 'Dodge Ram Van';"
    )
    assert data["message"].endswith("Call page_sentences again with one of the options.")


def test_a_missing_page_is_recognised_from_the_page_info():
    # The server then searches for similar titles; no public recording has that search for a missing
    # title, so the page-info answer is replayed here and the message is checked below.
    client = WikipediaClient(cache=None, retry=FAST_RETRY, min_interval_s=0)
    with VCR.use_cassette("missing.yaml") as cassette, client._active():
        with pytest.raises(wikipedia.PageError):
            wikipedia.page("purpleberry", auto_suggest=False, redirect=True)
    assert cassette.play_count == 1


@pytest.mark.parametrize(
    "suggestions, expected",
    [
        (
            ["Purple berry", "Purple"],
            "No Wikipedia page titled 'purpleberry'. Similar titles: 'Purple berry'; 'Purple'. "
            "Call page_summary with one of them.",
        ),
        ([], "No Wikipedia page titled 'purpleberry' and no similar titles. Use search_titles to find the right page."),
    ],
)
def test_a_missing_page_suggests_similar_titles(suggestions, expected):
    data = summary_result("purpleberry", {"kind": "missing", "title": "purpleberry", "suggestions": suggestions})
    assert (data.found, data.passages, data.disambiguation, data.suggestions) == (False, [], False, suggestions)
    assert data.message == expected


async def test_429_is_retried_after_the_time_retry_after_asks(server, caplog):
    with VCR.use_cassette("retry_429.yaml") as cassette:
        started = time.monotonic()
        data = structured(await call(server, "search_titles", CELTUCE))
        elapsed = time.monotonic() - started
    assert cassette.play_count == 2
    assert data["titles"] == ["Celtuce"]
    assert elapsed >= 0.2  # Retry-After: 0.2 (the backoff alone would be 0.01 s)
    assert "HTTP 429" in caplog.text and "retrying in 0.20s" in caplog.text


async def test_5xx_on_every_attempt_is_one_line(server):
    with VCR.use_cassette("http_503.yaml") as cassette:
        message = error_text(await call(server, "search_titles", CELTUCE))
    assert cassette.play_count == 3
    assert message == "Wikipedia returned HTTP 503 (Service Unavailable) after 3 attempts"


@pytest.mark.parametrize(
    "cassette_name, expected",
    [
        (
            "malformed.yaml",
            "Wikipedia returned a malformed response: not valid JSON (Expecting value: line 1 column 1 (char 0))",
        ),
        ("api_error.yaml", 'Wikipedia reported an error: search-title-disabled: "title" search is disabled.'),
    ],
)
async def test_a_bad_body_is_one_line_and_not_cached(server, cassette_name, expected):
    with VCR.use_cassette(cassette_name) as cassette:
        message = error_text(await call(server, "search_titles", CELTUCE))
    assert cassette.play_count == 1 and message == expected
    with VCR.use_cassette("search_titles_empty.yaml"):  # nothing was cached: the next call asks again
        again = await call(server, "search_titles", CELTUCE)
    assert again.isError and "Can't play back this request" in again.content[0].text


async def test_a_timeout_is_one_line(tmp_path):
    server = create_server(ResponseCache(tmp_path), timeout_s=2.5, retry=FAST_RETRY, min_interval_s=0)
    with VCR.use_cassette("timeout.yaml") as cassette:
        message = error_text(await call(server, "search_titles", CELTUCE))
    assert message == "Wikipedia did not answer within 2.5s (timed out)"
    assert cassette.play_count == 0  # the answer never came


async def test_without_a_cassette_the_network_is_unreachable(server, block_network):
    message = error_text(await call(server, "page_summary", {"title": "Stanley Kubrick"}))
    assert message == "Wikipedia is unreachable: cannot resolve en.wikipedia.org (no network or DNS?)"
    assert block_network == [("dns", "en.wikipedia.org")]


@pytest.mark.parametrize(
    "title, expected",
    [
        ("   ", "the title is empty"),
        ("Foo#Bar", "is not a valid Wikipedia title: it contains '#'"),
        ("[[Link]]", "is not a valid Wikipedia title"),
    ],
)
async def test_bad_titles_are_refused_without_a_request(server, title, expected):
    message = error_text(await call(server, "page_summary", {"title": title}))
    assert expected in message


def test_the_package_reaches_the_network_only_through_our_session():
    create_server(None)
    assert type(wikipedia_module.requests).__name__ == "_RequestsShim"
    create_server(None)  # idempotent
    assert type(wikipedia_module.requests).__name__ == "_RequestsShim"


def test_sentence_splitting_keeps_abbreviations_and_initials_together():
    text = (
        'J. R. R. Tolkien was born in 1892. He moved to the U.S. He said "Hi." Then 3.5 per cent left.\n'
        "\n== Early life ==\nSt. Mary was there, e.g. on Jan. 3.\n== See also ==\nList of things."
    )
    assert split_sentences(text) == [
        "J. R. R. Tolkien was born in 1892.",
        'He moved to the U.S. He said "Hi."',
        "Then 3.5 per cent left.",
        "St. Mary was there, e.g. on Jan. 3.",
    ]


def test_disambiguation_options_skip_red_links_and_other_namespaces():
    html = (
        '<ul><li class="toclevel-1 tocsection-1"><a href="#People">People</a></li>'
        '<li><a href="/wiki/Mercury_(planet)" title="Mercury (planet)">the planet</a>, nearest the Sun</li>'
        '<li><a href="/w/index.php?title=Mercury_(band)&amp;action=edit&amp;redlink=1" class="new" '
        'title="Mercury (band) (page does not exist)">Mercury</a>, a band</li>'
        '<li><a href="/wiki/Help:Disambiguation" title="Help:Disambiguation">help</a></li>'
        '<li><a href="/wiki/Freddie_Mercury">Freddie Mercury</a></li><li>no link</li></ul>'
    )
    assert disambiguation_options(html) == ["Mercury (planet)", "Freddie Mercury"]


def test_an_error_status_says_what_the_mediawiki_error_document_says():
    # api_error.yaml replays a real MediaWiki error document; sent with an error status, its reason is kept
    document = recorded_body("wikipedia", "api_error.yaml")
    assert mediawiki_error_detail(document) == 'search-title-disabled: "title" search is disabled.'
    assert mediawiki_error_detail(b"<html>Bad gateway</html>") == ""
