"""The two corpus backends on the shared wiki corpus: the in-memory bm25s index and the on-disk
tantivy one retrieve alike for FEVER claims, and the FEVER benchmark scores alike on either.

The two engines share the analyzer's job (lower-casing, stop words, English stemming) but not its
code, and break score ties differently, so they are held to agreement, not to identical lists."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mermaid_verifier.config import Settings
from mermaid_verifier.evaluation.datasets import load_split_ids, read_labelled_claims, select
from mermaid_verifier.evaluation.fever_run import RunOptions, run
from mermaid_verifier.models import Label
from mermaid_verifier.tools.corpus_index import CorpusIndex

from .conftest import requires_shared_data

pytest.importorskip("tantivy", reason="the on-disk backend needs the ondisk extra (tantivy)")
from mermaid_verifier.tools.tantivy_index import TantivyCorpusIndex  # noqa: E402

pytestmark = pytest.mark.shared_data
SPLIT = Path(__file__).resolve().parents[1] / "training" / "splits" / "fever_paper_dev.json"
VALIDATION = "validation"  # the paper_dev part these checks read: never the test part


def validation_claims(count: int):
    claims, _ = read_labelled_claims(requires_shared_data("fever", "paper_dev.jsonl"))
    return select(claims, load_split_ids(SPLIT), VALIDATION)[:count]


@pytest.fixture(scope="module")
def both_indexes(tmp_path_factory):
    corpus = requires_shared_data("corpus", "wiki_sentences.jsonl")
    cache = tmp_path_factory.mktemp("indexes")
    return CorpusIndex.open([corpus], cache / "memory"), TantivyCorpusIndex.open([corpus], cache / "tantivy")


def test_both_backends_hold_the_same_passages_and_pages(both_indexes):
    memory, tantivy = both_indexes
    assert len(tantivy) == len(memory.passages)
    for passage in memory.passages[:: max(len(memory.passages) // 200, 1)]:
        assert [p.id for p in tantivy.get_page(passage.page)] == [p.id for p in memory.get_page(passage.page)]


def test_both_backends_retrieve_alike_for_fever_claims(both_indexes):
    memory, tantivy = both_indexes
    claims = validation_claims(300)
    same_top, overlap, gold_found = 0, 0.0, {"memory": 0, "tantivy": 0}
    verifiable = [c for c in claims if c.label != Label.NOT_ENOUGH_INFO]
    for claim in claims:
        from_memory = [p.id for p, _ in memory.search(claim.claim, k=5)]
        from_tantivy = [p.id for p, _ in tantivy.search(claim.claim, k=5)]
        same_top += from_memory[:1] == from_tantivy[:1]
        overlap += len(set(from_memory) & set(from_tantivy)) / max(len(from_memory), 1)
        if claim in verifiable:
            gold = claim.gold_pages
            hits = {"memory": memory.search(claim.claim, k=5), "tantivy": tantivy.search(claim.claim, k=5)}
            for name, found in hits.items():
                gold_found[name] += any(p.page in gold for p, _ in found)
    assert same_top / len(claims) >= 0.95, same_top / len(claims)
    assert overlap / len(claims) >= 0.90, overlap / len(claims)
    # what retrieval is for: the gold page among the top 5 as often with either backend (within 2 points)
    assert abs(gold_found["memory"] - gold_found["tantivy"]) <= 0.02 * len(verifiable), (gold_found, len(verifiable))


async def test_the_fever_benchmark_scores_alike_with_either_backend(tmp_path):
    corpus = requires_shared_data("corpus", "wiki_sentences.jsonl")
    claims = validation_claims(120)
    claims_file = tmp_path / "claims.jsonl"
    source = requires_shared_data("fever", "paper_dev.jsonl")
    wanted = {c.id for c in claims}
    with claims_file.open("wb") as out:
        for line in source.read_bytes().splitlines():
            if line.strip() and str(orjson.loads(line)["id"]) in wanted:
                out.write(line + b"\n")
    metrics, verdicts = {}, {}
    for backend in ("memory", "tantivy"):
        settings = Settings.from_env(
            corpora=(corpus,),
            cache_dir=tmp_path / "cache",
            use_memory=False,
            sources=("local",),
            backend="offline",
            index_backend=backend,
        )
        outcome = await run(RunOptions(claims_path=claims_file, out_dir=tmp_path / backend), settings)
        metrics[backend] = outcome.metrics
        verdicts[backend] = {row["id"]: row["verdict"] for row in outcome.rows}
    agreement = sum(verdicts["memory"][i] == verdicts["tantivy"][i] for i in wanted) / len(wanted)
    assert agreement >= 0.95, agreement
    scores = {name: (m["accuracy"], m["macro_f1"]) for name, m in metrics.items()}
    assert abs(scores["memory"][1] - scores["tantivy"][1]) <= 0.02, scores
    assert abs(scores["memory"][0] - scores["tantivy"][0]) <= 0.02, scores
