"""A source that fails while a run goes on: the local-corpus server killed mid-run. The run ends in
bounded time with one line naming the server, exit 1, and keeps every claim it had decided."""

from __future__ import annotations

import json
import os
import signal

from ..processes import command_line, live_processes
from .fever_process import start_fever


def corpus_servers_of(parent: int) -> list[int]:
    children = [p.pid for p in live_processes() if p.parent == parent]
    return [pid for pid in children if "local_corpus_server" in command_line(pid)]


def test_a_corpus_server_killed_mid_run_ends_the_run_with_its_name_and_keeps_decided_claims(tmp_path):
    run = start_fever(tmp_path, 80)
    run.wait_for_results(3)
    servers = corpus_servers_of(run.process.pid)
    assert servers, "the run's corpus server was not found"
    for pid in servers:
        os.kill(pid, signal.SIGKILL)
    _, stderr = run.process.communicate(timeout=120)  # bounded: a hang fails here
    assert run.process.returncode == 1, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "local-corpus" in errors[0] and "Traceback" not in stderr
    assert "--resume" in errors[0]
    decided = [json.loads(line) for line in run.results.read_text().splitlines()]
    assert 3 <= len(decided) < 80 and len({row["id"] for row in decided}) == len(decided)


async def test_a_tool_server_that_never_answers_costs_the_call_timeout_not_the_run(make_resources, tmp_path):
    """A corpus server whose tools hang: each call ends at the toolbox's timeout as a failed outcome the
    executor reads, and the claim still gets its verdict (an abstention that found nothing), in bounded time."""
    import anyio
    from mcp.server.fastmcp import FastMCP
    from mcp.shared.memory import create_connected_server_and_client_session

    from mermaid_verifier.graph import build_graph
    from mermaid_verifier.tools.toolbox import ServerSpec, Toolbox

    from ..conftest import ScriptedStance

    hanging = FastMCP("local-corpus")

    @hanging.tool()
    async def search(query: str, k: int = 5) -> str:
        """Search the corpus."""
        await anyio.sleep(3600)
        return ""

    @hanging.tool()
    async def get_page(title: str) -> str:
        """One page."""
        await anyio.sleep(3600)
        return ""

    resources = make_resources(ScriptedStance({}), use_memory=False, max_steps=3)
    resources.toolbox = Toolbox(
        [ServerSpec("local-corpus", lambda: create_connected_server_and_client_session(hanging._mcp_server))],
        call_timeout_s=0.5,
    )
    try:
        with anyio.fail_after(30):  # three steps at 0.5 s each; a hang fails here
            out = await build_graph(resources).ainvoke({"claim": "Mount Everest is in the Himalayas."})
    finally:
        await resources.aclose()
    assert out["verdict"].abstained and out["evidence"] == []
    failed = [s for s in out["trace"] if s.action.startswith("local-corpus.")]
    assert failed and all("timed out" in s.observation.lower() or "timeout" in s.observation.lower() for s in failed)
