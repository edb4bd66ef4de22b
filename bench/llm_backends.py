"""Offline vs LLM vs cascade on the same FEVER test-part claims, against a real OpenAI-compatible server.

    python -m scripts.local_llm serve                       # or any server: OPENAI_BASE_URL, MERMAID_LLM_MODEL
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 python -m bench.llm_backends --claims 100 --out runs/llm-bench

The first ``--claims`` claims of the *test* part of the page-disjoint FEVER paper_dev split, verified
over the wiki corpus (local-corpus source only, memory off, one claim at a time: a local server has one
slot) by each backend in turn.

A CPU-served LLM takes minutes per claim, so the 100 claims take longer than one machine may live.
Each decided claim is appended (fsynced) to two files: its full result row to
``--out/<backend>/results.jsonl``, and its figures only — id, gold and predicted label, abstention,
confidence, run statistics; no claim or evidence text — to ``--ledger/<backend>.jsonl``. The ledger is
small enough to keep in the repository: a rerun anywhere skips the claims it holds, and the figures
are computed from it. Prints and writes (``--out/summary.json``) accuracy, macro-F1, tool calls, LLM
tokens and seconds per claim, the share of executor replies whose tool call could be read, and how
many claims took the LLM path or met an endpoint failure. Each ledger row names the machine that decided
it (cores, architecture, CPU model and kernel flags, one short string); the summary holds this machine's
full record (``machine``) and, per backend, how many of the ledger's rows each machine decided.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import platform
import sys
from pathlib import Path

from bench.fever_sample import CLAIMS, CORPUS, DEFAULT_CACHE, REPO, test_part_sample
from mermaid_verifier.config import Settings
from mermaid_verifier.evaluation.batch import verify_labelled
from mermaid_verifier.evaluation.run_log import ResultsLog
from mermaid_verifier.evaluation.run_metrics import run_metrics
from mermaid_verifier.graph import open_verifier
from mermaid_verifier.reader.model_check import machine_record

BACKENDS = ("offline", "llm", "cascade")
DEFAULT_LEDGER = REPO / "bench" / "results" / "llm_backends"
# What a ledger row keeps of a result row: enough for the figures, nothing of the claim's or evidence's text.
LEDGER_FIELDS = ("id", "gold", "verdict", "abstained", "confidence", "backend", "llm_failure")
LEDGER_STATS = (
    "seconds",
    "tool_calls",
    "tool_calls_by_tool",
    "memory_hits",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "llm_tool_turns",
    "llm_unreadable_turns",
    "backend",
)


def ledger_row(row: dict, machine: str) -> dict:
    """The figures of one result row (no text but the failure message), and the machine that measured them."""
    stats = {key: row["stats"][key] for key in LEDGER_STATS if key in row["stats"]}
    return {key: row[key] for key in LEDGER_FIELDS if key in row} | {"stats": stats, "machine": machine}


def machine_name(record: dict | None = None) -> str:
    """A ledger row's short machine: cores, architecture, CPU model and the kernel flags of ``record``
    (default :func:`machine_record`, this machine's): seconds per claim compare only on the same machine,
    the stance model's numbers only on the same integer kernel. Rows written before the flags were
    recorded hold the same string without the flags in brackets."""
    record = record or machine_record()
    flags = " ".join(record["cpu_flags"]) or "no flags reported"
    model = cpu_model() or platform.processor() or platform.system()
    return f"{record['cpus']} cpu {record['architecture']} {model} [{flags}]"


def ledger_machines(rows) -> dict[str, int]:
    """How many of the ledger rows each machine decided (``"not recorded"`` for a row without one)."""
    return dict(collections.Counter(row.get("machine") or "not recorded" for row in rows))


def cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def figures(metrics: dict) -> dict:
    """The table's figures of a backend's run (an offline run made no LLM call: its LLM figures are 0 / None)."""
    claims = metrics["claims"]
    llm = metrics.get("llm") or {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "calls": 0,
        "parsed_call_share": None,
        "claims_on_llm_path": 0,
        "claims_with_endpoint_failure": 0,
    }
    return {
        "claims": claims,
        "accuracy": metrics["accuracy"],
        "macro_f1": metrics["macro_f1"],
        "tool_calls_per_claim": metrics["tool_calls"]["mean"],
        "prompt_tokens_per_claim": llm["prompt_tokens"] / claims,
        "completion_tokens_per_claim": llm["completion_tokens"] / claims,
        "llm_calls_per_claim": llm["calls"] / claims,
        "seconds_per_claim": metrics["latency"]["mean"],
        "seconds_p95": metrics["latency"]["p95"],
        "parsed_call_share": llm["parsed_call_share"],
        "claims_on_llm_path": llm["claims_on_llm_path"],
        "claims_with_endpoint_failure": llm["claims_with_endpoint_failure"],
        "answered_share": metrics["coverage"],
    }


async def bench(
    backend: str, claims: list, out: Path, ledger_dir: Path, base_url: str | None, model: str, cache_dir: Path
) -> dict:
    """Verify the claims the backend's ledger lacks; the figures of all of them."""
    with (
        ResultsLog(ledger_dir / f"{backend}.jsonl") as ledger,
        ResultsLog(out / backend / "results.jsonl") as results,
    ):
        wanted = {claim.id for claim in claims}
        decided = {row["id"]: row for row in ledger.open(resume=True) if row["id"] in wanted}
        results.open(resume=True)
        todo = [claim for claim in claims if claim.id not in decided]
        print(f"{backend}: {len(decided)} of {len(claims)} claims in {ledger.path}, {len(todo)} to verify", flush=True)
        if todo:
            settings = Settings.from_env(
                {},
                corpora=(CORPUS,),
                sources=("local",),
                use_memory=False,
                cache_dir=cache_dir,
                backend=backend,
                openai_base_url=base_url if backend != "offline" else None,
                llm_model=model,
            )
            machine = machine_name()

            def record(row: dict) -> None:
                results.append(row)
                compact = ledger_row(row, machine)
                ledger.append(compact)
                decided[row["id"]] = compact
                stats = row["stats"]
                print(
                    f"  {backend} {len(decided)}/{len(claims)}: {row['verdict']:<16} gold {row['gold']:<16} "
                    f"{stats['seconds']:6.1f}s {stats['tool_calls']} call(s) "
                    f"{stats.get('prompt_tokens', 0)}+{stats.get('completion_tokens', 0)} tokens",
                    flush=True,
                )

            def failed(claim, error) -> None:
                print(f"  {backend} {claim.id}: failed ({error}); a rerun tries it again", flush=True)

            async with open_verifier(settings) as verifier:
                await verify_labelled(verifier, todo, 1, record, failed)
    if not decided:
        return None
    return figures(run_metrics(list(decided.values()))) | {"ledger_machines": ledger_machines(decided.values())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=100)
    parser.add_argument("--backend", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--out", type=Path, default=Path("runs/llm-bench"))
    parser.add_argument(
        "--ledger", type=Path, default=DEFAULT_LEDGER, help="where each backend's per-claim figures are kept"
    )
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    for path in (CLAIMS, CORPUS):
        if not path.is_file():
            sys.exit(f"{path} not found: this benchmark needs the shared FEVER data")
    base_url = os.environ.get("OPENAI_BASE_URL")
    if base_url is None and set(args.backend) - {"offline"}:
        sys.exit("set OPENAI_BASE_URL to the server to test (python -m scripts.local_llm serve prints it)")
    model = os.environ.get("MERMAID_LLM_MODEL", "local")
    summary = {
        "machine": machine_record() | {"cpu_model": cpu_model()},
        "server": base_url,
        "model": model,
        "claims": args.claims,
        "backends": {},
    }
    claims, _ = test_part_sample(args.claims)
    for backend in args.backend:
        args.ledger.mkdir(parents=True, exist_ok=True)
        (args.out / backend).mkdir(parents=True, exist_ok=True)
        summary["backends"][backend] = asyncio.run(
            bench(backend, claims, args.out, args.ledger, base_url, model, args.cache_dir)
        )
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"\nmachine: {json.dumps(summary['machine'])}")
    print(
        f"{'backend':<9} {'claims':>6} {'acc':>6} {'F1':>6} {'calls':>6} {'tok in':>7} {'tok out':>7} {'s/claim':>8} {'parsed':>7} {'on LLM':>7} {'failed':>6}"
    )
    for backend, f in summary["backends"].items():
        if f is None:
            print(f"{backend:<9} no claim decided")
            continue
        parsed = "-" if f["parsed_call_share"] is None else f"{f['parsed_call_share']:.0%}"
        print(
            f"{backend:<9} {f['claims']:6d} {f['accuracy']:6.3f} {f['macro_f1']:6.3f} {f['tool_calls_per_claim']:6.2f} "
            f"{f['prompt_tokens_per_claim']:7.0f} {f['completion_tokens_per_claim']:7.0f} {f['seconds_per_claim']:8.1f} "
            f"{parsed:>7} {f['claims_on_llm_path']:7d} {f['claims_with_endpoint_failure']:6d}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
