"""``langgraph dev`` serves the graph named in the repository's langgraph.json: a run created over HTTP
returns a verdict, and stopping the server (Ctrl-C) leaves no process behind.

Starts the real LangGraph API server (``langgraph-cli[inmem]``, whose ``langgraph-api`` is under the
Elastic License 2.0: a development tool, not a dependency of mermaid-verifier), so it is a target of its
own: ``python -m pytest -m langgraph_dev``."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from mermaid_verifier.service.child import free_port

from .processes import command_line, live_processes, require_proc

pytestmark = pytest.mark.langgraph_dev

REPO = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 120
RUN_TIMEOUT_S = 180


def session_processes(session_id: int) -> dict[int, str]:
    """Live processes of a session (its leader's pid), with their command lines."""
    return {process.pid: command_line(process.pid) for process in live_processes() if process.session == session_id}


def http_json(method: str, url: str, body: dict | None = None, timeout: float = 10) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def wait_until_up(base: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"langgraph dev exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if http_json("GET", f"{base}/ok", timeout=2).get("ok"):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    pytest.fail(f"langgraph dev did not answer within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def langgraph_dev(tmp_path):
    """A ``langgraph dev`` server from the repository (no browser, no reload), in a session of its own."""
    pytest.importorskip("langgraph_api", reason="needs the LangGraph API server: pip install 'langgraph-cli[inmem]'")
    require_proc()  # before the server starts
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"id": "1", "title": "Mount Everest", "text": "Mount Everest is in the Himalayas."}) + "\n"
    )
    env = os.environ | {
        "MERMAID_CORPUS": str(corpus),
        "MERMAID_SOURCES": "local",
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
    }
    port = free_port()
    log = tmp_path / "langgraph-dev.log"
    command = [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload", "--port", str(port)]
    with log.open("w") as output:
        server = subprocess.Popen(
            [*command, "--config", str(REPO / "langgraph.json")],
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_up(f"http://127.0.0.1:{port}", server, log)
        yield f"http://127.0.0.1:{port}", server, log
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_a_run_over_http_returns_a_verdict_and_stopping_the_server_leaves_no_process(langgraph_dev):
    base, server, log = langgraph_dev
    assistants = http_json("POST", f"{base}/assistants/search", {"graph_id": "mermaid_verifier"})
    assert assistants, "langgraph.json's graph is registered"

    out = http_json(
        "POST",
        f"{base}/runs/wait",
        {"assistant_id": "mermaid_verifier", "input": {"claim": "Mount Everest is in the Himalayas."}},
        timeout=RUN_TIMEOUT_S,
    )

    assert "__error__" not in out, f"{out['__error__']}\n{log.read_text()[-3000:]}"
    assert out["verdict"]["label"] == "SUPPORTS"
    assert out["evidence"][0]["title"] == "Mount Everest"
    assert out["stats"]["tool_calls"] >= 1
    after_run = session_processes(server.pid)
    assert not [cmd for cmd in after_run.values() if "local_corpus_server" in cmd], "the run's corpus server closed"

    os.killpg(server.pid, signal.SIGINT)  # Ctrl-C in the terminal that runs langgraph dev
    assert server.wait(timeout=60) is not None
    deadline = time.monotonic() + 10
    while session_processes(server.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert session_processes(server.pid) == {}, "no process of the server's session outlives it"
