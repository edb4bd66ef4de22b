"""An LLM endpoint that is down: `fever` keeps no abstention it forced as a decided claim (each goes to
failures.jsonl for --resume, and five in a row stop the run with exit 1); `verify` prints the
abstention that says why and exits 1."""

from __future__ import annotations

import json
import socket

import pytest

from ..conftest import CLI, VERIFY, WIKI_MINI
from ..llm_stub import Reply, StubServer
from .fault_kit import one_error_line, run

CLAIM = "Stanley Kubrick directed 2001: A Space Odyssey."


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def dead_endpoint() -> dict[str, str]:
    return {
        "MERMAID_BACKEND": "llm",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1",
        "OPENAI_API_KEY": "test",
        "MERMAID_LLM_RETRIES": "0",
    }


def assert_fever_stops_after_five_failures(tmp_path, endpoint: dict[str, str]) -> None:
    """A fever run of 8 claims against ``endpoint``: five failures in a row stop it with exit 1, each in
    failures.jsonl for --resume, and no forced abstention counted as a verdict (no results, no metrics)."""
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "".join(json.dumps({"id": f"c{i}", "claim": CLAIM, "label": "SUPPORTS"}) + "\n" for i in range(8))
    )
    out = tmp_path / "out"
    args = ["fever", str(claims), "--corpus", str(WIKI_MINI), "--no-memory", "--concurrency", "1", "--out", str(out)]
    done = run(CLI, tmp_path, *args, **endpoint)
    assert done.returncode == 1, done.stderr
    one_error_line(done, "in a row failed", "--resume")
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert len(failures) == 5 and all("LLMServiceError" in f["error"] for f in failures)
    results = out / "results.jsonl"
    assert not results.exists() or results.read_text() == ""
    assert not (out / "metrics.json").exists()


def test_fever_against_a_dead_endpoint_records_failures_and_stops(tmp_path):
    assert_fever_stops_after_five_failures(tmp_path, dead_endpoint())


def test_verify_against_a_dead_endpoint_prints_the_abstention_and_exits_1(tmp_path):
    done = run(VERIFY, tmp_path, "--json", "--corpus", str(WIKI_MINI), "--no-memory", CLAIM, **dead_endpoint())
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["abstained"] is True
    one_error_line(done, "LLM endpoint failed on 1 of 1")


@pytest.mark.parametrize(
    "reply, timeout",
    [(Reply(500, {"error": {"message": "model crashed"}}), "120"), (Reply(200, {}, delay=3.0), "1")],
    ids=["http-500", "timing-out"],
)
def test_fever_against_an_endpoint_that_fails_or_times_out_records_failures_and_stops(tmp_path, reply, timeout):
    with StubServer([reply] * 40) as stub:
        endpoint = dead_endpoint() | {"OPENAI_BASE_URL": stub.url, "MERMAID_LLM_TIMEOUT": timeout}
        assert_fever_stops_after_five_failures(tmp_path, endpoint)
