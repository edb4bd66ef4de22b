"""``mermaid-verifier mcp`` (mermaid_verifier/service/mcp_server.py): the verifier's own MCP server, through the
``mcp`` client in process (scripted stance model, in-process corpus server) and as a child over stdio (the real
models), with its limits, its errors and its progress notifications."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.fastmcp.exceptions import ToolError
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.config import Settings
from mermaid_verifier.models import GivenDocument, GroundingResult, TextCheckResult, VerificationResult
from mermaid_verifier.service.limits import Limits
from mermaid_verifier.service.mcp_server import Verifier, create_server
from mermaid_verifier.texts import GivenDocuments, TextJob
from mermaid_verifier.tools.toolbox import Toolbox
from mermaid_verifier.wiring import Overrides

from .conftest import MECHANICS_JUDGE, WIKI_MINI, ScriptedStance, in_process_corpus_server

RULES = {"directed by Stanley Kubrick": "supports", "located in the Himalayas": "refutes"}
TEXT = "Stanley Kubrick directed 2001: A Space Odyssey. Mount Everest is located in the Andes. Thanks!"


def opened(tmp_path, decomposer):
    settings = Settings.from_env({}, corpora=(WIKI_MINI,), cache_dir=tmp_path / "cache", use_memory=False)
    toolbox = Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path / "index")])
    return settings, TextJob.open(
        settings,
        overrides=Overrides(
            toolbox=toolbox, stance=ScriptedStance(RULES), decomposer=decomposer, judge_config=MECHANICS_JUDGE
        ),
    )


# ----------------------------------------------------------------------------- the tool functions, directly


async def test_the_tools_answer_with_the_apis_records(tmp_path, decomposer):
    settings, opening = opened(tmp_path, decomposer)
    async with opening as checker:
        grounding = GivenDocuments(ScriptedStance({"1923": "supports"}))
        verifier = Verifier(TextJob(checker.extractor, checker.open_sources, grounding))
        verdict = await verifier.verify_claim("  Stanley Kubrick directed\n2001: A Space Odyssey. ")
        assert (
            isinstance(verdict, VerificationResult)
            and verdict.claim == "Stanley Kubrick directed 2001: A Space Odyssey."
        )
        seen = []

        async def progress(done: int, total: int, message: str) -> None:
            seen.append((done, total))

        checked = await verifier.check_text(TEXT, progress)
        assert isinstance(checked, TextCheckResult) and len(checked.claims) == 2
        assert sorted(seen) == [(0, 2), (1, 2), (2, 2)]
        grounded = await verifier.check_grounding(
            "The harbour was rebuilt in 1923.",
            [GivenDocument(name="harbour.txt", text="The harbour was rebuilt in 1923 after a storm.")],
        )
        assert isinstance(grounded, GroundingResult) and grounded.sentences[0].label == "supported"
        with pytest.raises(ToolError, match="the claim is empty"):
            await verifier.verify_claim("   ")


async def test_a_text_past_the_claim_limit_and_checks_past_the_concurrency_limit_are_refused(tmp_path, decomposer):
    settings, opening = opened(tmp_path, decomposer)
    async with opening as checker:
        verifier = Verifier(checker, Limits(max_claims=1))
        with pytest.raises(ToolError, match="the text gives 2 claims; the limit is 1"):
            await verifier.check_text(TEXT)
        busy = Verifier(checker, Limits(max_concurrent=1))
        release = asyncio.Event()
        real_verify = checker.verify

        async def slow(claim: str):
            await release.wait()
            return await real_verify(claim)

        checker.verify = slow  # type: ignore[method-assign]
        first = asyncio.create_task(busy.verify_claim("Stanley Kubrick directed 2001: A Space Odyssey."))
        await asyncio.sleep(0.05)
        with pytest.raises(ToolError, match="1 checks are running; try again shortly"):
            await busy.verify_claim("Mount Everest is located in the Andes.")
        release.set()
        assert (await first).claim.startswith("Stanley Kubrick")


# ----------------------------------------------------------------------------- through the mcp client, in process


async def test_an_mcp_client_lists_the_tools_and_gets_structured_results_with_progress(tmp_path, decomposer):
    settings, opening = opened(tmp_path, decomposer)
    async with opening as checker:
        server = create_server(settings, checker=checker)
        updates = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            updates.append((progress, total, message))

        async with create_connected_server_and_client_session(server) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {"verify_claim", "check_text", "check_grounding"}
            assert tools["check_grounding"].inputSchema["required"] == ["text", "documents"]
            assert "verdict" in json.dumps(tools["verify_claim"].outputSchema)
            result = await client.call_tool("check_text", {"text": TEXT}, progress_callback=on_progress)
            assert not result.isError
            checked = TextCheckResult.model_validate(result.structuredContent)
            assert [c.claim.text for c in checked.claims] == [
                "Stanley Kubrick directed 2001: A Space Odyssey.",
                "Mount Everest is located in the Andes.",
            ]
            assert json.loads(result.content[0].text) == result.structuredContent  # the same JSON as text
            assert [u[:2] for u in updates][0] == (0, 2) and sorted(u[0] for u in updates) == [0, 1, 2]
            refused = await client.call_tool("verify_claim", {"claim": "x" * 5000})
            assert refused.isError and "verify_claim" in refused.content[0].text
            empty = await client.call_tool("check_text", {"text": "   "})
            assert empty.isError and empty.content[0].text.endswith(": the text is empty: give the text to check")
            grounded = await client.call_tool(
                "check_grounding",
                {
                    "text": "Mount Everest is located in the Andes. Mount Everest is listed on the Oslo Stock Exchange.",
                    "documents": [{"name": "everest.txt", "text": "Mount Everest is located in the Himalayas."}],
                },
            )
            # both read as refuted; only the first is about what the document states (where it is)
            claims = grounded.structuredContent["claims"]
            assert [c["status"] for c in claims] == ["contradicted", "not stated"]
            assert [c["contradicted"] for c in claims] == [True, False] and "states no" in claims[1]["reason"]
            assert [s["label"] for s in grounded.structuredContent["sentences"]] == ["contradicted", "not stated"]
            # documents as plain strings too, as RAG logs keep them: named "document N"
            plain = await client.call_tool(
                "check_grounding",
                {"text": "Mount Everest is located in the Andes.", "documents": ["Mount Everest is in the Himalayas."]},
            )
            assert not plain.isError, plain.content[0].text
            assert plain.structuredContent["claims"][0]["passage"]["name"] == "document 1"


# ----------------------------------------------------------------------------- as a child over stdio, real models


@pytest.fixture
def stdio_child(tmp_path):
    env = {
        **os.environ,
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
        "MERMAID_SOURCES": "local",
        "MERMAID_MEMORY": "0",
        "MERMAID_CORPUS": str(WIKI_MINI),
    }
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", "from mermaid_verifier.cli import main; main()", "mcp"],
        env=env,
        cwd=str(tmp_path),
    )


async def test_the_command_serves_mcp_over_stdio(stdio_child):
    async with stdio_client(stdio_child) as (read, write), ClientSession(read, write) as client:
        info = await client.initialize()
        assert info.serverInfo.name == "mermaid-verifier"
        verdict = await client.call_tool("verify_claim", {"claim": "Stanley Kubrick directed 2001: A Space Odyssey."})
        assert not verdict.isError
        result = VerificationResult.model_validate(verdict.structuredContent)
        assert result.evidence and result.evidence[0].source == "local-corpus"
        grounded = await client.call_tool(
            "check_grounding",
            {
                "text": "Mount Everest is in the Himalayas. It is 9,000 metres high.",
                "documents": [
                    {"name": "everest.txt", "text": "Mount Everest, in the Himalayas, is 8,849 metres high."}
                ],
            },
        )
        labels = [s["label"] for s in grounded.structuredContent["sentences"]]
        assert labels == ["supported", "contradicted"]  # the same slot, height: 8,849 metres
        assert [c["status"] for c in grounded.structuredContent["claims"]] == ["supported", "contradicted"]


# ----------------------------------------------------------------------------- streamable HTTP, as serve is safe


def test_over_http_beyond_loopback_a_token_is_required_before_anything_loads():
    from typer.testing import CliRunner

    from mermaid_verifier.cli import app

    done = CliRunner().invoke(app, ["mcp", "--transport", "http", "--host", "0.0.0.0"])
    assert done.exit_code == 2
    assert "--host 0.0.0.0 lets other machines in: give --token TOKEN" in done.stderr


async def test_the_command_serves_mcp_over_streamable_http_with_a_token(tmp_path, stdio_child):
    import httpx
    from mcp.client.streamable_http import streamable_http_client

    from mermaid_verifier.service.child import MCP_HTTP, serve_in_child

    with serve_in_child(["--token", "s3cret"], env=stdio_child.env, command=MCP_HTTP) as base:
        assert (await asyncio.to_thread(httpx.post, f"{base}/mcp", json={})).status_code == 401
        headers = {"Authorization": "Bearer s3cret"}
        async with (
            httpx.AsyncClient(headers=headers, timeout=120) as http,
            streamable_http_client(f"{base}/mcp", http_client=http) as (read, write, _),
        ):
            async with ClientSession(read, write) as client:
                await client.initialize()
                verdict = await client.call_tool("verify_claim", {"claim": "Mount Everest is in the Himalayas."})
                assert (
                    not verdict.isError and verdict.structuredContent["claim"] == "Mount Everest is in the Himalayas."
                )
        too_big = await asyncio.to_thread(
            httpx.post, f"{base}/mcp", content=b"x" * 1_100_000, headers={**headers, "content-type": "application/json"}
        )
        assert too_big.status_code == 413


def test_the_mcp_inspector_cli_lists_and_calls_the_tools(stdio_child):
    """With the MCP Inspector installed (``npm install @modelcontextprotocol/inspector``; its ``mcp-inspector`` on
    PATH or in ``MCP_INSPECTOR``), its CLI mode lists the tools and calls one over stdio. Skipped otherwise: npm is
    not part of the test environment."""
    import shutil
    import subprocess

    inspector = os.environ.get("MCP_INSPECTOR") or shutil.which("mcp-inspector")
    if not inspector:
        pytest.skip("the MCP Inspector is not installed (set MCP_INSPECTOR to its mcp-inspector)")
    settings = [
        part
        for key, value in stdio_child.env.items()
        if key.startswith("MERMAID_")
        for part in ("-e", f"{key}={value}")
    ]
    server = [stdio_child.command, *stdio_child.args]
    listed = subprocess.run(
        [inspector, "--cli", *settings, *server, "--method", "tools/list"], capture_output=True, text=True, timeout=180
    )
    assert listed.returncode == 0, listed.stderr
    assert {t["name"] for t in json.loads(listed.stdout)["tools"]} == {"verify_claim", "check_text", "check_grounding"}
    called = subprocess.run(
        [inspector, "--cli", *settings, *server, "--method", "tools/call", "--tool-name", "verify_claim",
         "--tool-arg", "claim=Mount Everest is in the Himalayas."],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["structuredContent"]["claim"] == "Mount Everest is in the Himalayas."
