"""The arxiv MCP server, in process, against arXiv API Atom feeds recorded by public projects
(tests/cassettes/arxiv; origins in tests/cassettes/SOURCES.md), with no network."""

import time
from datetime import UTC, datetime

import pytest
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools.servers.arxiv_server import ArxivClient, create_server, search_result
from mermaid_verifier.tools.servers.source_cache import ResponseCache
from mermaid_verifier.tools.servers.source_errors import HTTPStatusError, describe_error

from .source_kit import FAST_RETRY, assert_passage, call, error_text, listed_tools, source_vcr, structured

pytestmark = pytest.mark.usefixtures("block_network")  # no test here reaches the network

VCR = source_vcr("arxiv")
QUERY = {"query": "testing", "k": 10}


@pytest.fixture
def server(tmp_path):
    return create_server(ResponseCache(tmp_path / "cache"), retry=FAST_RETRY, min_interval_s=0)


async def test_tools_and_schemas(server):
    tools = await listed_tools(server)
    assert set(tools) == {"search", "get_abstract"}
    props = tools["search"].inputSchema["properties"]
    assert (props["k"]["minimum"], props["k"]["maximum"], props["k"]["default"]) == (1, 50, 5)
    assert tools["get_abstract"].inputSchema["required"] == ["arxiv_id"]


async def test_search_asks_for_k_results_and_returns_passages_then_hits_the_cache(server):
    with VCR.use_cassette("search.yaml") as cassette:  # its URI says max_results=10: page_size is k
        async with create_connected_server_and_client_session(server) as client:
            first = structured(await client.call_tool("search", QUERY))
            second = structured(await client.call_tool("search", {"query": " testing ", "k": 10}))
        assert cassette.play_count == 1 and cassette.all_played
    assert second == first
    assert first["query"] == "testing" and first["message"] is None
    assert len(first["passages"]) == 10
    assert [p["score"] for p in first["passages"][:4]] == [1.0, 0.5, 0.3333, 0.25]
    top, other, third = first["passages"][:3]
    for passage in first["passages"]:
        assert_passage(passage, "arxiv")
        assert "\n" not in passage["text"] and passage["url"].startswith("https://arxiv.org/abs/")
    assert (top["id"], top["page"], top["line"], top["arxiv_id"]) == (
        "arxiv:2202.12139v1",
        "2202.12139v1",
        None,
        "2202.12139v1",
    )
    assert top["title"] == "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
    assert top["authors"] == ["Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"]
    assert top["text"].startswith("Deep Learning (DL) has revolutionized the capabilities of vision-based systems")
    assert top["text"].endswith("on a classical benchmark used in VBS and discuss its results.")
    # the feed's entry id and links are http://; the passage's are https://
    assert top["url"] == "https://arxiv.org/abs/2202.12139v1" and top["pdf_url"] == "https://arxiv.org/pdf/2202.12139v1"
    assert top["published_at"] == datetime(2022, 2, 24, 15, 5, 19, tzinfo=UTC).timestamp()
    assert top["published"] == top["updated"] == "2022-02-24T15:05:19+00:00"
    assert (top["primary_category"], top["categories"]) == ("cs.SE", ["cs.SE", "cs.LG"])
    assert top["doi"] == "10.1109/ICSTW55395.2022.00035"
    assert top["journal_ref"].startswith("Artificial Intelligence in Software Testing @ 2022 IEEE International")
    assert other["title"] == "Towards Explainable Test Case Prioritisation with Learning-to-Rank Models"
    assert other["authors"] == ["Aurora Ramírez", "Mario Berrios", "José Raúl Romero", "Robert Feldt"]
    # a second version: published is the first version's date, updated this version's
    assert third["arxiv_id"] == "2005.14124v2"
    assert (third["published"], third["updated"]) == ("2020-05-28T16:19:50+00:00", "2020-07-16T08:15:48+00:00")
    assert third["updated_at"] == datetime(2020, 7, 16, 8, 15, 48, tzinfo=UTC).timestamp()
    assert third["doi"] == "10.1145/3395363.3397376"
    # '&amp;' in the feed is '&' in the passage; a paper without DOI or journal reference has None
    assert first["passages"][5]["journal_ref"].startswith(
        "International Journal of Software Engineering & Applications"
    )
    assert (first["passages"][6]["arxiv_id"], first["passages"][6]["doi"], first["passages"][6]["journal_ref"]) == (
        "2503.05378v2",
        None,
        None,
    )


