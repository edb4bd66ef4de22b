"""Would a joint reading of a page's top sentences pay? One stance reading of a page's best-ranked
sentences together (at most three), beside the per-sentence readings, for a claim whose parts may be spread
over several sentences of one page ("X was born in Paris and studied in Lyon" against two sentences of X's
page). The joint item is an ``Evidence`` like any other (same source, page and trust inputs as the
sentences it joins; its id names them), so the judge weighs it with the rest.

It adds the joint items to the saved, stance-scored evidence of a FEVER run, so the judge can be refitted and
compared without a new search:

    python -m bench.joint_reading runs/paper-dev/results.jsonl runs/paper-dev-joint/results.jsonl \\
        [--claims several-parts|all]
    python -m scripts.evaluate_scoring runs/paper-dev-joint/results.jsonl --fit-on-train --max-risk 0.10

``several-parts`` (default) reads jointly only for claims the decomposer split into two or more triplets.
The measured result (docs/evaluation.md) is why the pipeline does not read jointly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path

from mermaid_verifier.models import Evidence
from mermaid_verifier.reader.stance import StanceModel

MAX_JOINED = 3
JOINT_PREFIX = "joint:"


def is_joint(item: Evidence) -> bool:
    return item.id.startswith(JOINT_PREFIX)


def joint_candidates(evidence: list[Evidence], max_joined: int = MAX_JOINED) -> list[Evidence]:
    """One unscored item per page that gave two or more sentences: its ``max_joined`` best-ranked
    sentences (by the search engine's score, then by the order found), joined in page order."""
    by_page: dict[tuple[str, str], list[tuple[int, Evidence]]] = defaultdict(list)
    for rank, item in enumerate(evidence):
        if is_joint(item) or not item.text.strip():
            continue
        by_page[(item.source, item.page or item.title)].append((rank, item))
    joined = []
    for members in by_page.values():
        if len(members) < 2:
            continue
        best = sorted(members, key=lambda m: (-(m[1].retrieval_score or 0.0), m[0]))[:max_joined]
        ordered = [item for _, item in sorted(best, key=lambda m: m[1].line if m[1].line is not None else m[0])]
        first = ordered[0]
        joined.append(
            first.model_copy(
                update={
                    "id": JOINT_PREFIX + "+".join(item.id for item in ordered),
                    "text": " ".join(item.text.strip() for item in ordered),
                    "line": None,
                    "retrieval_score": max((item.retrieval_score or 0.0) for item in ordered),
                    "stance": None,
                    "stance_probabilities": None,
                    "score": None,
                    "trust": None,
                }
            )
        )
    return joined


async def joint_readings(claim: str, evidence: list[Evidence], stance: StanceModel) -> list[Evidence]:
    """The joint items of ``evidence`` (:func:`joint_candidates`), each read by ``stance`` against ``claim``."""
    candidates = joint_candidates(evidence)
    if not candidates:
        return []
    probabilities = await stance.aprobabilities(claim, [(e.title, e.text) for e in candidates])
    return [item.model_copy(update={"stance_probabilities": p}) for item, p in zip(candidates, probabilities)]


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--claims", choices=("several-parts", "all"), default="several-parts")
    parser.add_argument("--model-dir", type=Path, default=None)
    args = parser.parse_args()
    stance = StanceModel(args.model_dir)
    rows = [json.loads(line) for line in args.results.open()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    added = read = 0
    with args.out.open("w") as out:
        for number, row in enumerate(rows, 1):
            if args.claims == "all" or len(row.get("triplets") or []) >= 2:
                read += 1
                evidence = [Evidence.model_validate(e) for e in row["evidence"]]
                joint = await joint_readings(row["claim"], evidence, stance)
                row["evidence"] = row["evidence"] + [e.model_dump(mode="json") for e in joint]
                added += len(joint)
            out.write(json.dumps(row) + "\n")
            if number % 200 == 0:
                print(f"{number}/{len(rows)} claims", file=sys.stderr, flush=True)
    print(f"{read} of {len(rows)} claims read jointly; {added} joint items added", file=sys.stderr)
    # the joint items' stance probabilities come from the int8 model, whose numbers depend on the CPU kind
    from mermaid_verifier.reader.model_check import machine_record

    print(f"machine: {json.dumps(machine_record())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
