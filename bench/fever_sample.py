"""What the FEVER benchmarks share: where the shared data is, and the test-part claims they time."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
CLAIMS = SHARED / "fever" / "paper_dev.jsonl"
CORPUS = SHARED / "corpus" / "wiki_sentences.jsonl"
SPLIT = REPO / "training" / "splits" / "fever_paper_dev.json"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "mermaid-bench-cache"
WARM_UP = 3


def test_part_sample(count: int):
    """The first ``count`` test-part claims, and ``WARM_UP`` further ones for the warm-up."""
    from mermaid_verifier.evaluation.datasets import load_split_ids, read_labelled_claims, select

    for path in (CLAIMS, CORPUS):
        if not path.is_file():
            sys.exit(f"{path} not found: this benchmark needs the shared FEVER data in {SHARED}")
    claims, _ = read_labelled_claims(CLAIMS)
    claims = select(claims, load_split_ids(SPLIT), "test")
    return claims[:count], claims[count : count + WARM_UP] or claims[:WARM_UP]
