"""Would grounding decide otherwise on another CPU? Passage readings (256 tokens, longer than the model's canaries)
compared between this machine and another CPU kind, and the decisions they lead to.

    # 1. natively: ground the first --answers LFQA answers and --claims WiCE claims, keeping every pair read
    python -m bench.cross_cpu_grounding record --out DIR
    # 2. on the other CPU, or emulated (AVX2 without VNNI; ~50x slower): read the same pairs
    qemu-x86_64 -cpu Haswell $(which python) bench/cross_cpu_grounding.py read --out DIR
    # 3. compare: the largest reading difference, and each claim's and sentence's decision with either reading
    python -m bench.cross_cpu_grounding compare --out DIR

``compare`` writes ``DIR/summary.json`` with the machine of each step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
from bench.cross_cpu_verdicts import RecordingStance, read_jsonl  # noqa: E402
from mermaid_verifier.reader.model_check import machine_record  # noqa: E402


async def record(args) -> None:
    from bench.grounding import units
    from mermaid_verifier.agents.claim_extractor import SpacyClaimExtractor
    from mermaid_verifier.reader.stance import StanceModel
    from mermaid_verifier.texts import GivenDocuments, TextJob

    items = [u for u in units(args.data) if u["set"] == "lfqa"][: args.answers]
    items += [u for u in units(args.data) if u["set"] == "wice"][: args.claims]
    stance = RecordingStance(StanceModel())
    extractor = SpacyClaimExtractor()
    await asyncio.gather(asyncio.to_thread(stance.load), asyncio.to_thread(extractor.warm_up))
    job = TextJob(extractor, given_documents=GivenDocuments(stance))
    results = []
    for item in items:
        text = " ".join(s["text"] for s in item["sentences"])
        result = await job.check(text, item["documents"])
        results.append({"id": item["id"], "result": result.model_dump(mode="json")})
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "pairs.jsonl").open("w") as f:
        for key, reading in stance.readings.items():
            f.write(json.dumps({"key": key, "max_length": stance.lengths[key], "reading": reading}) + "\n")
    with (args.out / "results.jsonl").open("w") as f:
        for row in results:
            f.write(json.dumps(row) + "\n")
    (args.out / "record_machine.json").write_text(json.dumps(machine_record(), indent=1) + "\n")
    print(f"{len(stance.readings)} pairs from {len(items)} texts in {args.out}", file=sys.stderr)


def read(args) -> None:
    from mermaid_verifier.reader.stance import StanceModel

    model = StanceModel()
    model.load()  # the self-check runs here, on this CPU
    done = {r["key"] for r in read_jsonl(args.out / "other_readings.jsonl")}
    with (args.out / "other_readings.jsonl").open("a") as f:
        for pair in read_jsonl(args.out / "pairs.jsonl"):
            if pair["key"] in done:
                continue
            claim, title, text = json.loads(pair["key"])
            (reading,) = model.probabilities(claim, [(title, text)], pair["max_length"])
            f.write(json.dumps({"key": pair["key"], "reading": reading}) + "\n")
            f.flush()
    (args.out / "read_machine.json").write_text(json.dumps(machine_record(), indent=1) + "\n")


def compare(args) -> None:
    from mermaid_verifier.texts import GroundingConfig

    threshold = GroundingConfig.bundled().threshold
    native = {p["key"]: p["reading"] for p in read_jsonl(args.out / "pairs.jsonl")}
    other = {p["key"]: p["reading"] for p in read_jsonl(args.out / "other_readings.jsonl")}
    missing = [k for k in native if k not in other]
    largest = max((max(abs(native[k][s] - other[k][s]) for s in native[k]) for k in other), default=None)
    claims_same = claims = sentences_same = sentences = 0
    for row in read_jsonl(args.out / "results.jsonl"):
        by_claim = {}
        for grounded in row["result"]["claims"]:
            keys = [k for k in native if json.loads(k)[0] == grounded["claim"]["text"]]
            if not keys or any(k not in other for k in keys):
                continue
            here = max(native[k]["supports"] for k in keys) >= threshold
            there = max(other[k]["supports"] for k in keys) >= threshold
            claims += 1
            claims_same += here == there
            by_claim[grounded["index"]] = (here, there)
        for sentence in row["result"]["sentences"]:
            decided = [by_claim[i] for i in sentence["claims"] if i in by_claim]
            if not decided or len(decided) < len(sentence["claims"]):
                continue
            sentences += 1
            sentences_same += all(h for h, _ in decided) == all(t for _, t in decided) and any(
                h for h, _ in decided
            ) == any(t for _, t in decided)
    summary = {
        "pairs": len(native),
        "pairs_read_on_the_other_cpu": len(other),
        "pairs_missing": len(missing),
        "largest_reading_difference": round(largest, 4) if largest is not None else None,
        "claims_compared": claims,
        "claims_with_the_same_decision": claims_same,
        "sentences_compared": sentences,
        "sentences_with_the_same_label": sentences_same,
        "threshold": threshold,
        "record_machine": json.loads((args.out / "record_machine.json").read_text()),
        "read_machine": json.loads((args.out / "read_machine.json").read_text())
        if (args.out / "read_machine.json").exists()
        else None,
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("record", "read", "compare"):
        step = sub.add_parser(name)
        step.add_argument("--out", type=Path, required=True)
        if name == "record":
            step.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
            step.add_argument("--answers", type=int, default=6)
            step.add_argument("--claims", type=int, default=12)
    args = parser.parse_args()
    if args.command == "record":
        asyncio.run(record(args))
    elif args.command == "read":
        read(args)
    else:
        compare(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
