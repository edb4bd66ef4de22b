"""Two remembered evidence items for the memory commands' tests: one whose source still says it, one whose page is gone."""

from __future__ import annotations

from mermaid_verifier.models import Evidence
from mermaid_verifier.tools.toolbox import corpus_source

from .conftest import WIKI_MINI

WIKI_MINI_ORIGIN = corpus_source([WIKI_MINI])
STILL_THERE = Evidence(
    id="wiki_mini:Mount_Everest:1",
    source="local-corpus",
    origin=WIKI_MINI_ORIGIN,
    title="Mount Everest",
    page="Mount_Everest",
    line=1,
    text="Its peak is 8,848 metres above sea level.",
    stance_probabilities={"supports": 0.9, "refutes": 0.0, "neutral": 0.1},
)

GONE = Evidence(
    id="wiki_mini:Atlantis:0",
    source="local-corpus",
    origin=WIKI_MINI_ORIGIN,
    title="Atlantis",
    page="Atlantis",
    line=0,
    text="Atlantis sank in a single day.",
    stance_probabilities={"supports": 0.9, "refutes": 0.0, "neutral": 0.1},
)
