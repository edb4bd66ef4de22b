"""Every evidence source, named once: what ``MERMAID_SOURCES`` calls it, the MCP server that serves it (its module,
its console script, the name its evidence carries), the host a run probes before starting it, what kind of source
it is (its credibility prior) and the first thing the offline executor asks of it.

Read by the settings (the names ``MERMAID_SOURCES`` accepts), the toolbox (which server to start and which host
to probe), the executor (the source kind of each item, and the live sources' first actions, in this order) and
checked against ``pyproject.toml``'s console scripts by ``tests/test_source_registry.py``. A new source is one
entry here plus its server under ``tools/servers/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mermaid_verifier.models import SourceKind


@dataclass(frozen=True)
class FirstAction:
    """What the offline executor asks a live source first, right after the first local search."""

    tool: str
    asks: Literal["subject_page", "claim_search"]  # the subject's page by title, or a search of the whole claim
    thought: str  # the executor's note for the trace ({subject!r} is filled in for a page)


@dataclass(frozen=True)
class SourceSpec:
    name: str  # as MERMAID_SOURCES names it
    server: str  # the MCP server's name: its tools' prefix and its evidence's ``source``
    module: str  # the server's module (started as ``python -m``)
    script: str  # its console script
    host: str | None  # probed before a run starts it; None for a local source
    kind: SourceKind
    first_action: FirstAction | None = None  # None: planned by the executor's own local steps


SOURCES: tuple[SourceSpec, ...] = (
    SourceSpec(
        name="wikipedia",
        server="wikipedia",
        module="mermaid_verifier.tools.servers.wikipedia_server",
        script="mermaid-verifier-wikipedia-server",
        host="en.wikipedia.org",
        kind=SourceKind.ENCYCLOPEDIA,
        first_action=FirstAction(
            "page_sentences", "subject_page", "Read the Wikipedia page about the subject, {subject!r}."
        ),
    ),
    SourceSpec(
        name="arxiv",
        server="arxiv",
        module="mermaid_verifier.tools.servers.arxiv_server",
        script="mermaid-verifier-arxiv-server",
        host="export.arxiv.org",
        kind=SourceKind.PREPRINT,
        first_action=FirstAction("search", "claim_search", "Search arXiv preprints for the claim."),
    ),
    SourceSpec(
        name="pubmed",
        server="pubmed",
        module="mermaid_verifier.tools.servers.pubmed_server",
        script="mermaid-verifier-pubmed-server",
        host="eutils.ncbi.nlm.nih.gov",
        kind=SourceKind.PEER_REVIEWED,
        first_action=FirstAction("search", "claim_search", "Search PubMed abstracts for the claim."),
    ),
    SourceSpec(
        name="local",
        server="local-corpus",
        module="mermaid_verifier.tools.servers.local_corpus_server",
        script="mermaid-verifier-corpus-server",
        host=None,
        kind=SourceKind.LOCAL_CORPUS,
    ),
)
BY_NAME = {source.name: source for source in SOURCES}
BY_SERVER = {source.server: source for source in SOURCES}
NAMES = tuple(source.name for source in SOURCES)
LIVE = tuple(source for source in SOURCES if source.host is not None)
CORPUS_SERVER = BY_NAME["local"].server
