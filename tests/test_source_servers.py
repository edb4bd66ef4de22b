"""What the online source servers share (tools/servers/source_errors.py, source_http.py, source_cache.py, source_server.py, source_passages.py), the test kit the three server test
modules import from here, and the proof that no test touches the network.

No test in these modules reaches the network: ``block_network`` (autouse here and in every module
that imports it) makes every socket connect and DNS look-up fail and records the attempt, and the
HTTP interactions are replayed from vcrpy cassettes under tests/cassettes/ with ``record_mode="none"``,
so a request a cassette does not hold fails loudly instead of going out. Every success body in them
is a response recorded by a public project's test fixtures; only error cases (status codes, time-outs,
truncation) are synthetic. tests/cassettes/SOURCES.md lists the origin and licence of each.
"""

import json
import logging
import os
import socket
import sqlite3
import sys
import time
import tomllib
import urllib.error
import urllib.request
from email.message import Message
from importlib import import_module
from pathlib import Path

import anyio
import diskcache
import pytest
import requests
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.fastmcp.exceptions import ToolError
from mcp.shared.memory import create_connected_server_and_client_session
from vcr.errors import CannotOverwriteExistingCassetteException

from mermaid_verifier.tools.servers import source_http
from mermaid_verifier.tools.servers.source_cache import ResponseCache
from mermaid_verifier.tools.servers.source_errors import (
    HTTPStatusError,
    MalformedResponse,
    RetriesExhausted,
    describe_error,
    parse_retry_after,
)
from mermaid_verifier.tools.servers.source_http import (
    RateLimiter,
    RetryPolicy,
    SourceSession,
    ncbi_min_interval,
    with_retries,
)
from mermaid_verifier.tools.servers.source_server import run_source_call

from .conftest import NetworkBlocked
from .source_kit import (  # noqa: F401
    CASSETTES,
    FAST_RETRY,
    PASSAGE_KEYS,
    assert_passage,
    call,
    error_text,
    listed_tools,
    recorded_body,
    source_vcr,
    structured,
)

pytestmark = pytest.mark.usefixtures("block_network")  # no test here reaches the network

REPO = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- the test kit


# ----------------------------------------------------------------------------- no network, ever


def test_a_socket_connect_to_a_public_address_is_refused(block_network):
    assert socket.socket.connect.__name__ == "refuse_connect"  # the guard is in place before we try
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        with pytest.raises(NetworkBlocked):
            sock.connect(("192.0.2.1", 443))  # TEST-NET-1: a documentation address
    with pytest.raises(OSError):
        socket.create_connection(("example.org", 443), timeout=0.5)
    assert block_network == [("connect", ("192.0.2.1", 443)), ("dns", "example.org")]


def test_a_request_without_a_cassette_fails_before_leaving_the_process(block_network):
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get("https://en.wikipedia.org/w/api.php", timeout=1)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/einfo.fcgi", timeout=1)
    assert [kind for kind, _ in block_network] == ["dns", "dns"]


def test_a_request_missing_from_a_cassette_fails_loudly(block_network):
    with source_vcr("wikipedia").use_cassette("search_titles.yaml") as cassette:
        with pytest.raises(CannotOverwriteExistingCassetteException):
            requests.get("https://en.wikipedia.org/w/api.php?action=query&list=random", timeout=1)
    assert cassette.play_count == 0 and block_network == []


# ----------------------------------------------------------------------------- retries


