"""The passage fields every evidence server returns, local or live: what the executor reads."""

from pydantic import BaseModel, Field


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
