"""What a model reads from the tool servers: descriptions without source indentation, and arguments
that fail a tool's schema as one line it can act on (no pydantic type codes, no URL)."""

from __future__ import annotations

from mermaid_verifier.tools.toolbox import Toolbox

from ..conftest import WIKI_MINI, in_process_corpus_server


async def test_descriptions_are_dedented_and_bad_arguments_read_as_one_line(tmp_path):
    async with Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path / "index")]) as toolbox:
        for described in toolbox.tools["local-corpus"].values():
            assert described.description and "\n    " not in described.description
        outcome = await toolbox.call("local-corpus", "search", {"query": "Kubrick", "k": 0})
        assert not outcome.ok
        assert outcome.text == "search: invalid arguments: k: Input should be greater than or equal to 1 (got 0)"
        missing = await toolbox.call("local-corpus", "search", {"k": 3})
        assert missing.text.startswith("search: invalid arguments: query: Field required")
        assert "http" not in missing.text and "[type=" not in missing.text


def test_other_error_texts_are_left_as_they_are():
    from mermaid_verifier.tools.toolbox import readable_argument_error

    assert readable_argument_error("search timed out after 10s") == "search timed out after 10s"