def flaky(*outcomes):
    """An attempt function that raises or returns each outcome in turn, counting calls."""
    calls = []

    def attempt():
        calls.append(1)
        outcome = outcomes[len(calls) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return attempt, calls


def test_429_then_success_waits_as_retry_after_says():
    attempt, calls = flaky(HTTPStatusError(429, retry_after=0.2), "ok")
    sleeps = []
    assert with_retries(attempt, RetryPolicy(), sleep=sleeps.append) == "ok"
    assert len(calls) == 2 and sleeps == [0.2]


def test_5xx_backs_off_exponentially_then_reports_the_attempts():
    attempt, calls = flaky(*[HTTPStatusError(503)] * 3)
    sleeps = []
    with pytest.raises(RetriesExhausted) as caught:
        with_retries(attempt, RetryPolicy(base_delay_s=0.5, jitter=0.0), sleep=sleeps.append)
    assert len(calls) == 3 and sleeps == [0.5, 1.0]
    assert describe_error("arXiv", caught.value) == "arXiv returned HTTP 503 (Service Unavailable) after 3 attempts"


def test_jitter_stays_within_its_fraction():
    attempt, _ = flaky(HTTPStatusError(502), "ok")
    sleeps = []
    with_retries(attempt, RetryPolicy(base_delay_s=1.0, jitter=0.1), sleep=sleeps.append, rng=lambda: 1.0)
    assert sleeps == [pytest.approx(1.1)]


@pytest.mark.parametrize(
    "failure",
    [
        HTTPStatusError(404),
        HTTPStatusError(501),
        HTTPStatusError(429, retry_after=120.0),  # longer than we are willing to wait: give up now
        requests.exceptions.ReadTimeout("read timed out"),
        requests.exceptions.ConnectionError(socket.gaierror(-2, "Name or service not known")),
        MalformedResponse("not valid JSON"),
    ],
)
def test_failures_not_worth_retrying_are_raised_at_once(failure):
    attempt, calls = flaky(failure, "ok")
    sleeps = []
    with pytest.raises(type(failure)):
        with_retries(attempt, RetryPolicy(), sleep=sleeps.append)
    assert len(calls) == 1 and sleeps == []


def test_connection_resets_are_retried():
    reset = requests.exceptions.ConnectionError(ConnectionResetError(104, "Connection reset by peer"))
    attempt, calls = flaky(reset, urllib.error.URLError(ConnectionResetError(104, "reset")), "ok")
    sleeps = []
    assert with_retries(attempt, RetryPolicy(base_delay_s=0.1, jitter=0.0), sleep=sleeps.append) == "ok"
    assert len(calls) == 3 and sleeps == [0.1, 0.2]


def test_retry_after_as_seconds_or_http_date():
    assert parse_retry_after("3") == 3.0 and parse_retry_after("0.2") == 0.2
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=1445412500.0) == pytest.approx(10.0)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412500.0) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert parse_retry_after("nan") is None  # float() parses it; it is no wait time


# ----------------------------------------------------------------------------- rate limit


def test_rate_limiter_spaces_requests_by_the_minimum_interval():
    now = [100.0]
    waits = []

    def sleep(seconds):
        waits.append(round(seconds, 4))
        now[0] += seconds

    limiter = RateLimiter(1 / 3, clock=lambda: now[0], sleep=sleep)
    for _ in range(4):
        limiter.wait()
    assert waits == [0.3333, 0.3333, 0.3333]
    now[0] += 5.0  # after a pause there is nothing to wait for
    assert limiter.wait() == 0.0


def test_ncbi_rate_limits_with_and_without_an_api_key():
    assert 1 / ncbi_min_interval(None) <= 3.0 < 1 / ncbi_min_interval(None) + 0.5
    assert 1 / ncbi_min_interval("key") <= 10.0 < 1 / ncbi_min_interval("key") + 1.5


# ----------------------------------------------------------------------------- cache


def test_cache_round_trips_json_and_normalises_arguments(tmp_path):
    cache = ResponseCache(tmp_path)
    assert cache.get("arxiv", "search", {"query": "graph  neural\nnets", "k": 2}) is None
    assert cache.set("arxiv", "search", {"query": "graph  neural\nnets", "k": 2}, [{"title": "GNN"}])
    assert cache.get("arxiv", "search", {"k": 2, "query": " graph neural nets "}) == [{"title": "GNN"}]
    assert cache.get("arxiv", "search", {"query": "graph neural nets", "k": 3}) is None
    assert cache.get("pubmed", "search", {"query": "graph neural nets", "k": 2}) is None
    cache.close()


def test_cache_entries_expire(tmp_path):
    cache = ResponseCache(tmp_path, expire_s=0.05)
    cache.set("wikipedia-en", "summary", {"title": "X"}, {"kind": "page"})
    assert cache.get("wikipedia-en", "summary", {"title": "X"}) == {"kind": "page"}
    time.sleep(0.1)
    assert cache.get("wikipedia-en", "summary", {"title": "X"}) is None
    cache.close()


def test_cache_stores_text_and_refuses_to_unpickle(tmp_path, caplog):
    cache = ResponseCache(tmp_path)
    cache.set("arxiv", "abstract", {"id": "1706.03762"}, [{"a": 1}])
    cache.close()
    with sqlite3.connect(tmp_path / "cache.db") as db:
        modes = {mode for (mode,) in db.execute("SELECT mode FROM Cache")}
    assert modes <= {diskcache.core.MODE_RAW, diskcache.core.MODE_TEXT}

    planted = diskcache.Cache(str(tmp_path))  # the default Disk pickles non-str values
    planted.set(ResponseCache.key("arxiv", "abstract", {"id": "1706.03762"}), {"pickled": True})
    planted.close()
    with caplog.at_level(logging.WARNING, logger="mermaid_verifier.tools.servers.source_cache"):
        assert ResponseCache(tmp_path).get("arxiv", "abstract", {"id": "1706.03762"}) is None
    assert "refusing to read" in caplog.text