@pytest.mark.parametrize(
    "given",
    ["1605.08386", "arXiv:1605.08386", "https://arxiv.org/abs/1605.08386", "http://arxiv.org/pdf/1605.08386.pdf"],
)
async def test_get_abstract_accepts_ids_in_their_usual_forms(server, given):
    with VCR.use_cassette("abstract.yaml") as cassette:
        data = structured(await call(server, "get_abstract", {"arxiv_id": given}))
    assert cassette.play_count == 1
    assert (data["arxiv_id"], data["found"], data["message"]) == ("1605.08386", True, None)
    [passage] = data["passages"]
    assert_passage(passage, "arxiv")
    assert passage["arxiv_id"] == "1605.08386v1" and passage["score"] is None
    assert passage["title"] == "Heat-bath random walks with Markov bases"
    assert passage["authors"] == ["Caprice Stanley", "Tobias Windisch"]
    assert passage["text"].startswith("Graphs on lattice points are studied whose edges come from a finite set")
    assert passage["updated_at"] == datetime(2016, 5, 26, 17, 59, 46, tzinfo=UTC).timestamp()
    assert (passage["primary_category"], passage["categories"]) == ("math.CO", ["math.CO", "math.ST"])


@pytest.mark.parametrize("given", ["astro-ph/0601001", "arXiv:astro-ph/0601001"])
async def test_get_abstract_reads_an_old_style_id(server, given):
    with VCR.use_cassette("abstract_old_style.yaml") as cassette:
        data = structured(await call(server, "get_abstract", {"arxiv_id": given}))
    assert cassette.play_count == 1
    assert (data["arxiv_id"], data["found"]) == ("astro-ph/0601001", True)
    [passage] = data["passages"]
    assert_passage(passage, "arxiv")
    assert (passage["id"], passage["arxiv_id"]) == ("arxiv:astro-ph/0601001v1", "astro-ph/0601001v1")
    assert passage["url"] == "https://arxiv.org/abs/astro-ph/0601001v1"
    assert passage["title"].startswith("Frequency of Hot Jupiters and Very Hot Jupiters from the OGLE-III")
    assert passage["authors"][0] == "Andrew Gould" and len(passage["authors"]) == 4
    assert (passage["primary_category"], passage["journal_ref"]) == ("astro-ph", "ActaAstron.56:1-50,2006")


async def test_an_unknown_id_is_a_normal_not_found_result(server):
    with VCR.use_cassette("abstract_missing.yaml") as cassette:
        data = structured(await call(server, "get_abstract", {"arxiv_id": "0000.0000"}))
    assert cassette.all_played
    assert (data["found"], data["passages"]) == (False, [])
    assert "arXiv has no paper '0000.0000'" in data["message"]


async def test_an_empty_feed_is_cached_for_an_hour_a_paper_for_a_week(server, monkeypatch):
    with VCR.use_cassette("abstract_missing.yaml", allow_playback_repeats=True) as missing:
        await call(server, "get_abstract", {"arxiv_id": "0000.0000"})
        await call(server, "get_abstract", {"arxiv_id": "0000.0000"})
        assert missing.play_count == 1  # within the hour: from the cache
        later = time.time() + 3601
        monkeypatch.setattr(time, "time", lambda: later)  # diskcache reads expiry with time.time()
        await call(server, "get_abstract", {"arxiv_id": "0000.0000"})
        assert missing.play_count == 2  # asked again
    monkeypatch.undo()
    with VCR.use_cassette("abstract.yaml") as found:
        paper = structured(await call(server, "get_abstract", {"arxiv_id": "1605.08386"}))
        six_days = time.time() + 6 * 86400
        monkeypatch.setattr(time, "time", lambda: six_days)
        again = structured(await call(server, "get_abstract", {"arxiv_id": "1605.08386"}))
    assert found.play_count == 1 and again == paper and paper["found"]


