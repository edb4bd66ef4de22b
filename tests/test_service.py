"""The HTTP service: a real ``mermaid-verifier serve`` process on loopback, reached with httpx; the limits and
the token in process (FastAPI's TestClient); the bind guard on the command line."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import subprocess
import threading
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from mermaid_verifier.config import Settings
from mermaid_verifier.errors import ServiceStartError
from mermaid_verifier.service import Limits, create_app
from mermaid_verifier.service.child import SERVE, serve_in_child
from mermaid_verifier.tools.toolbox import Toolbox
from mermaid_verifier.wiring import Overrides

from .conftest import MECHANICS_JUDGE, WIKI_MINI, ScriptedStance, in_process_corpus_server
from .processes import live_processes

TEXT = "Stanley Kubrick directed 2001: A Space Odyssey. He was born in the Bronx. Thanks for reading!"


def serve_env(folder: Path) -> dict[str, str]:
    """The environment of a ``serve`` process over the local corpus alone, its cache in ``folder``, no memory."""
    return {**os.environ, "MERMAID_CACHE_DIR": str(folder / "cache"), "MERMAID_SOURCES": "local", "MERMAID_MEMORY": "0"}


def events(response: httpx.Response) -> list[dict]:
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``mermaid-verifier serve`` in its own process over the test corpus; stopped (and waited for) at the end."""
    tmp = tmp_path_factory.mktemp("serve")
    with serve_in_child(["--corpus", str(WIKI_MINI), "--max-claims", "5"], env=serve_env(tmp)) as base:
        yield base


def test_a_service_that_cannot_start_is_reported_with_its_error_and_leaves_no_process(tmp_path):
    before = {p.pid for p in live_processes()}
    with pytest.raises(ServiceStartError) as failure:
        with serve_in_child(["--corpus", str(tmp_path / "missing.jsonl")], env=serve_env(tmp_path)):
            pytest.fail("a service over a missing corpus must not become ready")
    assert str(failure.value) == f"serve exited with 2: error: corpus file not found: {tmp_path / 'missing.jsonl'}"
    assert not [p for p in live_processes() if p.pid not in before and p.parent == os.getpid()]


def test_the_service_process_is_stopped_when_the_block_fails(tmp_path):
    before = {p.pid for p in live_processes() if p.parent == os.getpid()}  # e.g. a module's own server
    children = []
    with pytest.raises(RuntimeError, match="the caller's own failure"):
        with serve_in_child(["--corpus", str(WIKI_MINI)], env=serve_env(tmp_path)) as base:
            assert httpx.get(f"{base}/healthz").status_code == 200
            children = [p.pid for p in live_processes() if p.parent == os.getpid() and p.pid not in before]
            raise RuntimeError("the caller's own failure")
    assert children, "the service ran as a child of this process"
    alive = {p.pid for p in live_processes()}
    assert not alive & set(children)


def test_health_says_what_the_service_searches(server):
    health = httpx.get(f"{server}/healthz").json()
    assert health == {"status": "ok", "backend": "offline", "sources": ["local-corpus"]}


def test_verify_answers_one_claim_with_its_evidence(server):
    response = httpx.post(f"{server}/v1/verify", json={"claim": "Mount Everest is in the Himalayas."}, timeout=120)
    assert response.status_code == 200
    result = response.json()
    assert result["verdict"] in {"SUPPORTS", "REFUTES", "NOT ENOUGH INFO"}
    assert result["evidence"][0]["title"] == "Mount Everest"


def test_check_streams_the_extraction_each_claim_once_then_the_summary(server):
    with httpx.stream("POST", f"{server}/v1/check", json={"text": TEXT}, timeout=120) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.iter_lines() if line.strip()]
    kinds = [line["event"] for line in lines]
    assert kinds == ["extraction", "claim", "claim", "summary"]
    extraction = lines[0]
    assert [c["text"] for c in extraction["claims"]] == [
        "Stanley Kubrick directed 2001: A Space Odyssey.",
        "Stanley Kubrick was born in the Bronx.",
    ]
    assert [d["sentence"] for d in extraction["dropped"]] == ["Thanks for reading!"]
    assert sorted(line["checked"]["index"] for line in lines[1:3]) == [0, 1]
    summary = lines[-1]["summary"]
    assert summary["claims"] == 2 and summary["sentences_without_claims"] == 1


