"""Whole texts: the one text job (:mod:`.job`) extracts a text's claims, reads each with a reader and gives the
result once; its two readers (:mod:`.readers`) are verification against open sources (``check``, the API's
``/v1/check``, the MCP tool ``check_text``) and grounding against the documents given with the text (:mod:`.grounding`:
``check --source``, the API's ``sources``, ``check_grounding``). Every way in reads the job's one stream of typed
events (:mod:`.events`); :mod:`.report` renders a checked text as a page of its own (``check --html``).

    from mermaid_verifier.texts import check_grounding, check_text
"""

from mermaid_verifier.claims import MAX_TEXT_CHARS
from mermaid_verifier.texts.grounding import MAX_DOCUMENTS, GivenDocuments, GroundingConfig
from mermaid_verifier.texts.job import TextJob, check_grounding, check_text, text_job_graph
from mermaid_verifier.texts.readers import DEFAULT_CONCURRENCY, OpenSources, Reader

__all__ = [
    "DEFAULT_CONCURRENCY",
    "MAX_DOCUMENTS",
    "MAX_TEXT_CHARS",
    "GivenDocuments",
    "GroundingConfig",
    "OpenSources",
    "Reader",
    "TextJob",
    "check_grounding",
    "check_text",
    "text_job_graph",
]
