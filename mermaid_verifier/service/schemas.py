"""What the HTTP API takes and gives: requests, the error event that can end ``/v1/check``'s NDJSON stream (its
other events are the text job's, :mod:`mermaid_verifier.texts.events`), and the 422 body's shortening."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Literal

from pydantic import BaseModel, Field

from mermaid_verifier.claims import MAX_CLAIM_CHARS
from mermaid_verifier.texts import DEFAULT_CONCURRENCY, MAX_TEXT_CHARS
from mermaid_verifier.texts.events import TextEvent

MAX_SOURCES = 20
SHOWN_INPUT_CHARS = 200  # a 422 echoes at most this much of the input it refused


class VerifyRequest(BaseModel):
    claim: str = Field(min_length=1, max_length=MAX_CLAIM_CHARS, description="One claim, a sentence or two")


class SourceDocument(BaseModel):
    name: str = Field(
        min_length=1,
        max_length=200,
        pattern=r"^[^/\\\x00]*[^/\\\x00.][.](txt|md|markdown|html|htm|pdf)$",
        description="A plain file name (no folder) ending .txt, .md, .markdown, .html, .htm or .pdf",
    )
    content: str = Field(description="The document's text (UTF-8); for a .pdf, the file's bytes in base64")
    encoding: Literal["text", "base64"] = Field(
        default="text", description="How content is written: 'text', or 'base64' (a .pdf's bytes; required for one)"
    )

    def data(self) -> str | bytes:
        """The content as the reader takes it: the text, or a PDF's bytes; ``ValueError`` for a .pdf not sent in
        base64, another file sent so, or content that is not base64 (the check ends with an error event naming the
        file, as for a file that holds no text)."""
        if self.name.lower().endswith(".pdf") != (self.encoding == "base64"):
            raise ValueError("a .pdf is sent as its bytes in base64 (encoding 'base64'), any other file as its text")
        if self.encoding == "text":
            return self.content
        try:
            return base64.b64decode(self.content, validate=True)
        except binascii.Error:
            raise ValueError("its content is not base64") from None


class CheckRequest(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="The text to check")
    sources: list[SourceDocument] = Field(
        default_factory=list,
        max_length=MAX_SOURCES,
        description="Check the text against these documents only (grounding: is it backed by them?)",
    )
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1, le=8, description="Claims verified at once")


class ErrorEvent(TextEvent):
    """The check failed or ran out of time: the stream's last line."""

    event: Literal["error"] = "error"
    message: str


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    backend: str
    sources: list[str]


def shortened(error: dict) -> dict:
    """A validation error as FastAPI reports it (``loc``, ``msg``, ``type`` …), its echoed ``input`` cut to
    :data:`SHOWN_INPUT_CHARS` characters with a note of its full length: a refused 100,000-character text is
    not sent back whole."""
    if "input" not in error:
        return error
    value = error["input"]
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(shown) <= SHOWN_INPUT_CHARS:
        return error
    return {**error, "input": f"{shown[:SHOWN_INPUT_CHARS]}… (cut: {len(shown):,} characters in all)"}