def test_check_against_uploaded_documents_is_grounding_on_them_only(server):
    body = {
        "text": "The harbour of Holm Island was rebuilt in 1923. It has a lighthouse painted blue.",
        "sources": [
            {
                "name": "harbour.md",
                "content": "# Holm Island\n\nThe harbour of Holm Island was rebuilt in 1923 after a storm.",
            }
        ],
    }
    lines = events(httpx.post(f"{server}/v1/check", json=body, timeout=120))
    assert [line["event"] for line in lines] == ["extraction", "grounded", "grounded", "grounding"]
    result = lines[-1]["result"]
    assert result["documents"] == ["harbour.md"]
    first, second = result["sentences"]
    assert first["label"] == "supported" and second["label"] == "not stated"
    assert [line["grounded"]["status"] for line in lines[1:3]].count("not stated") == 1
    passage = first["passage"]
    assert passage["name"] == "harbour.md" and "rebuilt in 1923" in passage["text"]
    assert second["unsupported"] == ["The harbour of Holm Island has a lighthouse painted blue."]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_a_pdf_is_uploaded_as_its_bytes_and_its_spans_index_the_text_read_out_of_it(server):
    pdf = (Path(__file__).parent / "fixtures" / "documents" / "harbour.pdf").read_bytes()
    body = {
        "text": "The harbour of Holm Island was rebuilt in 1923. It has a lighthouse painted blue.",
        "sources": [{"name": "harbour.pdf", "content": base64.b64encode(pdf).decode(), "encoding": "base64"}],
    }
    lines = events(httpx.post(f"{server}/v1/check", json=body, timeout=120))
    assert [line["event"] for line in lines] == ["extraction", "grounded", "grounded", "grounding"]
    result = lines[-1]["result"]
    assert [s["label"] for s in result["sentences"]] == ["supported", "not stated"]
    assert result["spans"] == {"harbour.pdf": "extracted text"}
    passage = result["sentences"][0]["passage"]
    text = result["extracted_texts"]["harbour.pdf"]
    assert text.startswith("The harbour of Holm Island was rebuilt in 1923 after a storm")
    assert text[passage["start"] : passage["end"]] == passage["text"]


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ({"name": "harbour.pdf", "content": "%PDF-1.4"}, "harbour.pdf: a .pdf is sent as its bytes in base64"),
        ({"name": "notes.md", "content": "IyBOb3Rlcw==", "encoding": "base64"}, "notes.md: a .pdf is sent as its"),
        ({"name": "harbour.pdf", "content": "not base64 at all!", "encoding": "base64"}, "harbour.pdf: its content is"),
        ({"name": "harbour.pdf", "content": _b64(b"%PDF-1.4 no"), "encoding": "base64"}, "harbour.pdf: not a readable"),
    ],
)
def test_a_source_sent_in_the_wrong_form_or_unreadable_ends_the_check_with_one_error_naming_it(server, source, said):
    body = {"text": "Paris is in France.", "sources": [source]}
    lines = events(httpx.post(f"{server}/v1/check", json=body, timeout=60))
    assert [line["event"] for line in lines] == ["error"] and lines[0]["message"].startswith(said)


@pytest.mark.parametrize("name", ["../../etc/passwd.txt", "/etc/hosts.txt", "notes.exe", "a/b.md"])
def test_a_source_is_uploaded_text_never_a_server_path(server, name):
    body = {"text": "Paris is in France.", "sources": [{"name": name, "content": "x"}]}
    response = httpx.post(f"{server}/v1/check", json=body, timeout=30)
    assert response.status_code == 422


def test_a_text_with_too_many_claims_ends_with_an_error_event(server):
    text = " ".join(f"Stanley Kubrick directed film number {n}." for n in range(8))
    lines = events(httpx.post(f"{server}/v1/check", json={"text": text}, timeout=120))
    assert [line["event"] for line in lines] == ["error"]
    assert "the limit is 5" in lines[0]["message"]


