"""The batch grounding command on the shared grounding sets, in the forms users bring: WiCE dev claims as
LLM-AggreFact records (``{doc, claim, label}``) and LFQA dev answers as RAGAS records (``{user_input, response,
retrieved_contexts}``, labelled supported when all their sentences are). Figures: balanced accuracy per WiCE claim
(from ``metrics.json``), per LFQA sentence (each labelled sentence supported when every claim overlapping it is,
as ``bench/grounding.py`` counts) and per LFQA answer, across the halves ``bench/grounding.py`` splits by, and the
throughput in records a minute with the CPU flags. ``same`` grounds the first N records of each file again, one
by one through ``mermaid_verifier.ground`` (the per-text path), and counts rows that differ in any sentence label,
claim status or support figure.

    python -m bench.ground_batch write --data ../shared/data --out RECORDS_DIR
    mermaid-verifier ground RECORDS_DIR/wice_aggrefact.jsonl --out RUNS/wice
    mermaid-verifier ground RECORDS_DIR/lfqa_ragas.jsonl --out RUNS/lfqa
    python -m bench.ground_batch score --data ../shared/data --wice RUNS/wice --lfqa RUNS/lfqa
    python -m bench.ground_batch same --records RECORDS_DIR --wice RUNS/wice --lfqa RUNS/lfqa --first 20
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from mermaid_verifier.texts.batch import label_metrics


def half(key: str) -> int:  # bench/grounding.py's halves: by question (LFQA) or page title (WiCE)
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % 2


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open()]


def write(data: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    wice = _rows(data / "grounding" / "wice_dev.jsonl")
    with (out / "wice_aggrefact.jsonl").open("w") as handle:
        for row in wice:
            record = {"id": row["id"], "doc": row["document"], "claim": row["claim"], "label": int(row["supported"])}
            handle.write(json.dumps(record | {"dataset": "wice"}) + "\n")
    lfqa = _rows(data / "grounding" / "lfqa_dev.jsonl")
    with (out / "lfqa_ragas.jsonl").open("w") as handle:
        for row in lfqa:
            record = {
                "id": row["id"],
                "user_input": row["question"],
                "response": " ".join(s["text"] for s in row["sentences"]),
                "retrieved_contexts": [d["text"] for d in row["documents"]],
                "label": int(all(s["supported"] for s in row["sentences"])),
                "dataset": "lfqa",
            }
            handle.write(json.dumps(record) + "\n")
    print(f"{len(wice)} WiCE records, {len(lfqa)} LFQA records in {out}")


def _results(run: Path) -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, (run / "results.jsonl").open())}


def balanced(pairs: list[tuple[bool, bool]]) -> float | None:
    """(gold, called) pairs: the mean of the recall of supported and of not supported (the batch command's own
    figure, :func:`~mermaid_verifier.texts.batch.label_metrics`)."""
    return label_metrics([{"label": gold, "supported": called} for gold, called in pairs])["balanced_accuracy"]


def lfqa_sentences(data: Path, run: Path) -> list[tuple[str, bool, bool]]:
    """(question, gold, called) per labelled LFQA sentence: called supported when every claim overlapping its span
    in the response is (a sentence with no claim flags nothing)."""
    results = _results(run)
    out = []
    for row in _rows(data / "grounding" / "lfqa_dev.jsonl"):
        result = results.get(row["id"])
        if result is None:
            continue
        cursor = 0
        text = " ".join(s["text"] for s in row["sentences"])
        for sentence in row["sentences"]:
            start = text.index(sentence["text"], cursor)
            end = cursor = start + len(sentence["text"])
            claims = [c for c in result["claims"] if c["claim"]["start"] < end and c["claim"]["end"] > start]
            out.append((row["question"], sentence["supported"], all(c["status"] == "supported" for c in claims)))
    return out


def score(data: Path, wice_run: Path, lfqa_run: Path) -> dict:
    figures: dict = {}
    wice = _results(wice_run)
    titles = {r["id"]: r["title"] for r in _rows(data / "grounding" / "wice_dev.jsonl")}
    wice_pairs = [(bool(r["label"]), r["supported"], half(titles[i])) for i, r in wice.items()]
    figures["wice_claims"] = {
        "records": len(wice_pairs),
        "balanced_accuracy": balanced([(g, c) for g, c, _ in wice_pairs]),
        "by_half": [balanced([(g, c) for g, c, h in wice_pairs if h == part]) for part in (0, 1)],
        "metrics_json": json.loads((wice_run / "metrics.json").read_text())["labels"]["balanced_accuracy"],
    }
    sentences = lfqa_sentences(data, lfqa_run)
    figures["lfqa_sentences"] = {
        "sentences": len(sentences),
        "balanced_accuracy": balanced([(g, c) for _, g, c in sentences]),
        "by_half": [balanced([(g, c) for q, g, c in sentences if half(q) == part]) for part in (0, 1)],
    }
    lfqa_metrics = json.loads((lfqa_run / "metrics.json").read_text())
    figures["lfqa_answers"] = {
        "records": lfqa_metrics["records"],
        "balanced_accuracy": lfqa_metrics["labels"]["balanced_accuracy"],
    }
    for name, run in (("wice", wice_run), ("lfqa", lfqa_run)):
        metrics = json.loads((run / "metrics.json").read_text())
        figures[f"{name}_speed"] = metrics["this_run"] | {"cpu_flags": metrics["machine"]["cpu_flags"]}
    return figures


def same(records: Path, wice_run: Path, lfqa_run: Path, first: int) -> dict:
    from mermaid_verifier import Grounder
    from mermaid_verifier.texts.batch import read_records

    out = {}
    with Grounder() as grounder:
        for name, file, run in (("wice", "wice_aggrefact.jsonl", wice_run), ("lfqa", "lfqa_ragas.jsonl", lfqa_run)):
            results = _results(run)
            chosen, _ = read_records(records / file, limit=first)
            differ = []
            for record in chosen:
                alone = grounder.ground(record.text, record.documents).model_dump(mode="json")
                batch = results[record.id]
                keys = (
                    [s["label"] for s in alone["sentences"]] != [s["label"] for s in batch["sentences"]],
                    [(c["status"], c["support"]) for c in alone["claims"]]
                    != [(c["status"], c["support"]) for c in batch["claims"]],
                )
                if any(keys):
                    differ.append(record.id)
            out[name] = {"records": len(chosen), "differ": differ}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    w = commands.add_parser("write")
    w.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    w.add_argument("--out", type=Path, required=True)
    s = commands.add_parser("score")
    s.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    s.add_argument("--wice", type=Path, required=True)
    s.add_argument("--lfqa", type=Path, required=True)
    c = commands.add_parser("same")
    c.add_argument("--records", type=Path, required=True)
    c.add_argument("--wice", type=Path, required=True)
    c.add_argument("--lfqa", type=Path, required=True)
    c.add_argument("--first", type=int, default=20)
    args = parser.parse_args()
    if args.command == "write":
        write(args.data, args.out)
    elif args.command == "score":
        print(json.dumps(score(args.data, args.wice, args.lfqa), indent=1))
    else:
        print(json.dumps(same(args.records, args.wice, args.lfqa, args.first), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
