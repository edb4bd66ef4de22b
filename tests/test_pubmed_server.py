"""The pubmed MCP server, in process, against hand-written E-utilities cassettes (no network)."""

import calendar
import subprocess
import sys
import time

import pytest
from Bio import Entrez
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools import pubmed_server
from mermaid_verifier.tools.pubmed_server import create_server, settings_from_env
from mermaid_verifier.tools.source_common import NCBI_INTERVAL_S, NCBI_INTERVAL_WITH_KEY_S, ResponseCache

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

VCR = source_vcr("pubmed", filter_query=("email", "tool", "api_key"))
QUERY = {"query": "novel coronavirus pneumonia Wuhan", "k": 2}
CREDENTIALS = {"email": "tests@example.org", "api_key": "test-key"}  # with a key Entrez waits 0.1 s, not 0.37


@pytest.fixture
def server(tmp_path):
    return create_server(ResponseCache(tmp_path / "cache"), retry=FAST_RETRY, min_interval_s=0, **CREDENTIALS)


def day(year, month, day_):
    return float(calendar.timegm((year, month, day_, 0, 0, 0)))


async def test_tools_and_schemas(server):
    tools = await listed_tools(server)
    assert set(tools) == {"search", "fetch_abstracts"}
    props = tools["fetch_abstracts"].inputSchema["properties"]["pmids"]
    assert (props["type"], props["minItems"], props["maxItems"]) == ("array", 1, 50)


async def test_search_fetches_the_abstracts_and_caches_search_and_articles(server, monkeypatch, block_network):
    sent = []
    real_build = Entrez._build_request
    monkeypatch.setattr(Entrez, "_build_request", lambda cgi, params=None, **kw: sent.append(dict(params)) or
                        real_build(cgi, params, **kw))
    with VCR.use_cassette("search.yaml") as cassette:
        async with create_connected_server_and_client_session(server) as client:
            data = structured(await client.call_tool("search", QUERY))
            again = structured(await client.call_tool("search", QUERY))
            fetched = structured(await client.call_tool("fetch_abstracts", {"pmids": ["31978945"]}))
        assert cassette.play_count == 2 and cassette.all_played  # ESearch + EFetch, then only the cache
    assert again == data
    assert block_network == []  # the EFetch DOCTYPE names a DTD Biopython lacks: nothing fetched it
    assert [(p["tool"], p["email"], p["api_key"]) for p in sent] == [("mermaid-verifier", *CREDENTIALS.values())] * 2

    assert data["total_count"] == 4312 and data["message"] is None
    assert data["query_translation"].startswith('novel[All Fields] AND "coronavirus"[All Fields]')
    huang, zhu = data["passages"]
    for passage in (huang, zhu):
        assert_passage(passage, "pubmed")
    assert (huang["id"], huang["page"], huang["pmid"], huang["line"]) == ("pubmed:31986264", "31986264", "31986264", None)
    assert huang["title"] == "Clinical features of patients infected with 2019 novel coronavirus in Wuhan, China."
    assert huang["text"].startswith("BACKGROUND: A 2019 novel coronavirus (2019-nCoV) caused a cluster")
    assert "FINDINGS: By Jan 2, 2020" in huang["text"] and "(n=40 [98%])" in huang["text"]
    assert huang["authors"] == ["Chaolin Huang", "Yeming Wang", "Bin Cao"]
    assert (huang["journal"], huang["doi"]) == ("Lancet (London, England)", "10.1016/S0140-6736(20)30183-5")
    # the e-pub date (2020-01-24) comes before the (2020-02-15)
    assert (huang["publication_date"], huang["published_at"]) == ("2020-01-24", day(2020, 1, 24))
    assert huang["url"] == "https://pubmed.ncbi.nlm.nih.gov/31986264/"
    assert (huang["score"], zhu["score"]) == (1.0, 0.5) and huang["has_abstract"]
    assert zhu["authors"] == ["Na Zhu", "Wenjie Tan", "China Novel Coronavirus Investigating and Research Team"]
    assert zhu["text"].startswith("In December 2019, a cluster of patients with pneumonia")
    assert fetched["passages"][0] == {**zhu, "score": None}


async def test_fetch_abstracts_reports_pmids_pubmed_does_not_have(server):
    with VCR.use_cassette("fetch_missing.yaml") as cassette:
        data = structured(await call(server, "fetch_abstracts", {"pmids": ["31978945", "PMID:99999999", "31978945"]}))
    assert cassette.all_played
    assert data["pmids"] == ["31978945", "99999999"]
    assert [p["pmid"] for p in data["passages"]] == ["31978945"] and data["missing"] == ["99999999"]
    assert data["message"] == "PubMed has no article for PMID 99999999."


async def test_a_bad_pmid_is_refused_without_a_request(server, block_network):
    message = error_text(await call(server, "fetch_abstracts", {"pmids": ["31978945", "abc"]}))
    assert message == "'abc' is not a PMID: PMIDs are numbers such as '31978945'"
    assert block_network == []


