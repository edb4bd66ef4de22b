"""Every evidence server's tools publish output schemas in the draft-07 dialect, and those schemas still check.

The MCP SDK validates each structured result against its tool's output schema on both ends of a call, and
each validation first checks the schema against its dialect's metaschema; draft 2020-12 (the dialect read
when a schema names none) makes that ~10x dearer than the search it checks."""

from pathlib import Path

import jsonschema
import pytest
from jsonschema import Draft7Validator
from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.tools.passage_record import JSON_SCHEMA_DIALECT
from mermaid_verifier.tools.servers import arxiv_server, local_corpus_server, pubmed_server, wikipedia_server

FIXTURES = Path(__file__).parent / "fixtures"


def servers(tmp_path: Path) -> dict[str, FastMCP]:
    return {
        "local": local_corpus_server.create_server([FIXTURES / "wiki_mini.jsonl"], tmp_path / "cache"),
        "wikipedia": wikipedia_server.create_server(None),
        "arxiv": arxiv_server.create_server(None),
        "pubmed": pubmed_server.create_server(None),
    }


@pytest.mark.parametrize("name", ["local", "wikipedia", "arxiv", "pubmed"])
async def test_every_tool_names_draft_07_and_its_schema_is_valid_there(tmp_path, name):
    async with create_connected_server_and_client_session(servers(tmp_path)[name]) as client:
        tools = (await client.list_tools()).tools
    assert tools
    for tool in tools:
        assert tool.outputSchema is not None, tool.name
        assert tool.outputSchema["$schema"] == JSON_SCHEMA_DIALECT, tool.name
        assert jsonschema.validators.validator_for(tool.outputSchema) is Draft7Validator
        Draft7Validator.check_schema(tool.outputSchema)
        # the dialect still checks the structure: a result missing its required fields is refused
        assert tool.outputSchema.get("required"), tool.name
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({}, tool.outputSchema)


async def test_a_search_result_passes_the_sdk_checks_on_both_ends(tmp_path):
    server = servers(tmp_path)["local"]
    async with create_connected_server_and_client_session(server) as client:
        await client.list_tools()
        result = await client.call_tool("search", {"query": "Stanley Kubrick directed", "k": 2})
    assert not result.isError, result.content
    hits = result.structuredContent["passages"]
    assert hits and all(hit["text"] for hit in hits)


async def test_a_result_of_the_wrong_shape_is_refused_by_the_draft_07_schema(tmp_path):
    server = servers(tmp_path)["local"]
    async with create_connected_server_and_client_session(server) as client:
        schema = next(t for t in (await client.list_tools()).tools if t.name == "search").outputSchema
    good = {"query": "q", "passages": []}
    jsonschema.validate(good, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"query": "q", "passages": [{"id": 3}]}, schema)