@pytest.mark.parametrize("bad", ["not an id", "1706", "../etc/passwd", "1706.03762v"])
async def test_a_malformed_id_is_refused_without_a_request(server, bad, block_network):
    message = error_text(await call(server, "get_abstract", {"arxiv_id": bad}))
    assert "is not an arXiv id" in message and block_network == []


def test_search_without_hits_says_what_to_try():
    # an empty feed reaches the server as no papers (abstract_missing.yaml replays a recorded one)
    data = search_result("zzqx flurble wibbit", [])
    assert data.passages == [] and "No arXiv paper matched 'zzqx flurble wibbit'" in data.message


async def test_429_is_retried_after_the_time_retry_after_asks(server):
    with VCR.use_cassette("retry_429.yaml") as cassette:
        started = time.monotonic()
        data = structured(await call(server, "search", QUERY))
        elapsed = time.monotonic() - started
    assert cassette.play_count == 2 and len(data["passages"]) == 10
    assert elapsed >= 0.2


async def test_5xx_on_every_attempt_is_one_line(server):
    with VCR.use_cassette("http_503.yaml") as cassette:
        message = error_text(await call(server, "search", QUERY))
    assert cassette.play_count == 3  # our 3 attempts; the library's own retries are off
    assert message == "arXiv returned HTTP 503 (Service Unavailable) after 3 attempts"


@pytest.mark.parametrize(
    "cassette_name, expected",
    [
        ("malformed.yaml", "arXiv returned a malformed response: unexpected XML document <html>"),
        (
            "truncated.yaml",
            "arXiv returned a malformed response: not valid XML (no element found: line 12, column 105)",
        ),
    ],
)
async def test_a_body_that_is_not_an_atom_feed_is_one_line(server, cassette_name, expected):
    with VCR.use_cassette(cassette_name) as cassette:
        message = error_text(await call(server, "search", QUERY))
    assert cassette.play_count == 1 and message == expected


async def test_a_timeout_is_one_line(tmp_path):
    server = create_server(ResponseCache(tmp_path), timeout_s=3, retry=FAST_RETRY, min_interval_s=0)
    with VCR.use_cassette("timeout.yaml"):
        message = error_text(await call(server, "search", QUERY))
    assert message == "arXiv did not answer within 3s (timed out)"


async def test_without_a_cassette_the_network_is_unreachable(server, block_network):
    message = error_text(await call(server, "get_abstract", {"arxiv_id": "1605.08386"}))
    assert message == "arXiv is unreachable: cannot resolve export.arxiv.org (no network or DNS?)"
    assert block_network == [("dns", "export.arxiv.org")]


async def test_requests_wait_for_the_rate_limiter(tmp_path):
    server = create_server(ResponseCache(tmp_path), retry=FAST_RETRY, min_interval_s=0.3)
    with VCR.use_cassette("retry_429.yaml"):  # two requests
        started = time.monotonic()
        structured(await call(server, "search", QUERY))
    assert time.monotonic() - started >= 0.3


def test_an_http_400_says_why_and_is_neither_retried_nor_cached(tmp_path):
    # the tool refuses ids like 'abc' before asking; the client is called directly to replay arXiv's answer
    client = ArxivClient(cache=ResponseCache(tmp_path), retry=FAST_RETRY, min_interval_s=0)
    with VCR.use_cassette("http_400.yaml") as cassette, pytest.raises(HTTPStatusError) as raised:
        client.abstract("abc")
    assert cassette.play_count == 1
    assert (raised.value.status, raised.value.detail) == (400, "incorrect id format for abc")
    assert describe_error("arXiv", raised.value) == "arXiv returned HTTP 400 (Bad Request): incorrect id format for abc"
    assert client.cache.get("arxiv", "abstract", {"id": "abc"}) is None
