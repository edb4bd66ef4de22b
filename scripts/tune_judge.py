"""Tune the judge's thresholds on a *validation* run of evaluate_fever.py and save them.

    python scripts/evaluate_fever.py --part validation --out runs/eval-validation
    python scripts/tune_judge.py runs/eval-validation/results.jsonl

Re-decides every claim from its saved, stance-scored evidence for each (nei_threshold,
refute_weight) on a grid, keeps the pair with the best macro-F1, and writes data/judge_config.json.
Never point it at the test part: the README's numbers come from there.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
from pathlib import Path

from mermaid_verifier.agents.judge import JudgeConfig, decide
from mermaid_verifier.metrics import label_metrics
from mermaid_verifier.models import Evidence

REPO = Path(__file__).resolve().parents[1]


def load(path: Path) -> list[tuple[str, list[Evidence]]]:
    rows = [json.loads(line) for line in path.open()]
    return [(r["gold"], [Evidence.model_validate(e) for e in r["evidence"]]) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--out", type=Path, default=REPO / "data" / "judge_config.json")
    args = parser.parse_args()
    metrics_file = args.results.parent / "metrics.json"
    if metrics_file.is_file() and json.loads(metrics_file.read_text()).get("part") == "test":
        raise SystemExit("refusing to tune on the test part")
    claims = load(args.results)
    gold = [g for g, _ in claims]
    base = JudgeConfig.bundled()
    best = None
    for nei, weight in itertools.product([x / 100 for x in range(10, 81, 2)], [x / 100 for x in range(50, 131, 5)]):
        config = base.model_copy(update={"nei_threshold": nei, "refute_weight": weight})
        predicted = [decide(evidence, config).label.value for _, evidence in claims]
        score = label_metrics(gold, predicted)["macro_f1"]
        if best is None or score > best[0]:
            best = (score, nei, weight)
    score, nei, weight = best
    tuned = base.model_copy(update={"nei_threshold": nei, "refute_weight": weight})
    record = {
        **tuned.model_dump(),
        "tuned_on": f"{args.results} ({len(claims)} validation claims)",
        "validation_macro_f1": round(score, 4),
        "tuned_at": datetime.date.today().isoformat(),
    }
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