def test_an_unusable_cache_is_skipped_not_fatal(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = ResponseCache(blocker / "cache")
    with caplog.at_level(logging.WARNING):
        assert cache.set("arxiv", "search", {"q": 1}, []) is False
        assert cache.get("arxiv", "search", {"q": 1}) is None
    assert "response cache disabled" in caplog.text


# ----------------------------------------------------------------------------- one-line errors


def _http_error(code: int, retry_after: str | None = None) -> urllib.error.HTTPError:
    headers = Message()
    if retry_after:
        headers["Retry-After"] = retry_after
    return urllib.error.HTTPError("https://eutils.ncbi.nlm.nih.gov/x", code, "", headers, None)


def test_errors_become_one_clear_line(block_network):
    with pytest.raises(requests.exceptions.ConnectionError) as offline:
        requests.get("https://en.wikipedia.org/w/api.php", timeout=1)
    cases = [
        (
            ("Wikipedia", offline.value, {"host": "en.wikipedia.org"}),
            "Wikipedia is unreachable: cannot resolve en.wikipedia.org (no network or DNS?)",
        ),
        (
            (
                "PubMed",
                urllib.error.URLError(socket.gaierror(-3, "Temporary failure in name resolution")),
                {"host": "eutils.ncbi.nlm.nih.gov"},
            ),
            "PubMed is unreachable: cannot resolve eutils.ncbi.nlm.nih.gov (no network or DNS?)",
        ),
        (
            (
                "arXiv",
                requests.exceptions.ConnectionError(ConnectionRefusedError(111, "Connection refused")),
                {"host": "export.arxiv.org"},
            ),
            "arXiv is unreachable: the connection to export.arxiv.org was refused",
        ),
        (
            ("arXiv", requests.exceptions.ReadTimeout("HTTPSConnectionPool(...): Read timed out."), {"timeout_s": 8}),
            "arXiv did not answer within 8s (timed out)",
        ),
        (("PubMed", TimeoutError("timed out"), {}), "PubMed did not answer (timed out)"),
        (
            ("PubMed", _http_error(429, "5"), {}),
            "PubMed returned HTTP 429 (Too Many Requests); it asks to wait 5s before trying again",
        ),
        (
            ("PubMed", RetriesExhausted(_http_error(502), 3), {}),
            "PubMed returned HTTP 502 (Bad Gateway) after 3 attempts",
        ),
        (
            ("Wikipedia", json.JSONDecodeError("Expecting value", "<html>", 0), {}),
            "Wikipedia returned a malformed response: not valid JSON (Expecting value: line 1 column 1 (char 0))",
        ),
        (
            ("arXiv", MalformedResponse("unexpected XML document <html>"), {}),
            "arXiv returned a malformed response: unexpected XML document <html>",
        ),
        (("Wikipedia", KeyError("query"), {}), "Wikipedia returned an unexpected response (KeyError: 'query')"),
    ]
    for (label, exc, kwargs), expected in cases:
        assert describe_error(label, exc, **kwargs) == expected
    long = describe_error("arXiv", RuntimeError("x" * 1000 + "\nsecond line"))
    assert "\n" not in long and len(long) <= 300


async def test_a_slow_call_is_cut_off_and_a_socket_timeout_is_not_mistaken_for_it():
    def slow():
        time.sleep(0.5)

    def socket_timeout():
        raise TimeoutError("timed out")

    started = time.monotonic()
    with pytest.raises(ToolError, match=r"^search gave up after 0.1s: arXiv is answering too slowly$"):
        await run_source_call("search", "arXiv", slow, call_timeout_s=0.1)
    assert time.monotonic() - started < 0.4
    with pytest.raises(ToolError, match=r"^arXiv did not answer within 2s \(timed out\)$"):
        await run_source_call("search", "arXiv", socket_timeout, call_timeout_s=5, timeout_s=2)


def test_source_session_puts_a_timeout_and_our_user_agent_on_every_request(monkeypatch):
    sent = []

    def fake_send(self, request, **kwargs):
        sent.append((request.headers["User-Agent"], kwargs["timeout"]))
        response = requests.Response()
        response.status_code, response._content, response.url = 200, b"{}", request.url
        return response

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", fake_send)
    monkeypatch.setenv("MERMAID_CONTACT", "factcheck-desk@example.org")
    session = SourceSession("arXiv", timeout_s=3.5)
    session.get("https://export.arxiv.org/api/query", headers={"user-agent": "arxiv.py/4"})
    session.get("https://export.arxiv.org/api/query", timeout=1.0)
    ours = source_http.user_agent_for("factcheck-desk@example.org")
    assert sent == [(ours, 3.5), (ours, 1.0)]


def test_the_user_agent_names_the_tool_the_contact_and_the_http_library():
    # Wikimedia's policy: '<client>/<version> (<contact information>) <library>/<version>'
    version = source_http._package_version()
    assert source_http.user_agent_for("https://example.org/desk") == (
        f"mermaid-verifier/{version} (https://example.org/desk; claim-verification tool) "
        f"python-requests/{requests.__version__}"
    )
    assert "set MERMAID_CONTACT" in source_http.user_agent_for(None)
    assert source_http.contact_from_env({"MERMAID_CONTACT": "  "}) is None


# ----------------------------------------------------------------------------- packaging, stdout


SERVER_MODULES = {
    "mermaid-verifier-wikipedia-server": "mermaid_verifier.tools.servers.wikipedia_server",
    "mermaid-verifier-arxiv-server": "mermaid_verifier.tools.servers.arxiv_server",
    "mermaid-verifier-pubmed-server": "mermaid_verifier.tools.servers.pubmed_server",
}


def test_console_scripts_and_dependencies_are_declared():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for script, module in SERVER_MODULES.items():
        assert project["scripts"][script] == f"{module}:main"
        assert callable(import_module(module).main)
    names = {d.split("=")[0].split("<")[0].split(">")[0].strip() for d in project["dependencies"]}
    assert {"wikipedia", "arxiv", "biopython"} <= names
    assert any(d.startswith("vcrpy") for d in project["optional-dependencies"]["dev"])


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "tools" / "servers").glob("*.py")))
def test_server_modules_never_print(name):
    source = (REPO / "tools" / "servers" / f"{name}.py").read_text()
    assert "print(" not in source and "sys.stdout" not in source


