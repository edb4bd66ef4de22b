"""The pubmed MCP server, in process, against E-utilities answers recorded by public projects
(tests/cassettes/pubmed; origins in tests/cassettes/SOURCES.md), with no network."""

import calendar
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ET

import pytest
from Bio import Entrez
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools.servers import pubmed_server, pubmed_xml
from mermaid_verifier.tools.servers.pubmed_server import create_server, settings_from_env
from mermaid_verifier.tools.servers.source_cache import ResponseCache
from mermaid_verifier.tools.servers.source_errors import SourceBusyError
from mermaid_verifier.tools.servers.source_http import NCBI_INTERVAL_S, NCBI_INTERVAL_WITH_KEY_S, user_agent_for

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

VCR = source_vcr("pubmed", filter_query=("email", "tool", "api_key"))
QUERY = {"query": "12091962[uid] OR 9997[uid]", "k": 2}
FETCH = {"pmids": ["12091962", "9997"]}


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
    # search.yaml: a synthetic ESearch naming the two PMIDs of a recorded EFetch (see SOURCES.md)
    sent = []
    real_build = Entrez._build_request
    monkeypatch.setattr(
        Entrez,
        "_build_request",
        lambda cgi, params=None, **kw: sent.append(dict(params)) or real_build(cgi, params, **kw),
    )
    with VCR.use_cassette("search.yaml") as cassette:
        async with create_connected_server_and_client_session(server) as client:
            data = structured(await client.call_tool("search", QUERY))
            again = structured(await client.call_tool("search", QUERY))
            fetched = structured(await client.call_tool("fetch_abstracts", {"pmids": ["9997"]}))
        assert cassette.play_count == 2 and cassette.all_played  # ESearch + EFetch, then only the cache
    assert again == data
    assert block_network == []  # the EFetch DOCTYPE names NCBI's DTD by URL: nothing fetched it
    assert [(p["tool"], p["email"], p["api_key"]) for p in sent] == [("mermaid-verifier", *CREDENTIALS.values())] * 2

    assert data["message"] is None
    olivero, strekas = data["passages"]
    for passage in (olivero, strekas):
        assert_passage(passage, "pubmed")
    assert (olivero["score"], strekas["score"]) == (1.0, 0.5)  # in the order ESearch ranked them
    assert (strekas["id"], strekas["page"], strekas["pmid"], strekas["line"]) == ("pubmed:9997", "9997", "9997", None)
    assert strekas["url"] == "https://pubmed.ncbi.nlm.nih.gov/9997/"
    assert fetched["passages"][0] == {**strekas, "score": None}


async def test_fetch_abstracts_reads_each_article_in_the_order_asked(tmp_path, monkeypatch):
    agents = []
    real_urlopen = urllib.request.urlopen
    monkeypatch.setattr(
        urllib.request,
        "urlopen",
        lambda request, *args, **kw: (
            agents.append(request.get_header("User-agent")) or real_urlopen(request, *args, **kw)
        ),
    )
    monkeypatch.setenv("MERMAID_CONTACT", "factcheck-desk@example.org")
    server = create_server(ResponseCache(tmp_path / "cache"), retry=FAST_RETRY, min_interval_s=0, **CREDENTIALS)
    with VCR.use_cassette("fetch_abstracts.yaml") as cassette:
        data = structured(await call(server, "fetch_abstracts", {"pmids": ["PMID:12091962", "9997", "12091962"]}))
    assert cassette.all_played
    assert agents == [user_agent_for("factcheck-desk@example.org")]  # not urllib's 'Python-urllib/3.x'
    assert (data["pmids"], data["missing"], data["message"]) == (["12091962", "9997"], [], None)
    olivero, strekas = data["passages"]
    for passage in (olivero, strekas):
        assert_passage(passage, "pubmed")
        assert passage["score"] is None
    # an article without an abstract: its title stands in
    assert olivero["title"] == "The treatment of AIDS behind the walls of correctional facilities."
    assert (olivero["has_abstract"], olivero["text"]) == (False, olivero["title"])
    assert (olivero["authors"], olivero["journal"]) == (["J Michael Olivero"], "Social justice (San Francisco, Calif.)")
    # PubDate is '1990 Spring': the year alone
    assert (olivero["publication_date"], olivero["published_at"], olivero["doi"]) == ("1990", day(1990, 1, 1), None)
    assert strekas["title"] == (
        "Magnetic studies of Chromatium flavocytochrome C552. A mechanism for heme-flavin interaction."
    )
    assert strekas["has_abstract"] and strekas["text"].startswith(
        "Electron paramagnetic resonance and magnetic susceptibility studies of Chromatium flavocytochrome C552"
    )
    assert strekas["text"].endswith("indicating the existence of a mechanism for heme-flavin interaction.")
    assert (strekas["authors"], strekas["journal"]) == (["T C Strekas"], "Biochimica et biophysica acta")
    assert (strekas["publication_date"], strekas["published_at"]) == ("1976-09-28", day(1976, 9, 28))
    assert strekas["doi"] == "10.1016/0005-2795(76)90109-4"


