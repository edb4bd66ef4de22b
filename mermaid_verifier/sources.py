"""Which evidence sources a run uses, and the MCP servers that serve them.

``MERMAID_SOURCES`` (comma-separated; default ``wikipedia,arxiv,pubmed,local``) chooses them.
``local`` is the local-corpus server over ``--corpus`` files (or the default corpus); the live ones
are started only when the network answers: when it does not, the run says so once and goes on with
what is reachable.
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from mermaid_verifier.errors import ConfigError
from mermaid_verifier.toolbox import ServerSpec, corpus_server, stdio_server

LIVE_SOURCES = {
    # name: (module, host probed for reachability)
    "wikipedia": ("mermaid_verifier.tools.wikipedia_server", "en.wikipedia.org"),
    "arxiv": ("mermaid_verifier.tools.arxiv_server", "export.arxiv.org"),
    "pubmed": ("mermaid_verifier.tools.pubmed_server", "eutils.ncbi.nlm.nih.gov"),
}
KNOWN_SOURCES = (*LIVE_SOURCES, "local")
DEFAULT_SOURCES = ("wikipedia", "arxiv", "pubmed", "local")


@dataclass(frozen=True)
class SourcePlan:
    servers: list[ServerSpec]
    skipped: dict[str, str]  # source -> why it is not used in this run


def parse_sources(value: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(part.strip().lower() for part in value.split(",") if part.strip()))
    unknown = [n for n in names if n not in KNOWN_SOURCES]
    if unknown:
        raise ConfigError(f"unknown source(s) {', '.join(unknown)}; choose from {', '.join(KNOWN_SOURCES)}")
    if not names:
        raise ConfigError("no sources chosen")
    return names


def reachable(host: str, timeout_s: float = 1.5) -> bool:
    """Whether ``host`` resolves and accepts a TCP connection on 443 within ``timeout_s``."""
    try:
        with socket.create_connection((host, 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def plan_sources(sources: tuple[str, ...], local_corpora: list[Path], index_cache_dir: Path, cache_dir: Path,
                 probe=reachable) -> SourcePlan:
    """Server specs for the chosen sources; live ones only when their host answers."""
    servers, skipped = [], {}
    for name in sources:
        if name == "local":
            servers.append(corpus_server(local_corpora, index_cache_dir))
            continue
        module, host = LIVE_SOURCES[name]
        if not probe(host):
            skipped[name] = f"{host} is unreachable"
            continue
        servers.append(stdio_server(name, sys.executable, ["-m", module, "--cache-dir", str(cache_dir / "sources")]))
    return SourcePlan(servers, skipped)