async def test_search_without_hits_makes_no_efetch(server):
    with VCR.use_cassette("search_empty.yaml") as cassette:
        data = structured(await call(server, "search", {"query": "zzqx flurble wibbit"}))
    assert cassette.play_count == 1
    assert (data["passages"], data["total_count"]) == ([], 0)
    assert data["message"].startswith("No PubMed article matched 'zzqx flurble wibbit'. PubMed did not find: 'zzqx', 'flurble'.")


async def test_429_is_retried_after_the_time_retry_after_asks(server):
    with VCR.use_cassette("retry_429.yaml") as cassette:
        started = time.monotonic()
        data = structured(await call(server, "search", QUERY))
        elapsed = time.monotonic() - started
    assert cassette.play_count == 3 and len(data["passages"]) == 2
    assert elapsed >= 0.2


async def test_5xx_on_every_attempt_is_one_line(server):
    with VCR.use_cassette("efetch_502.yaml") as cassette:
        message = error_text(await call(server, "search", QUERY))
    assert cassette.play_count == 4  # ESearch, then EFetch three times (Entrez's own retries are off)
    assert message == "PubMed returned HTTP 502 (Bad Gateway) after 3 attempts"


@pytest.mark.parametrize("cassette_name, arguments, expected", [
    ("malformed.yaml", QUERY,
     "PubMed returned a malformed response: not valid XML (no element found: line 20, column 80)"),
    ("api_error.yaml", {"query": '""'}, "PubMed reported an error: Empty term and query_key - nothing todo"),
])
async def test_a_bad_body_is_one_line(server, cassette_name, arguments, expected):
    with VCR.use_cassette(cassette_name) as cassette:
        message = error_text(await call(server, "search", arguments))
    assert cassette.all_played and message == expected


async def test_a_timeout_is_one_line(tmp_path):
    server = create_server(ResponseCache(tmp_path), timeout_s=4, retry=FAST_RETRY, min_interval_s=0, **CREDENTIALS)
    with VCR.use_cassette("timeout.yaml"):
        message = error_text(await call(server, "search", QUERY))
    assert message == "PubMed did not answer within 4s (timed out)"


async def test_without_a_cassette_the_network_is_unreachable_at_once(server, block_network):
    started = time.monotonic()
    message = error_text(await call(server, "fetch_abstracts", {"pmids": ["31978945"]}))
    assert time.monotonic() - started < 2  # one try, not Biopython's three tries 15 s apart
    assert message == "PubMed is unreachable: cannot resolve eutils.ncbi.nlm.nih.gov (no network or DNS?)"
    assert block_network == [("dns", "eutils.ncbi.nlm.nih.gov")]


def test_the_server_never_loads_entrez_dtd_machinery():
    # Bio.Entrez.Parser (Entrez.read) downloads DTDs it lacks, and creates ~/.config/biopython on import
    code = ("import sys, mermaid_verifier.tools.pubmed_server as m; m.create_server(None); "
            "sys.exit('Bio.Entrez.Parser' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_entrez_is_configured_for_one_try_and_a_timeout(tmp_path):
    create_server(None)
    assert (Entrez.max_tries, Entrez.sleep_between_tries) == (1, 0)
    assert Entrez.urlopen is pubmed_server._urlopen_with_timeout


def test_ncbi_rate_limit_follows_the_api_key():
    assert pubmed_server.PubmedClient(cache=None).limiter.min_interval_s == NCBI_INTERVAL_S
    assert pubmed_server.PubmedClient(cache=None, api_key="k").limiter.min_interval_s == NCBI_INTERVAL_WITH_KEY_S


def test_settings_come_from_the_environment():
    assert settings_from_env({"NCBI_API_KEY": " k ", "ENTREZ_EMAIL": "a@b.org"}) == {"email": "a@b.org", "api_key": "k"}
    assert settings_from_env({"NCBI_EMAIL": "n@b.org", "ENTREZ_EMAIL": "a@b.org"})["email"] == "n@b.org"
    assert settings_from_env({}) == {"email": None, "api_key": None}


def test_medline_dates_and_book_chapters_parse():
    import xml.etree.ElementTree as ET

    book = ET.fromstring(
        "<PubmedArticleSet><PubmedBookArticle><BookDocument><PMID>20301295</PMID>"
        "<ArticleTitle>Cystic Fibrosis</ArticleTitle><Book><BookTitle>GeneReviews</BookTitle>"
        "<PubDate><Year>1993</Year></PubDate></Book><Abstract><AbstractText>Cystic fibrosis is a "
        "<b>multisystem</b> disease.</AbstractText></Abstract></BookDocument></PubmedBookArticle>"
        "<PubmedArticle><MedlineCitation><PMID>1</PMID><Article><Journal><JournalIssue><PubDate>"
        "<MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate></JournalIssue><Title>J</Title></Journal>"
        "<ArticleTitle>Old</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>")
    chapter, old = pubmed_server.parse_efetch(book)
    assert (chapter["pmid"], chapter["title"], chapter["journal"]) == ("20301295", "Cystic Fibrosis", "GeneReviews")
    assert chapter["abstract"] == "Cystic fibrosis is a multisystem disease." and chapter["publication_date"] == "1993"
    assert (old["publication_date"], old["published_at"], old["abstract"]) == ("1998-12", day(1998, 12, 1), "")
    assert pubmed_server.article_passage(old, None).text == "Old"  # no abstract: the title stands in