async def test_a_structured_abstract_keeps_its_labels(server):
    with VCR.use_cassette("fetch_structured.yaml") as cassette:
        data = structured(await call(server, "fetch_abstracts", {"pmids": ["28775130"]}))
    assert cassette.all_played
    [article] = data["passages"]
    assert_passage(article, "pubmed")
    assert article["title"] == (
        "Occupational pesticide exposure and subclinical hypothyroidism among male pesticide applicators."
    )
    assert article["text"].startswith("OBJECTIVES: Animal studies suggest that exposure to pesticides may alter")
    assert all(f" {label}: " in article["text"] for label in ("METHODS", "RESULTS", "CONCLUSIONS"))
    assert article["journal"] == "Occupational and environmental medicine"
    assert article["doi"] == "10.1136/oemed-2017-104431"
    assert len(article["authors"]) == 12 and article["authors"][:2] == ["Catherine C Lerro", "Laura E Beane Freeman"]
    # the e-pub date (2017-08-03) comes before the (2018 Feb)
    assert (article["publication_date"], article["published_at"]) == ("2017-08-03", day(2017, 8, 3))


def test_pmids_pubmed_returns_nothing_for_are_reported_missing():
    # EFetch leaves out PMIDs it does not have; a recorded answer for two PMIDs, asked for three
    root = ET.fromstring(recorded_body("pubmed", "fetch_abstracts.yaml"))
    articles = {record["pmid"]: record for record in pubmed_xml.parse_efetch(root)}
    data = pubmed_server.fetch_result(["12091962", "99999999", "9997"], articles)
    assert [p.pmid for p in data.passages] == ["12091962", "9997"] and data.missing == ["99999999"]
    assert data.message == "PubMed has no article for PMID 99999999."


async def test_a_bad_pmid_is_refused_without_a_request(server, block_network):
    message = error_text(await call(server, "fetch_abstracts", {"pmids": ["12091962", "abc"]}))
    assert message == "'abc' is not a PMID: PMIDs are numbers such as '31978945'"
    assert block_network == []


def test_a_recorded_esearch_answer_gives_count_pmids_and_translation():
    client = pubmed_server.PubmedClient(cache=None, retry=FAST_RETRY, min_interval_s=0, **CREDENTIALS)
    with VCR.use_cassette("esearch.yaml") as cassette:
        found = client.esearch("biopython", 20)
    assert cassette.all_played
    assert found["count"] == 63 and len(found["pmids"]) == 20
    assert found["pmids"][:3] == ["41282813", "41148224", "41011574"] and found["pmids"][-1] == "37810457"
    assert (found["translation"], found["not_found"]) == ('"biopython"[All Fields]', [])


async def test_search_without_hits_makes_no_efetch(server):
    with VCR.use_cassette("search_empty.yaml") as cassette:
        data = structured(await call(server, "search", {"query": "abcXYZ"}))
    assert cassette.play_count == 1
    assert (data["passages"], data["total_count"], data["query_translation"]) == ([], 0, "(abcXYZ[All Fields])")
    assert data["message"] == (
        "No PubMed article matched 'abcXYZ'. PubMed did not find: 'abcXYZ'. "
        "Try fewer or different keywords, or another spelling."
    )


async def test_429_is_retried_after_the_time_retry_after_asks(server):
    with VCR.use_cassette("retry_429.yaml") as cassette:
        started = time.monotonic()
        data = structured(await call(server, "fetch_abstracts", FETCH))
        elapsed = time.monotonic() - started
    assert cassette.play_count == 2 and len(data["passages"]) == 2
    assert elapsed >= 0.2