def test_bad_requests_are_refused_with_a_reason(server):
    assert httpx.post(f"{server}/v1/verify", json={"claim": ""}).status_code == 422
    assert httpx.post(f"{server}/v1/check", json={"text": "x" * 100_001}).status_code == 422
    too_big = httpx.post(
        f"{server}/v1/check",
        content=b'{"text": "' + b"x" * 1_100_000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert too_big.status_code == 413 and "the limit is 1,000,000" in too_big.json()["detail"]


def test_the_page_is_served_with_a_content_security_policy(server):
    page = httpx.get(f"{server}/")
    assert page.status_code == 200 and "<textarea" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "innerHTML" not in page.text  # the page writes data only as text


def test_the_schema_describes_the_api(server):
    schema = httpx.get(f"{server}/openapi.json").json()
    assert {"/v1/verify", "/v1/check", "/healthz"} <= set(schema["paths"])


# ----------------------------------------------------------------------------- in process: token and limits


class BlockingStance(ScriptedStance):
    """Holds every scoring call until released: a check that is still running."""

    def __init__(self):
        super().__init__({})
        self.started = threading.Event()
        self.release = threading.Event()

    def probabilities(self, claim, evidence):
        self.started.set()
        self.release.wait(timeout=60)
        return super().probabilities(claim, evidence)

    async def aprobabilities(self, claim, evidence):  # blocks a worker thread, as the ONNX model does
        return await asyncio.to_thread(self.probabilities, claim, evidence)


def app_for(tmp_path: Path, decomposer, stance, **options):
    settings = Settings.from_env({}, corpora=(WIKI_MINI,), cache_dir=tmp_path / "cache", use_memory=False)
    toolbox = Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path / "index")])
    overrides = Overrides(toolbox=toolbox, stance=stance, decomposer=decomposer, judge_config=MECHANICS_JUDGE)
    return create_app(settings, overrides=overrides, **options)


