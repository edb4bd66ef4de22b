"""FEVER's gold sentences read alone by each stance model: where a reader's readings of plain support and
refutation move, by whether the sentence holds several years (a life's span, a founding and a release), several
ranks ("the sixth planet … and the second-largest") or several other numbers.

    python -m bench.gold_readings --model-dir data/stance_model --model-dir training/runs/NAME/run/model \\
        --out bench/results/gold_readings.json

Each SUPPORTS or REFUTES claim of one part of ``paper_dev`` (``--part``, the train part by default: the judge is
fitted there, never the test part) with a gold evidence group of one sentence found in the corpus gives one pair:
the claim against that sentence under its page's title, as the pipeline reads it. Every model reads every pair
through the runtime (the int8 file, onnxruntime); the first model is the baseline the others are compared with:
each group's mean probability of the gold label, how often the named label is the gold one, and how many pairs'
probability of the gold label fell or rose by more than ``--moved`` against the baseline.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from pathlib import Path

from bench import print_report
from training.pick_pairs import mentions  # the mentions pick_pairs --years-among (--ordinals-, --numbers-) counts

STANCE_OF = {"SUPPORTS": "supports", "REFUTES": "refutes"}


GROUPS = (("year", "several years"), ("ordinal", "several ranks"), ("number", "several numbers"))


def group_of(sentence: str) -> str:
    """The first of ``several years``, ``several ranks``, ``several numbers`` (other than years) the sentence names
    two or more of (a span, a date beside another; a rank beside another), else ``other``."""
    return next((group for kind, group in GROUPS if len(mentions(sentence, kind)) >= 2), "other")


def gold_pairs(claims: Iterable[dict], corpus: dict[tuple[str, int], dict], assignment: dict[str, str],
               part: str) -> list[dict]:  # fmt: skip
    """One pair per SUPPORTS or REFUTES claim of ``part``: its first single-sentence gold group that the corpus holds
    (claims without one are left out)."""
    pairs = []
    for claim in claims:
        if assignment.get(str(claim["id"])) != part or claim["label"] not in STANCE_OF:
            continue
        for group in claim["evidence"]:
            if len(group) != 1:
                continue
            _, _, page, line = group[0]
            sentence = corpus.get((page, line))
            if sentence is not None:
                pairs.append({"id": claim["id"], "claim": claim["claim"], "label": claim["label"],
                              "title": sentence["title"], "evidence": sentence["text"]})  # fmt: skip
                break
    return pairs


def summarise(pairs: list[dict], readings: dict[str, list[dict[str, float]]], moved: float = 0.2) -> dict:
    """Each model's figures by (gold label, group); ``readings`` by model, in ``pairs``' order, the baseline first."""
    first = next(iter(readings))
    baseline = readings[first]
    out = {}
    for name, read in readings.items():
        groups: dict[str, dict] = {}
        for pair, reading, base in zip(pairs, read, baseline, strict=True):
            key = f"{pair['label']} / {group_of(pair['evidence'])}"
            stance = STANCE_OF[pair["label"]]
            g = groups.setdefault(key, {"pairs": 0, "named_gold": 0, "sum": 0.0, "fell": 0, "rose": 0})
            g["pairs"] += 1
            g["named_gold"] += max(reading, key=reading.__getitem__) == stance
            g["sum"] += reading[stance]
            g["fell"] += reading[stance] < base[stance] - moved
            g["rose"] += reading[stance] > base[stance] + moved
        out[name] = {
            key: {"pairs": g["pairs"], "named_gold": g["named_gold"], "mean_gold_probability": round(g["sum"] / g["pairs"], 4)}
            | ({"fell": g["fell"], "rose": g["rose"]} if name != first else {})
            for key, g in sorted(groups.items())
        }  # fmt: skip
    return out


def read_all(model_dirs: list[Path], pairs: list[dict],
             reader: Callable[[Path], Callable] | None = None) -> dict[str, list[dict[str, float]]]:  # fmt: skip
    """Every model's reading of every pair, one pair at a time, as the pipeline reads a sentence."""
    if reader is None:
        from mermaid_verifier.reader.stance import StanceModel

        def reader(model_dir: Path):
            return StanceModel(model_dir).probabilities

    readings = {}
    for model_dir in model_dirs:
        probabilities = reader(model_dir)
        readings[str(model_dir)] = [probabilities(p["claim"], [(p["title"], p["evidence"])])[0] for p in pairs]
    return readings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model-dir", type=Path, action="append", required=True, help="repeat; the first is the baseline"
    )
    parser.add_argument("--fever", type=Path, default=Path("../shared/data/fever/paper_dev.jsonl"))
    parser.add_argument("--corpus", type=Path, default=Path("../shared/data/corpus/wiki_sentences.jsonl"))
    parser.add_argument("--split", type=Path, default=Path("training/splits/fever_paper_dev.json"))
    parser.add_argument("--part", default="train", choices=("train", "validation", "calibration"))
    parser.add_argument("--moved", type=float, default=0.2, help="a change of P(gold label) counted as fell or rose")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    for path in (args.fever, args.corpus, args.split):
        if not path.is_file():
            parser.error(f"{path}: not found (the shared data sits beside the repository: ../shared/data)")
    corpus = {}
    with args.corpus.open() as lines:
        for row in map(json.loads, lines):
            corpus[(row["page"], row["line"])] = row
    with args.fever.open() as lines:
        claims = [json.loads(line) for line in lines]
    assignment = json.loads(args.split.read_text())["assignment"]
    pairs = gold_pairs(claims, corpus, assignment, args.part)
    result = {
        "command": "python -m bench.gold_readings " + " ".join(f"--model-dir {d}" for d in args.model_dir)
        + f" --part {args.part}",
        "part": args.part,
        "pairs": len(pairs),
        "models": summarise(pairs, read_all(args.model_dir, pairs), args.moved),
    }  # fmt: skip
    print_report(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