async def test_5xx_on_every_attempt_is_one_line(server):
    with VCR.use_cassette("efetch_502.yaml") as cassette:
        message = error_text(await call(server, "fetch_abstracts", FETCH))
    assert cassette.play_count == 3  # our three attempts (Entrez's own retries are off)
    assert message == "PubMed returned HTTP 502 (Bad Gateway) after 3 attempts"


@pytest.mark.parametrize(
    "cassette_name, tool, arguments, expected",
    [
        (
            "malformed.yaml",
            "fetch_abstracts",
            FETCH,
            "PubMed returned a malformed response: not valid XML (no element found: line 4, column 691)",
        ),
        (
            "api_error.yaml",
            "search",
            {"query": '""'},
            "PubMed reported an error: Empty term and query_key - nothing todo",
        ),
    ],
)
async def test_a_bad_body_is_one_line(server, cassette_name, tool, arguments, expected):
    with VCR.use_cassette(cassette_name) as cassette:
        message = error_text(await call(server, tool, arguments))
    assert cassette.all_played and message == expected


async def test_a_timeout_is_one_line(tmp_path):
    server = create_server(ResponseCache(tmp_path), timeout_s=4, retry=FAST_RETRY, min_interval_s=0, **CREDENTIALS)
    with VCR.use_cassette("timeout.yaml"):
        message = error_text(await call(server, "fetch_abstracts", FETCH))
    assert message == "PubMed did not answer within 4s (timed out)"


async def test_without_a_cassette_the_network_is_unreachable_at_once(server, block_network):
    started = time.monotonic()
    message = error_text(await call(server, "fetch_abstracts", {"pmids": ["12091962"]}))
    assert time.monotonic() - started < 2  # one try, not Biopython's three tries 15 s apart
    assert message == "PubMed is unreachable: cannot resolve eutils.ncbi.nlm.nih.gov (no network or DNS?)"
    assert block_network == [("dns", "eutils.ncbi.nlm.nih.gov")]


def test_the_server_never_loads_entrez_dtd_machinery():
    # Bio.Entrez.Parser (Entrez.read) downloads DTDs it lacks, and creates ~/.config/biopython on import
    code = (
        "import sys, mermaid_verifier.tools.servers.pubmed_server as m; m.create_server(None); "
        "sys.exit('Bio.Entrez.Parser' in sys.modules)"
    )
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


async def test_a_book_chapter_is_read_from_its_book_document(server):
    with VCR.use_cassette("fetch_book.yaml") as cassette:
        data = structured(await call(server, "fetch_abstracts", {"pmids": ["20301577"]}))
    assert cassette.all_played
    [chapter] = data["passages"]
    assert_passage(chapter, "pubmed")
    assert (chapter["title"], chapter["journal"]) == ("CACNA1C-Related Disorders", "GeneReviews®")
    assert chapter["authors"] == ["Carlo Napolitano", "Silvia G Priori"]  # the chapter's, not the book's editors
    assert (chapter["publication_date"], chapter["published_at"], chapter["doi"]) == ("1993", day(1993, 1, 1), None)
    assert chapter["text"].startswith("CLINICAL CHARACTERISTICS: The clinical manifestations of CACNA1C-related")
    assert " DIAGNOSIS/TESTING: The diagnosis of a CACNA1C-related disorder" in chapter["text"]
    assert " GENETIC COUNSELING: CACNA1C-related disorders are inherited" in chapter["text"]
    assert "Copyright" not in chapter["text"]  # the abstract's CopyrightInformation is not abstract text


def test_medline_dates_parse():
    # No recording here carries a MedlineDate (a free-text date of older citations): the parser is
    # checked on the element alone.
    assert pubmed_xml.parse_date(ET.fromstring("<PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate>")) == (
        1998,
        12,
        None,
    )
    assert pubmed_xml.parse_date(ET.fromstring("<PubDate><MedlineDate>2001</MedlineDate></PubDate>")) == (
        2001,
        None,
        None,
    )


async def test_mathml_and_scripts_are_written_as_plain_text(server):
    with VCR.use_cassette("fetch_mathml.yaml") as cassette:
        data = structured(await call(server, "fetch_abstracts", {"pmids": ["30108519"]}))
    assert cassette.all_played
    [article] = data["passages"]
    text = article["text"]
    # <sup>-1</sup> is an exponent, not a hyphen: 'km·h-1' would read as a range
    assert "[_VMLSS 15.0 ± 1.1 km·h⁻¹; maximal oxygen uptake ( V̇O_2max ) 67.6 ± 4.1 ml·kg⁻¹·min⁻¹]" in text
    assert "(LE_min)" in text and "km·h-1" not in text
    # the MathML formula is written once, not as its leaves run together over the layout whitespace
    assert "V.O2max" not in text and "  " not in text
    assert article["doi"] == "10.3389/fphys.2018.01034"


