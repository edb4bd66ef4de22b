"""What a shallower reader would buy in speed: the shipped stance model with only some of its layers, exported as
the runtime reads it (int8, activations per token, with canaries), timed against the shipped file on passage pairs.

    python -m bench.reader_depth PAIRS/pairs_validation_reader.jsonl [--layers 4 3] [--max-length 256] [--rounds 3]

The stand-ins are not trained: their readings mean nothing, only their speed does (a trained student of the same
depth, ``python -m training.reader_job train --layers K``, reads at the same speed). A stand-in with all six layers is
timed too, as a control of the export against the shipped file. Needs the training extra (torch, transformers)
for the export; the rounds run the models in turn, so a change of load falls on all of them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def stand_in(keep: int, out: Path, rows: list[dict]) -> Path:
    """The shipped model with ``keep`` of its layers (``reader_model.kept_layers``), exported into ``out``."""
    from training import reader_job, reader_model, train_stance

    tokenizer, model, _, _ = reader_model.student_from_onnx(reader_model.MPNET6, reader_job.SHIPPED, 320)
    train_stance.keep_layers(model, reader_model.kept_layers(model.config.num_hidden_layers, keep))
    export = train_stance.export_onnx(model, tokenizer, out, rows[:8])
    shipped = json.loads((reader_job.SHIPPED / "stance_config.json").read_text())
    (out / "stance_config.json").write_text(json.dumps(shipped | export))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path, help="a pairs file (claim, title, evidence), e.g. the reader pairs")
    parser.add_argument("--layers", type=int, nargs="+", default=[4, 3])
    parser.add_argument("--max-length", type=int, default=256, help="tokens a pair keeps (grounding reads 256)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import torch

    from mermaid_verifier.reader.stance import StanceModel, bundled_model_dir

    torch.set_num_threads(2)
    rows = [json.loads(line) for line in args.pairs.open()]
    work = Path(tempfile.mkdtemp(prefix="reader-depth-"))
    dirs = {"shipped": bundled_model_dir()}
    for keep in sorted({6, *args.layers}, reverse=True):
        dirs[f"{keep} layers"] = stand_in(keep, work / f"l{keep}", rows)
    models = {name: StanceModel(path) for name, path in dirs.items()}
    for model in models.values():
        model.load()
    rates: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, model in models.items():
            started = time.perf_counter()
            for row in rows:
                model.probabilities(row["claim"], [(row.get("title") or "", row["evidence"])], args.max_length)
            rates[name].append(len(rows) / (time.perf_counter() - started))
    base, control = statistics.median(rates["shipped"]), statistics.median(rates["6 layers"])
    for name, values in rates.items():
        median = statistics.median(values)
        size = (dirs[name] / "model.onnx").stat().st_size / 2**20
        print(f"{name}: {median:.1f} pairs/s (rounds {', '.join(f'{v:.1f}' for v in values)}), "
              f"{median / base:.2f}x the shipped file, {median / control:.2f}x the 6-layer stand-in, {size:.0f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
