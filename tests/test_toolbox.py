"""The MCP client side: sessions kept for a run, failures turned into outcomes or typed errors."""

import sys

import pytest

from mermaid_verifier.errors import ToolServerError
from mermaid_verifier.tools.toolbox import Toolbox, corpus_server, stdio_server

from .conftest import WIKI_MINI, in_process_corpus_server


async def test_calls_share_one_session_and_return_structured_passages(tmp_path):
    async with Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path)]) as toolbox:
        assert {"search", "get_page"} <= set(toolbox.tools["local-corpus"])
        first = await toolbox.call("local-corpus", "search", {"query": "Mount Everest", "k": 2})
        second = await toolbox.call("local-corpus", "get_page", {"title": "Soul Food (film)"})
    assert first.ok and first.data["passages"][0]["title"] == "Mount Everest"
    assert [p["line"] for p in second.data["passages"]] == [0, 1, 2]


async def test_tool_errors_and_unknown_tools_come_back_as_text(tmp_path):
    async with Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path)]) as toolbox:
        empty = await toolbox.call("local-corpus", "search", {"query": "   "})
        unknown = await toolbox.call("local-corpus", "fetch_url", {"url": "x"})
    assert not empty.ok and "query" in empty.text.lower()
    assert not unknown.ok and unknown.text.startswith("no tool local-corpus.fetch_url; available:")


async def test_a_server_that_dies_at_start_raises_one_clear_error():
    dying = stdio_server(
        "broken", sys.executable, ["-c", "import sys; sys.stderr.write('cannot open index\\n'); sys.exit(3)"]
    )
    toolbox = Toolbox([dying])
    with pytest.raises(ToolServerError, match="tool server 'broken' failed: cannot open index"):
        await toolbox.start()
    await toolbox.aclose()


async def test_real_stdio_corpus_server_round_trip(tmp_path):
    async with Toolbox([corpus_server([WIKI_MINI], tmp_path)]) as toolbox:
        outcome = await toolbox.call("local-corpus", "search", {"query": "Soul Food Fox 2000 Pictures", "k": 1})
    assert outcome.ok and outcome.data["passages"][0]["text"] == "It was released by Fox 2000 Pictures."


def test_server_names_must_be_unique(tmp_path):
    spec = in_process_corpus_server([WIKI_MINI], tmp_path)
    with pytest.raises(ToolServerError, match="unique"):
        Toolbox([spec, spec])