async def test_an_esearch_that_says_its_backend_failed_is_retried(server):
    # NCBI answers HTTP 200 with <ERROR>Search Backend failed: ...</ERROR> while its search backend is down
    with VCR.use_cassette("esearch_backend_failed.yaml") as cassette:
        found = pubmed_server.PubmedClient(cache=None, retry=FAST_RETRY, min_interval_s=0, **CREDENTIALS).esearch(
            "biopython", 20
        )
    assert cassette.play_count == 2 and cassette.all_played
    assert found["count"] == 63 and len(found["pmids"]) == 20


async def test_an_efetch_400_that_passes_on_a_502_is_retried_and_says_why_if_it_persists(server):
    with VCR.use_cassette("efetch_backend_502.yaml") as cassette:
        data = structured(await call(server, "fetch_abstracts", FETCH))
    assert cassette.play_count == 2 and [p["pmid"] for p in data["passages"]] == ["12091962", "9997"]

    body = recorded_body("pubmed", "efetch_backend_502.yaml")
    reason = pubmed_xml.error_body_text(body)
    assert reason.startswith("Error: CEFetchPApplication::proxy_stream(): 502 Server Error")
    assert "Please try again in 30 seconds." in reason and "<" not in reason
    assert isinstance(pubmed_xml.eutils_error(reason), SourceBusyError)


async def test_pmids_pubmed_has_none_of_are_missing_not_an_error(server):
    # EFetch answers HTTP 400 'ID list is empty! Possibly it has no correct IDs.' when none is a record
    with VCR.use_cassette("fetch_no_valid_ids.yaml") as cassette:
        data = structured(await call(server, "fetch_abstracts", {"pmids": ["00000000"]}))
    assert cassette.play_count == 1
    assert (data["passages"], data["missing"]) == ([], ["0"])
    assert data["message"] == "PubMed has no article for PMID 0."


async def test_a_search_whose_records_do_not_come_says_so_not_that_nothing_matched(server):
    with VCR.use_cassette("search_unfetched.yaml") as cassette:
        data = structured(await call(server, "search", {"query": "biopython", "k": 20}))
    assert cassette.all_played
    assert (data["passages"], data["total_count"]) == ([], 63)
    assert data["message"] == (
        "PubMed matched 63 article(s) for 'biopython' but returned no record for PMID 41282813, 41148224, "
        "41011574, 40959146, 40937394 and 15 more. Try fetch_abstracts with these PMIDs, or search again later."
    )
    assert "No PubMed article matched" not in data["message"]


def test_a_whole_book_gives_the_books_authors_and_its_doi():
    # No recording of a book record with a DOI was found under a licence this project can ship; the
    # elements below are those of PubMed's PubmedBookArticle (PMID 29465922, as the PubMed site exports
    # it), cut to what the parser reads.
    record = pubmed_xml.parse_article(
        ET.fromstring(
            "<PubmedBookArticle><BookDocument><PMID Version='1'>29465922</PMID>"
            "<ArticleIdList><ArticleId IdType='bookaccession'>NBK481869</ArticleId>"
            "<ArticleId IdType='doi'>10.1007/978-3-319-25559-0</ArticleId></ArticleIdList>"
            "<Book><BookTitle book='spr9783319255576'>Safer Healthcare</BookTitle><PubDate><Year>2016</Year></PubDate>"
            "<AuthorList Type='authors'><Author><LastName>Vincent</LastName><ForeName>Charles</ForeName></Author>"
            "<Author><LastName>Amalberti</LastName><ForeName>René</ForeName></Author></AuthorList>"
            "<ELocationID EIdType='doi'>10.1007/978-3-319-25559-0</ELocationID></Book>"
            "</BookDocument></PubmedBookArticle>"
        )
    )
    assert (record["title"], record["journal"]) == ("Safer Healthcare", "Safer Healthcare")
    assert record["authors"] == ["Charles Vincent", "René Amalberti"]
    assert record["doi"] == "10.1007/978-3-319-25559-0"
