"""Batch-run metrics and result rows for the report's tests."""

from __future__ import annotations

import random

from mermaid_verifier.evaluation.metrics import LABELS, label_metrics
from mermaid_verifier.weighing.calibration import Outcome, area_under_risk_coverage, risk_coverage


def make_rows(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        gold = rng.choice(LABELS)
        verdict = gold if rng.random() < 0.65 else rng.choice(LABELS)
        claim = f"Claim number {i} says something about {rng.choice(_PAGES)}."
        rows.append(
            {
                "id": str(10000 + i),
                "gold": gold,
                "claim": claim,
                "verdict": verdict,
                "abstained": rng.random() < 0.35,
                "conflict": False,
                "confidence": round(rng.random(), 4),
                "reason": "no item settles the claim (best trusted support 0.23, refutation 0.22)",
                "evidence": [make_evidence(rng, i, r) for r in range(rng.randrange(0, 10))],
                "trace": make_trace(claim),
                "stats": {"tool_calls": 5, "memory_hits": 0, "seconds": 0.4},
            }
        )
    return rows


def make_metrics(rows: list[dict]) -> dict:
    metrics = label_metrics([r["gold"] for r in rows], [r["verdict"] for r in rows], [r["abstained"] for r in rows])
    outcomes = [Outcome(r["confidence"], r["verdict"] == r["gold"]) for r in rows]
    curve = risk_coverage(outcomes)
    return metrics | {
        "fever_score": None,
        "risk_coverage": {"coverage": [c for _, c, _ in curve], "risk": [r for _, _, r in curve]},
        "aurc": area_under_risk_coverage(outcomes),
        "reliability_diagram": reliability_bins(outcomes),
        "ece": 0.0417,
        "tool_calls": {"mean": 4.94, "total": 5 * len(rows), "per_tool": {"local-corpus.search": 3.42}},
        "latency": {"p50": 0.412, "p95": 1.93},
        "throughput_claims_per_second": 4.218,
        "memory_hit_rate": 0.0,
        "selective_score": {"0.5": 0.31, "1": 0.12, "2": -0.25},
        "abstention_precision": 0.71,
        "llm": {"calls": 0, "cost_usd": None},
        "part": "test",
        "concurrency": 2,
    }


_PAGES = ["Damon_Albarn", "R5_-LRB-band-RRB-", "The_Weeknd", "Ice-T", "Beyoncé", "AC/DC", "Tom_&_Jerry"]


def make_evidence(rng: random.Random, claim_id: int, rank: int) -> dict:
    page = rng.choice(_PAGES)
    line = rng.randrange(0, 40)
    return {
        "id": f"wiki_sentences:{page}:{line}",
        "source": "local-corpus",
        "corpus": "wiki_sentences",
        "title": page.replace("_", " ").replace("-LRB-", "(").replace("-RRB-", ")"),
        "text": f"Sentence {line} of {page} retrieved for claim {claim_id} at rank {rank}; " + "filler " * 15,
        "page": page,
        "line": line,
        "url": None,
        "retrieval_score": round(rng.uniform(2, 9), 4),
        "source_kind": "local_corpus",
        "stance": rng.choice(["neutral"] * 8 + ["supports", "refutes"]),
        "score": round(rng.random(), 4),
    }


def make_trace(claim: str) -> list[dict]:
    return [
        {
            "step": 1,
            "thought": "Search the whole claim first.",
            "action": "local-corpus.search",
            "action_input": {"query": claim, "k": 5},
            "observation": "5 new passage(s) from: Damon Albarn, Ice-T",
            "new_evidence": 5,
        },
        {
            "step": 2,
            "thought": 'Read the page about the subject, "Damon Albarn".',
            "action": "local-corpus.get_page",
            "action_input": {"title": "Damon Albarn", "max_passages": 10},
            "observation": "No page titled \"Damon Albarn's debut\". Similar titles: 'Damon Albarn'.",
            "new_evidence": 0,
        },
    ]


def reliability_bins(outcomes: list[Outcome], n_bins: int = 10) -> list[dict]:
    bins = []
    for b in range(n_bins):
        low, high = b / n_bins, (b + 1) / n_bins
        inside = [o for o in outcomes if low <= o.confidence < high or (high == 1.0 and o.confidence == 1.0)]
        bins.append(
            {
                "bin_low": low,
                "bin_high": high,
                "count": len(inside),
                "mean_confidence": sum(o.confidence for o in inside) / len(inside) if inside else None,
                "accuracy": sum(o.correct for o in inside) / len(inside) if inside else None,
            }
        )
    return bins
