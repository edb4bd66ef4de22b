"""Would the verdicts change on another CPU? End-to-end verdicts with the stance readings of another CPU.

A whole run under an emulated CPU (``qemu-x86_64 -cpu Haswell``: AVX2 without VNNI) is about 50 times
slower than native, but a verdict depends on the CPU only through the stance model's readings. So:

    # 1. natively: verify the claims, keeping every (claim, evidence) pair the stance model read
    python -m bench.cross_cpu_verdicts record --claims $DATA/fever/paper_dev.jsonl \\
        --split training/splits/fever_paper_dev.json --part validation --limit 100 --corpus $W --out DIR
    # 2. on the other CPU (or emulated): read those pairs (resumable: appends what is not read yet)
    qemu-x86_64 -cpu Haswell $(which python) bench/cross_cpu_verdicts.py read --out DIR
    # 3. natively: verify the same claims again, every stance reading taken from step 2's; a pair step 2
    #    has not read (the other readings sent the search elsewhere) is added to DIR/pairs.jsonl: read
    #    again (2) and replay again until none is missing
    python -m bench.cross_cpu_verdicts replay --claims … --corpus $W --out DIR

``replay`` writes ``DIR/summary.json``: how many verdicts (label and abstention) are the same, the largest
confidence difference, the largest reading difference, and the machine of each step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from mermaid_verifier.reader.model_check import machine_record

STANCES = ("supports", "refutes", "neutral")


def pair_key(claim: str, title: str, text: str) -> str:
    return json.dumps([claim, title, text], ensure_ascii=False)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open()] if path.exists() else []


class RecordingStance:
    """The stance model, keeping each pair it reads and the reading (step 1)."""

    def __init__(self, model):
        self.model = model
        self.readings: dict[str, dict[str, float]] = {}
        self.lengths: dict[str, int | None] = {}  # the tokens each pair was read at (None: the model's own)

    def load(self) -> None:
        self.model.load()

    def probabilities(
        self, claim: str, evidence: list[tuple[str, str]], max_length: int | None = None
    ) -> list[dict[str, float]]:
        out = self.model.probabilities(claim, evidence, max_length)
        for (title, text), p in zip(evidence, out):
            key = pair_key(claim, title, text)
            self.readings[key] = p
            self.lengths[key] = max_length
        return out

    async def aprobabilities(
        self, claim: str, evidence: list[tuple[str, str]], max_length: int | None = None
    ) -> list[dict[str, float]]:
        return await asyncio.to_thread(self.probabilities, claim, evidence, max_length)


class ReplayStance(RecordingStance):
    """Readings taken from another CPU's (step 3); a pair it lacks is read here and counted as missing."""

    def __init__(self, model, other: dict[str, dict[str, float]]):
        super().__init__(model)
        self.other = other
        self.missing: dict[str, dict[str, float]] = {}

    def probabilities(
        self, claim: str, evidence: list[tuple[str, str]], max_length: int | None = None
    ) -> list[dict[str, float]]:
        out = []
        for title, text in evidence:
            key = pair_key(claim, title, text)
            if key in self.other:
                out.append(self.other[key])
            else:
                (p,) = self.model.probabilities(claim, [(title, text)], max_length)
                self.missing[key] = p
                out.append(p)
        return out


def claims_of(args) -> list:
    from mermaid_verifier.evaluation.fever_run import RunOptions, load_claims

    options = RunOptions(
        claims_path=args.claims,
        out_dir=args.out,
        limit=args.limit,
        split_file=args.split,
        parts=tuple(args.part),
        sample="stratified" if args.limit else None,
        seed=args.seed,
    )
    claims, _ = load_claims(options)
    return claims


async def verify(claims: list, corpus: list[Path], stance) -> dict[str, dict]:
    from mermaid_verifier.config import Settings
    from mermaid_verifier.evaluation.batch import verify_labelled
    from mermaid_verifier.graph import Overrides, open_verifier

    settings = Settings.from_env(corpora=tuple(corpus), sources=("local",), use_memory=False)
    async with open_verifier(settings, overrides=Overrides(stance=stance)) as graph:
        rows = await verify_labelled(graph, claims, concurrency=1)
    return {
        row["id"]: {
            "id": row["id"],
            "label": row["verdict"],
            "confidence": row["confidence"],
            "abstained": row["abstained"],
        }
        for row in rows
    }


def write_jsonl(path: Path, rows) -> None:
    with path.open("w") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def record(args) -> None:
    from mermaid_verifier.reader.stance import StanceModel

    args.out.mkdir(parents=True, exist_ok=True)
    stance = RecordingStance(StanceModel())
    verdicts = asyncio.run(verify(claims_of(args), args.corpus, stance))
    write_jsonl(args.out / "native_verdicts.jsonl", verdicts.values())
    write_jsonl(args.out / "pairs.jsonl", ({"key": k, "native": p} for k, p in stance.readings.items()))
    (args.out / "record_machine.json").write_text(json.dumps(machine_record()) + "\n")
    print(f"{len(verdicts)} claims, {len(stance.readings)} pairs read, in {args.out}")