# ----------------------------------------------------------------------------- a real stdio process


def _stdio_cases():
    from mermaid_verifier.tools.servers import arxiv_server, pubmed_server, wikipedia_server

    return [
        (
            "wikipedia",
            wikipedia_server.create_server,
            "search_titles.yaml",
            "search_titles",
            {"query": "Python programming", "k": 10},
            "wikipedia",
            {},
        ),
        (
            "arxiv",
            arxiv_server.create_server,
            "search.yaml",
            "search",
            {"query": "testing", "k": 10},
            "arxiv",
            {"min_interval_s": 0},
        ),
        (
            "pubmed",
            pubmed_server.create_server,
            "fetch_abstracts.yaml",
            "fetch_abstracts",
            {"pmids": ["12091962", "9997"]},
            "pubmed",
            {"api_key": "test-key", "email": "t@example.org"},
        ),
    ]


@pytest.mark.parametrize("case", range(3), ids=["wikipedia", "arxiv", "pubmed"])
async def test_stdio_server_answers_from_its_cache(tmp_path, case):
    source, create_server, cassette, tool, arguments, server_name, kwargs = _stdio_cases()[case]
    cache_dir = tmp_path / "cache"
    # fill the cache in process from the cassette ...
    recorder = source_vcr(source, filter_query=("email", "tool", "api_key"))
    with recorder.use_cassette(cassette):
        server = create_server(ResponseCache(cache_dir), retry=FAST_RETRY, **kwargs)
        async with create_connected_server_and_client_session(server) as client:
            expected = structured(await client.call_tool(tool, arguments))
    # ... then a real server process answers the same call from it. Should it try the network, its
    # proxy is a closed port on this machine, so nothing leaves the host.
    env = {k: v for k, v in os.environ.items() if k.upper() not in ("NO_PROXY", "MERMAID_CACHE_DIR")}
    env.update(
        HTTP_PROXY="http://127.0.0.1:9",
        HTTPS_PROXY="http://127.0.0.1:9",
        http_proxy="http://127.0.0.1:9",
        https_proxy="http://127.0.0.1:9",
    )
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            SERVER_MODULES[f"mermaid-verifier-{source}-server"],
            "--cache-dir",
            str(cache_dir),
            "--timeout",
            "2",
            "--log-level",
            "INFO",
        ],
        cwd=tmp_path,
        env=env,
    )
    with (tmp_path / "stderr.log").open("w") as errlog:
        with anyio.fail_after(60):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    result = await session.call_tool(tool, arguments)
    assert init.serverInfo.name == server_name
    assert structured(result) == expected