def test_with_a_token_every_api_call_needs_it(tmp_path, decomposer):
    app = app_for(tmp_path, decomposer, ScriptedStance({}), token="s3cret")
    with TestClient(app) as client:
        claim = {"claim": "Mount Everest is in the Himalayas."}
        assert client.post("/v1/verify", json=claim).status_code == 401
        wrong = client.post("/v1/verify", json=claim, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        assert client.post("/v1/verify", json=claim, headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert client.post("/v1/check", json={"text": "Paris is in France."}).status_code == 401
        assert client.get("/healthz").status_code == 200 and client.get("/").status_code == 200


def test_checks_beyond_the_limit_get_429_while_one_runs(tmp_path, decomposer):
    stance = BlockingStance()
    app = app_for(tmp_path, decomposer, stance, limits=Limits(max_concurrent=1))
    with TestClient(app) as client:
        first: dict = {}
        runner = threading.Thread(
            target=lambda: first.update(r=client.post("/v1/verify", json={"claim": "Mount Everest is in Nepal."}))
        )
        runner.start()
        try:
            assert stance.started.wait(timeout=60)
            busy = client.post("/v1/check", json={"text": "Mount Everest is in the Andes."})
            assert busy.status_code == 429 and busy.headers["retry-after"] == "5"
        finally:
            stance.release.set()
            runner.join(timeout=60)
        assert first["r"].status_code == 200
        assert client.post("/v1/verify", json={"claim": "Mount Everest is in Nepal."}).status_code == 200


def test_a_request_over_its_time_limit_is_told_so(tmp_path, decomposer):
    stance = BlockingStance()
    app = app_for(tmp_path, decomposer, stance, limits=Limits(request_timeout_s=1))
    with TestClient(app) as client:
        try:
            slow = client.post("/v1/verify", json={"claim": "Mount Everest is in Nepal."})
            assert slow.status_code == 504 and "within 1 s" in slow.json()["detail"]
        finally:
            stance.release.set()


def test_serving_beyond_this_machine_needs_a_token_or_no_auth():
    done = subprocess.run([*SERVE, "--host", "0.0.0.0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --host 0.0.0.0 lets other machines in: give --token TOKEN (clients send 'Authorization: Bearer "
        "TOKEN') or, to serve without one, --no-auth"
    ]


def test_a_port_in_use_is_one_line_naming_it_and_nothing_starts(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*SERVE, "--port", str(port), "--corpus", str(WIKI_MINI)],
            capture_output=True,
            text=True,
            timeout=120,
            env=serve_env(tmp_path),
        )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: address already in use; choose another --port or --host"
    ]


# ----------------------------------------------------------------------------- the page in a real browser

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def browser_page():
    playwright_api = pytest.importorskip("playwright.async_api", reason="playwright is not installed (dev extra)")
    if not Path(CHROMIUM).exists():
        pytest.skip("no Chromium at /usr/bin/chromium (Debian package 'chromium')")
    return playwright_api


async def test_the_page_shows_claims_as_they_are_decided_and_opens_their_evidence(server, browser_page, tmp_path):
    planted = 'Mount Everest is in the Andes <img src=x onerror="window.pwned=1">.'
    async with browser_page.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{server}/")
            await page.fill("#input", f"{TEXT} {planted}")
            await page.click("#go")
            # the page's CSP forbids eval, so the waits and reads are Playwright's own locators
            await page.locator("#summary", has_text="claims:").wait_for(timeout=120_000)
            verdicts = await page.locator("#claims li .verdict").all_text_contents()
            assert len(verdicts) == 3 and not any("checking" in v for v in verdicts)
            tones = [await span.get_attribute("class") for span in await page.locator("#text .s").all()]
            assert tones[-2] == "s dropped" and "s pending" not in tones
            # the sentence left out is in the list too, where it stands in the text, with its reason
            listed = await page.locator("#claims > li").all_text_contents()
            left_out = [item for item in listed if item.startswith("not checked: ")]
            assert len(left_out) == 1 and " — " in left_out[0] and listed.index(left_out[0]) == len(listed) - 2
            assert "3 claims: " in await page.locator("#summary").text_content()
            # one claim per sentence here: each sentence takes its claim's colour, whatever the model decided
            shown = {"SUPPORTS": "s supports", "REFUTES": "s refutes", "NOT ENOUGH INFO": "s nei"}
            expected = ["s abstained" if "(abstained)" in v else shown[v.rsplit(" ", 1)[0]] for v in verdicts]
            assert [tone for tone in tones if tone != "s dropped"] == expected
            assert await page.locator("img").count() == 0  # the planted markup stayed text
            assert "<img" in await page.locator("#text").text_content()
            first = page.locator("#claims li").first
            assert not await first.locator(".evidence").is_visible()
            await first.click()
            assert await first.locator(".evidence").is_visible()
            assert "2001: A Space Odyssey" in await first.locator(".evidence").text_content()
            shot = tmp_path / "page.png"
            await page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
        finally:
            await browser.close()


# ----------------------------------------------------------------------------- the schema, fuzzed

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (dev extra)")
from hypothesis import HealthCheck, given  # noqa: E402
from hypothesis import settings as fuzzing  # noqa: E402


def test_the_api_holds_to_its_schema_for_any_input(server):
    """No input makes a 5xx, and every answer matches what the schema says (status, type, body). Driven
    through schemathesis's strategies with Hypothesis directly (its pytest plugin does not load on pytest 9)."""
    schema = schemathesis.openapi.from_url(f"{server}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {operation.path for operation in operations} >= {"/v1/verify", "/v1/check", "/healthz"}
    for operation in operations:

        @given(case=operation.as_strategy())
        @fuzzing(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
        def holds(case):
            case.call_and_validate(timeout=120)

        holds()


async def test_the_page_checks_a_text_against_uploaded_documents(server, browser_page, tmp_path):
    document = tmp_path / "harbour.md"
    document.write_text("# Holm Island\n\nThe harbour of Holm Island was rebuilt in 1923 after a storm.\n")
    text = "The harbour of Holm Island was rebuilt in 1923. It has a lighthouse painted blue."
    async with browser_page.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{server}/")
            await page.fill("#input", text)
            await page.set_input_files("#documents", str(document))
            await page.click("#go")
            await page.locator("#summary", has_text="sentences:").wait_for(timeout=120_000)
            assert (
                "1 supported, 0 partially supported, 0 contradicted, 1 not stated"
                in await page.locator("#summary").text_content()
            )
            tones = [await span.get_attribute("class") for span in await page.locator("#text .s").all()]
            assert tones == ["s grounded-supported", "s grounded-not-stated"]
            labels = await page.locator("#claims li .verdict").all_text_contents()
            assert labels == ["SUPPORTED", "NOT STATED"]  # a label, no bare number beside it
            first = page.locator("#claims li").first
            await first.click()
            shown = await first.locator(".evidence").text_content()
            assert "rebuilt in 1923 after a storm" in shown and "harbour.md, characters" in shown
            assert "the reader's probability that it supports the claim: 0." in shown
            assert await page.locator("#status").text_content() == "done"
            assert (await page.locator("#summary").text_content()).startswith("2 sentences: ")
        finally:
            await browser.close()


async def test_the_page_uploads_a_pdf_and_says_its_spans_index_the_text_read_out_of_it(server, browser_page):
    pdf = Path(__file__).parent / "fixtures" / "documents" / "harbour.pdf"
    async with browser_page.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{server}/")
            assert ".pdf" in await page.get_attribute("#documents", "accept")
            await page.fill("#input", "The harbour of Holm Island was rebuilt in 1923.")
            await page.set_input_files("#documents", str(pdf))
            await page.click("#go")
            await page.locator("#summary", has_text="1 sentence:").wait_for(timeout=120_000)
            assert await page.locator("#claims li .verdict").all_text_contents() == ["SUPPORTED"]
            first = page.locator("#claims li").first
            await first.click()
            shown = await first.locator(".evidence").text_content()
            assert "rebuilt in 1923 after a storm" in shown
            assert "harbour.pdf, characters 0–" in shown and "of the text read out of the PDF" in shown
        finally:
            await browser.close()