def read_other(out: Path) -> dict[str, dict[str, float]]:
    """Every pair read on the other CPU so far, from all of ``out``'s ``other_pairs*.jsonl`` files."""
    return {row["key"]: row["other"] for path in sorted(out.glob("other_pairs*.jsonl")) for row in read_jsonl(path)}


def read(args) -> None:
    """Read the pairs not read yet on this CPU; appends (a stopped read goes on where it stopped). Two readers
    can share the work: ``--from-end`` reads from the last pair backwards into a file of its own, and each
    stops at the pairs the other has read."""
    from mermaid_verifier.reader.stance import StanceModel

    todo = [row["key"] for row in read_jsonl(args.out / "pairs.jsonl")]
    if args.from_end:
        todo.reverse()
    done = set(read_other(args.out))
    model = StanceModel()
    model.load()  # the self-check runs here, on this CPU
    target = args.out / ("other_pairs_from_end.jsonl" if args.from_end else "other_pairs.jsonl")
    count = 0
    with target.open("a") as handle:
        for step, key in enumerate(todo):
            if step % 20 == 0:
                done = set(read_other(args.out))
            if key in done:
                continue
            claim, title, text = json.loads(key)
            (p,) = model.probabilities(claim, [(title, text)])
            handle.write(json.dumps({"key": key, "other": p}, ensure_ascii=False) + "\n")
            handle.flush()
            count += 1
    machine = machine_record() | {"emulated": args.emulated}
    (args.out / "read_machine.json").write_text(json.dumps(machine) + "\n")
    print(f"read {count} pairs")


def replay(args) -> None:
    from mermaid_verifier.reader.stance import StanceModel

    other = read_other(args.out)
    native_pairs = {row["key"]: row["native"] for row in read_jsonl(args.out / "pairs.jsonl")}
    stance = ReplayStance(StanceModel(), other)
    claims = claims_of(args)[: args.first]  # a read stopped early covers the first claims (read in order)
    verdicts = asyncio.run(verify(claims, args.corpus, stance))
    if stance.missing:
        write_jsonl(
            args.out / "pairs.jsonl",
            [{"key": k, "native": p} for k, p in native_pairs.items()]
            + [{"key": k, "native": p} for k, p in stance.missing.items() if k not in native_pairs],
        )
        print(f"{len(stance.missing)} pairs were not read on the other CPU: run `read` again, then `replay`")
        sys.exit(3)
    native = {row["id"]: row for row in read_jsonl(args.out / "native_verdicts.jsonl")}
    same = [
        cid
        for cid, v in verdicts.items()
        if (v["label"], v["abstained"]) == (native[cid]["label"], native[cid]["abstained"])
    ]
    differences = [max(abs(other[k][s] - native_pairs[k][s]) for s in STANCES) for k in other if k in native_pairs]
    summary = {
        "claims": len(verdicts),
        "same_verdict": len(same),
        "same_share": round(len(same) / len(verdicts), 4),
        "different": [
            {"id": cid, "native": native[cid], "other": verdicts[cid]} for cid in verdicts if cid not in set(same)
        ],
        "largest_confidence_difference": round(
            max(abs(v["confidence"] - native[cid]["confidence"]) for cid, v in verdicts.items()), 4
        ),
        "pairs": len(differences),
        "largest_reading_difference": round(max(differences), 4) if differences else None,
        "record_machine": json.loads((args.out / "record_machine.json").read_text()),
        "read_machine": json.loads((args.out / "read_machine.json").read_text()),
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "different"}, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("record", "replay"):
        p = sub.add_parser(name)
        p.add_argument("--claims", type=Path, required=True)
        p.add_argument("--corpus", type=Path, action="append", required=True)
        p.add_argument("--split", type=Path, default=None)
        p.add_argument("--part", action="append", default=[])
        p.add_argument("--limit", type=int, default=None, help="a stratified sample of this many claims")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--out", type=Path, required=True)
        if name == "replay":
            p.add_argument("--first", type=int, default=None, help="replay only the first N claims of the selection")
    r = sub.add_parser("read")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--from-end", action="store_true", help="read from the last pair backwards (a second reader)")
    r.add_argument("--emulated", default=None, help="the emulated CPU this runs under (qemu shows the host's flags)")
    args = parser.parse_args()
    {"record": record, "read": read, "replay": replay}[args.command](args)


if __name__ == "__main__":
    main()
