"""What the source servers' tests share: recorded HTTP (vcrpy cassettes), fast retries, calls through an MCP session, and how a passage must look."""

from __future__ import annotations

import json
from pathlib import Path

import vcr
import yaml
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools.servers.source_http import (
    RetryPolicy,
)

CASSETTES = Path(__file__).parent / "cassettes"

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02, jitter=0.0)

PASSAGE_KEYS = {"id", "page", "line", "title", "text", "corpus", "score", "url", "published_at", "authors"}


def simulated_failure(incoming, stored):
    """vcrpy matcher: a cassette request carrying ``X-Simulate-Failure`` makes the matching request
    fail the way a real connection would, while its response is awaited -- once per interaction."""
    kind = stored.headers.get("X-Simulate-Failure")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    same = (incoming.method, incoming.host, incoming.path, incoming.query) == (
        stored.method,
        stored.host,
        stored.path,
        stored.query,
    )
    if kind and same and not getattr(stored, "_failure_fired", False):
        stored._failure_fired = True
        if kind == "read-timeout":
            raise TimeoutError("timed out")
        if kind == "connection-reset":
            raise ConnectionResetError(104, "Connection reset by peer")
        raise AssertionError(f"unknown X-Simulate-Failure {kind!r}")
    return True


def source_vcr(source: str, *, filter_query: tuple[str, ...] = ()) -> vcr.VCR:
    """Replay-only cassettes for one source: any request not in the cassette raises."""
    recorder = vcr.VCR(
        cassette_library_dir=str(CASSETTES / source),
        record_mode="none",
        match_on=["method", "scheme", "host", "port", "path", "query", "simulated_failure"],
        filter_query_parameters=list(filter_query),
        decode_compressed_response=True,
    )
    recorder.register_matcher("simulated_failure", simulated_failure)
    return recorder


def recorded_body(source: str, name: str, interaction: int = 0) -> bytes:
    """The response body one of a source's cassettes replays."""
    data = yaml.safe_load((CASSETTES / source / name).read_text(encoding="utf-8"))
    return data["interactions"][interaction]["response"]["body"]["string"].encode("utf-8")


async def call(server, tool: str, arguments: dict):
    """One tool call on a FastMCP server, in process."""
    async with create_connected_server_and_client_session(server) as client:
        return await client.call_tool(tool, arguments)


async def listed_tools(server) -> dict:
    """The server's tools by name, as a client lists them."""
    async with create_connected_server_and_client_session(server) as client:
        return {t.name: t for t in (await client.list_tools()).tools}


def structured(result) -> dict:
    assert not result.isError, result.content
    assert result.structuredContent is not None
    assert json.loads(result.content[0].text) == result.structuredContent
    return result.structuredContent


def error_text(result) -> str:
    """A tool error's own line (FastMCP puts 'Error executing tool NAME: ' before it)."""
    assert result.isError, result
    text = result.content[0].text
    assert "\n" not in text, text
    prefix = "Error executing tool "
    if text.startswith(prefix):
        text = text.split(": ", 1)[1]
    assert len(text) <= 300, text
    return text


def assert_passage(passage: dict, corpus: str) -> None:
    assert PASSAGE_KEYS <= set(passage), passage
    assert passage["corpus"] == corpus and passage["id"].startswith(f"{corpus}:")
    assert passage["text"] and passage["title"] and passage["url"].startswith("https://")
