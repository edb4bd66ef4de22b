"""Which MERMAID_JUDGE_CHECK serves an LLM judge best? One answer per claim, scored under every setting.

The check acts after the model has answered, so each claim needs one LLM call: the offline path gathers the
evidence (as a whole run with the offline backend does), the LLM judge answers on it
(``LLMJudge.read``), and the verdict is made from that answer under ``strict``, ``cap`` and ``off``:

    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 python -m bench.judge_check --claims $DATA/fever/paper_dev.jsonl \\
        --split training/splits/fever_paper_dev.json --part validation --limit 40 --corpus $W --out runs/judge-check

Per claim, ``OUT/ledger.jsonl`` keeps the gold label, the stance model's verdict and the model's answer
(label, confidence; no text), so the settings can be compared again without the server; the figures of
each setting (accuracy and macro-F1 of the label as given, answered share and errors among the answered)
go to ``OUT/summary.json`` with the machine and the model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from bench.cross_cpu_verdicts import claims_of  # the same claim selection options
from mermaid_verifier.reader.model_check import measurement_record

CHECKS = ("strict", "cap", "off")


def scores(rows: list[dict], check: str) -> dict:
    from mermaid_verifier.evaluation.metrics import macro_f1

    gold = [r["gold"] for r in rows]
    labels = [r["verdicts"][check]["label"] for r in rows]
    answered = [r for r in rows if not r["verdicts"][check]["abstained"]]
    wrong = [r for r in answered if r["verdicts"][check]["label"] != r["gold"]]
    return {
        "accuracy": round(sum(g == p for g, p in zip(gold, labels)) / len(rows), 4),
        "macro_f1": round(macro_f1(gold, labels), 4),
        "answered": round(len(answered) / len(rows), 4),
        "errors_among_answered": round(len(wrong) / len(answered), 4) if answered else None,
        "label_differs_from_stance_verdict": sum(r["verdicts"][check]["label"] != r["stance"]["label"] for r in rows),
    }


async def measure(args) -> None:
    from mermaid_verifier.agents.chat_models import chat_model_factory
    from mermaid_verifier.agents.judge import JudgeConfig, assess
    from mermaid_verifier.agents.llm_judge import LLMJudge
    from mermaid_verifier.config import Settings
    from mermaid_verifier.graph import open_verifier
    from mermaid_verifier.weighing.scoring import ReliabilityConfig

    args.out.mkdir(parents=True, exist_ok=True)
    ledger_path = args.out / "ledger.jsonl"
    done = {json.loads(line)["id"] for line in ledger_path.open()} if ledger_path.exists() else set()
    offline = Settings.from_env(corpora=tuple(args.corpus), sources=("local",), use_memory=False, backend="offline")
    llm_settings = Settings.from_env(backend="llm")
    config = JudgeConfig.bundled()
    judge = LLMJudge(chat_model_factory(llm_settings)("judge"), config, method=llm_settings.structured_method)
    claims = [c for c in claims_of(args) if c.id not in done]
    print(f"{len(done)} claims in {ledger_path}, {len(claims)} to judge", flush=True)
    async with open_verifier(offline) as graph:
        with ledger_path.open("a") as ledger:
            for claim in claims:
                started = time.perf_counter()
                out = await graph.ainvoke({"claim": claim.claim})
                entities = out["decomposition"].entities if out.get("decomposition") else []
                assessed = assess(out["evidence"], ReliabilityConfig(), config, claim.claim, entities, time.time())
                reading = await judge.read(claim.claim, assessed, entities)
                row = {
                    "id": claim.id,
                    "gold": claim.label.value,
                    "stance": {"label": reading.offline.label.value, "abstained": reading.offline.abstained},
                    "answer": None
                    if reading.answer is None
                    else {"label": reading.answer.label.value, "confidence": reading.answer.confidence},
                    "not_asked": reading.not_asked,
                    "verdicts": {
                        check: {"label": (v := reading.verdict(check)).label.value, "abstained": v.abstained}  # type: ignore[arg-type]
                        for check in CHECKS
                    },
                    "seconds": round(time.perf_counter() - started, 1),
                }
                ledger.write(json.dumps(row) + "\n")
                ledger.flush()
                print(json.dumps({k: row[k] for k in ("id", "gold", "answer", "seconds")}), flush=True)
    summarize(args.out, llm_settings.llm_model)


def summarize(out: Path, model: str) -> None:
    rows = [json.loads(line) for line in (out / "ledger.jsonl").open()]
    summary = {
        "claims": len(rows),
        "model": model,
        "asked": sum(r["answer"] is not None for r in rows),
        "by_check": {check: scores(rows, check) for check in CHECKS},
        "machine": measurement_record(),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary["by_check"], indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, action="append", required=True)
    parser.add_argument("--split", type=Path, default=None)
    parser.add_argument("--part", action="append", default=[])
    parser.add_argument("--limit", type=int, default=None, help="a stratified sample of this many claims")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(measure(args))


if __name__ == "__main__":
    sys.exit(main())
