"""The arxiv MCP server, in process, against hand-written arXiv API Atom cassettes (no network)."""

import time
from datetime import datetime, timezone

import pytest
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools.arxiv_server import create_server
from mermaid_verifier.tools.source_common import ResponseCache

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

VCR = source_vcr("arxiv")
QUERY = {"query": "attention transformer", "k": 2}


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
    with VCR.use_cassette("search.yaml") as cassette:  # its URI says max_results=2: page_size is k
        async with create_connected_server_and_client_session(server) as client:
            first = structured(await client.call_tool("search", QUERY))
            second = structured(await client.call_tool("search", {"query": " attention  transformer ", "k": 2}))
        assert cassette.play_count == 1 and cassette.all_played
    assert second == first
    assert first["query"] == "attention transformer" and first["message"] is None
    top, other = first["passages"]
    assert_passage(top, "arxiv")
    assert (top["id"], top["page"], top["line"], top["arxiv_id"]) == (
        "arxiv:1706.03762v7", "1706.03762v7", None, "1706.03762v7")
    assert top["title"] == "Attention Is All You Need"
    assert top["authors"] == ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"]
    assert top["text"].startswith("The dominant sequence transduction models are based on complex recurrent or convolutional")
    assert "\n" not in top["text"] and top["text"].endswith("dispensing with recurrence and convolutions entirely.")
    assert top["url"] == "https://arxiv.org/abs/1706.03762v7" and top["pdf_url"] == "https://arxiv.org/pdf/1706.03762v7"
    assert top["published_at"] == datetime(2017, 6, 12, 17, 57, 34, tzinfo=timezone.utc).timestamp()
    assert top["published"] == "2017-06-12T17:57:34+00:00" and top["updated"] == "2023-08-02T00:41:18+00:00"
    assert (top["primary_category"], top["categories"]) == ("cs.CL", ["cs.CL", "cs.LG"])
    assert (top["score"], other["score"]) == (1.0, 0.5)
    assert other["title"] == "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"
    assert (other["doi"], other["journal_ref"]) == ("10.18653/v1/N19-1423", "NAACL-HLT 2019, pages 4171-4186")


@pytest.mark.parametrize("given", ["1706.03762", "arXiv:1706.03762", "https://arxiv.org/abs/1706.03762",
                                   "http://arxiv.org/pdf/1706.03762.pdf"])
async def test_get_abstract_accepts_ids_in_their_usual_forms(server, given):
    with VCR.use_cassette("abstract.yaml") as cassette:
        data = structured(await call(server, "get_abstract", {"arxiv_id": given}))
    assert cassette.play_count == 1
    assert (data["arxiv_id"], data["found"], data["message"]) == ("1706.03762", True, None)
    [passage] = data["passages"]
    assert_passage(passage, "arxiv")
    assert passage["arxiv_id"] == "1706.03762v7" and passage["score"] is None
    assert passage["updated_at"] == datetime(2023, 8, 2, 0, 41, 18, tzinfo=timezone.utc).timestamp()


async def test_an_unknown_id_is_a_normal_not_found_result(server):
    with VCR.use_cassette("abstract_missing.yaml") as cassette:
        data = structured(await call(server, "get_abstract", {"arxiv_id": "2512.99999"}))
    assert cassette.all_played
    assert (data["found"], data["passages"]) == (False, [])
    assert "arXiv has no paper '2512.99999'" in data["message"]


@pytest.mark.parametrize("bad", ["not an id", "1706", "../etc/passwd", "1706.03762v"])
async def test_a_malformed_id_is_refused_without_a_request(server, bad, block_network):
    message = error_text(await call(server, "get_abstract", {"arxiv_id": bad}))
    assert "is not an arXiv id" in message and block_network == []


async def test_search_without_hits(server):
    with VCR.use_cassette("search_empty.yaml") as cassette:
        data = structured(await call(server, "search", {"query": "zzqx flurble wibbit"}))
    assert cassette.all_played
    assert data["passages"] == [] and "No arXiv paper matched 'zzqx flurble wibbit'" in data["message"]


async def test_429_is_retried_after_the_time_retry_after_asks(server):
    with VCR.use_cassette("retry_429.yaml") as cassette:
        started = time.monotonic()
        data = structured(await call(server, "search", QUERY))
        elapsed = time.monotonic() - started
    assert cassette.play_count == 2 and len(data["passages"]) == 2
    assert elapsed >= 0.2


async def test_5xx_on_every_attempt_is_one_line(server):
    with VCR.use_cassette("http_503.yaml") as cassette:
        message = error_text(await call(server, "search", QUERY))
    assert cassette.play_count == 3  # our 3 attempts; the library's own retries are off
    assert message == "arXiv returned HTTP 503 (Service Unavailable) after 3 attempts"


@pytest.mark.parametrize("cassette_name, expected", [
    ("malformed.yaml", "arXiv returned a malformed response: unexpected XML document <html>"),
    ("truncated.yaml", "arXiv returned a malformed response: not valid XML (no element found: line 12, column 43)"),
])
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
    message = error_text(await call(server, "get_abstract", {"arxiv_id": "1706.03762"}))
    assert message == "arXiv is unreachable: cannot resolve export.arxiv.org (no network or DNS?)"
    assert block_network == [("dns", "export.arxiv.org")]


async def test_requests_wait_for_the_rate_limiter(tmp_path):
    server = create_server(ResponseCache(tmp_path), retry=FAST_RETRY, min_interval_s=0.3)
    with VCR.use_cassette("retry_429.yaml"):  # two requests
        started = time.monotonic()
        structured(await call(server, "search", QUERY))
    assert time.monotonic() - started >= 0.3
