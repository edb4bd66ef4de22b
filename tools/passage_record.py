"""The records every evidence server returns, local or live: what the executor reads."""

from pydantic import BaseModel, ConfigDict, Field

JSON_SCHEMA_DIALECT = "http://json-schema.org/draft-07/schema#"


class ToolResult(BaseModel):
    """The structured result of a tool. Its JSON Schema (the tool's ``outputSchema``) names its dialect, draft-07.

    The MCP SDK checks every structured result against the tool's output schema, on the server before it is
    sent and in the client when it arrives, and each check first validates the schema itself against its
    dialect's metaschema. A schema that names no dialect is read as draft 2020-12, whose metaschema (dynamic
    references) costs ~20-40 ms a check here, more than the search itself; against draft-07's it is ~2 ms.
    The schemas pydantic writes for these records use nothing draft-07 lacks."""

    model_config = ConfigDict(json_schema_extra={"$schema": JSON_SCHEMA_DIALECT})


class PassageRecord(BaseModel):
    """One passage: where it sits (page, line), what it says, and which corpus or source it came from."""

    id: str = Field(description="Stable passage id: '<corpus>:<page>[:<line>]'.")
    page: str = Field(description="Page or document id (a corpus page, Wikipedia page name, arXiv id or PMID).")
    line: int | None = Field(description="Sentence number within the page, when it is split into sentences.")
    title: str = Field(description="Human-readable title of the page or paper.")
    text: str = Field(description="The passage text.")
    corpus: str = Field(
        description="Where it came from: a local corpus file's name, or 'wikipedia', 'arxiv', 'pubmed'."
    )
