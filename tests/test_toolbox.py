"""The MCP client side: sessions kept for a run, failures turned into outcomes or typed errors."""

import sys
import tempfile
import time

import pytest

from mermaid_verifier.errors import ToolServerError
from mermaid_verifier.tools import sources
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


# The corpus server, after touching the file named first on its command line.
MARKED_SERVER = (
    "import pathlib, runpy, sys; pathlib.Path(sys.argv.pop(1)).touch(); "
    "runpy.run_module('mermaid_verifier.tools.servers.local_corpus_server', run_name='__main__', alter_sys=True)"
)


async def test_an_early_start_has_the_server_process_running_before_the_caller_holds_the_loop(tmp_path, monkeypatch):
    """``verify`` imports the graph, the parser and the stance model right after the early start, holding the
    event loop for seconds: the server's process must already be running then, not spawned after them, however
    long the thread that makes its error log takes."""
    real_temporary_file = tempfile.TemporaryFile

    def slow_temporary_file(*args, **kwargs):
        time.sleep(0.3)
        return real_temporary_file(*args, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryFile", slow_temporary_file)
    marker = tmp_path / "server-started"
    args = ["-c", MARKED_SERVER, str(marker), "--cache-dir", str(tmp_path / "index"), "--corpus", str(WIKI_MINI)]
    toolbox = Toolbox([stdio_server("local-corpus", sys.executable, args)])
    monkeypatch.setattr(sources, "toolbox_for", lambda settings, stop=None: (toolbox, {}))
    async with sources.toolbox_started_early(None) as (started, skipped, task):
        assert started is toolbox and skipped == {}
        deadline = time.monotonic() + 20
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # noqa: ASYNC251 - blocking on purpose, as imports are: the loop gets no turn here
        assert marker.exists(), "the server process was not started before the caller took the loop"
        await task
        outcome = await toolbox.call("local-corpus", "search", {"query": "Soul Food Fox 2000 Pictures", "k": 1})
    assert outcome.ok and outcome.data["passages"][0]["text"] == "It was released by Fox 2000 Pictures."


async def test_a_toolbox_with_no_server_process_counts_as_launched_once_starting(tmp_path):
    toolbox = Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path)])
    async with toolbox:
        assert toolbox.launched.is_set()


async def test_a_server_that_dies_at_start_still_ends_the_wait_for_its_launch():
    dying = stdio_server("broken", sys.executable, ["-c", "import sys; sys.exit(3)"])
    toolbox = Toolbox([dying])
    with pytest.raises(ToolServerError):
        await toolbox.start()
    assert toolbox.launched.is_set()
    await toolbox.aclose()


async def test_servers_start_together_and_the_one_that_fails_is_the_one_named(tmp_path):
    """The healthy server beside it (a process that writes warnings on stderr, as the live ones do when no
    contact address is set) is stopped, and its stderr is not mistaken for the failure."""
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        "import sys, runpy\n"
        "sys.stderr.write('WARNING no contact address set\\n'); sys.stderr.flush()\n"
        "runpy.run_module('mermaid_verifier.tools.servers.local_corpus_server', run_name='__main__', alter_sys=True)\n"
    )
    healthy = stdio_server(
        "healthy", sys.executable, [str(chatty), "--cache-dir", str(tmp_path / "i"), "--corpus", str(WIKI_MINI)]
    )
    missing = corpus_server([tmp_path / "no-such-corpus.jsonl"], tmp_path / "index")
    toolbox = Toolbox([healthy, missing])
    with pytest.raises(ToolServerError) as raised:
        await toolbox.start()
    await toolbox.aclose()
    assert str(raised.value).startswith("tool server 'local-corpus' failed:")
    assert "no-such-corpus.jsonl" in str(raised.value) and "no contact address" not in str(raised.value)
    assert toolbox.launched.is_set()


async def test_tools_are_listed_in_the_servers_order_whichever_starts_first(tmp_path):
    slow = stdio_server(
        "first",
        sys.executable,
        ["-c", MARKED_SERVER.replace(".touch();", ".touch(); __import__('time').sleep(1.0);"), str(tmp_path / "m")]
        + ["--cache-dir", str(tmp_path / "i"), "--corpus", str(WIKI_MINI)],
    )
    quick = in_process_corpus_server([WIKI_MINI], tmp_path)
    async with Toolbox([slow, quick]) as toolbox:
        assert list(toolbox.tools) == ["first", "local-corpus"]
        first = await toolbox.call("first", "search", {"query": "Mount Everest", "k": 1})
        second = await toolbox.call("local-corpus", "search", {"query": "Mount Everest", "k": 1})
    assert first.ok and second.ok and first.data["passages"] == second.data["passages"]
