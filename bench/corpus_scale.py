"""Local-corpus index at scale: cold build, cached load, query latency and peak RSS per corpus size.

    python bench/corpus_scale.py [--sizes 20000 200000 1000000] [--queries 500] [--json]

For each size a seeded synthetic wiki-sentence corpus (``{"page", "line", "title", "text"}`` JSONL:
Wikipedia-like sentences over a fixed vocabulary with a Zipf-ish word distribution, pages of ~8
sentences under made-up titles) is written to a scratch directory, then opened exactly as the
local-corpus server opens it, ``CorpusIndex.open(paths, cache_dir)``:

* cold: a fresh process, empty cache: read + BM25 build + save to the on-disk cache (build and save
  timed on their own too), then ``--queries`` searches (k=5, like ``search_k``) for p50/p95;
* cached: a second fresh process loading the saved index (what every later server start does).

Each phase runs in its own process so its peak RSS (``getrusage``) is its own.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson

VOCABULARY = 60_000
ZIPF_EXPONENT = 1.07
# The commonest words are real function words, so stop-word removal does what it does on Wikipedia.
FUNCTION_WORDS = (
    "the of and in a to was is for on as by with he from at his an which that it were "
    "are also first be or has after their its who had one this her she two new they"
).split()
SYLLABLES = (
    "ka ri to ma ne lo sa ve du mi ran tel bor quin zal pe ol an es ur ith mon dra cal fen gor "
    "hal jus kel lin mar nor pal ros sil tor var wen yor zen bel cor del fin gar hin"
).split()
DISAMBIGUATORS = ("film", "band", "album", "novel", "river", "politician", "footballer", "song", "TV series")


# ----------------------------------------------------------------------------- synthetic corpus


def vocabulary(rng: np.random.Generator) -> list[str]:
    words: dict[str, None] = dict.fromkeys(FUNCTION_WORDS)
    syllables = np.array(SYLLABLES, dtype=object)
    while len(words) < VOCABULARY:  # pseudo-words of 2–4 syllables, drawn in batches
        counts = rng.integers(2, 5, size=VOCABULARY)
        drawn = rng.choice(syllables, size=int(counts.sum()))
        for end, count in zip(np.cumsum(counts), counts):
            words.setdefault("".join(drawn[end - count : end]), None)
            if len(words) == VOCABULARY:
                break
    return list(words)


def zipf_weights(n: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1) ** ZIPF_EXPONENT
    return weights / weights.sum()


def write_corpus(path: Path, passages: int, seed: int) -> None:
    """``passages`` wiki-sentence records: pages of 1–20 lines, 6–35 words a line, written in chunks."""
    rng = np.random.default_rng(seed)
    words = np.array(vocabulary(rng), dtype=object)
    cumulative = np.cumsum(zipf_weights(len(words)))
    content = words[len(FUNCTION_WORDS) : len(FUNCTION_WORDS) + 20_000]  # titles: the rarer part of the vocabulary
    written, page_number = 0, 0
    with path.open("wb") as out:
        while written < passages:
            chunk_lines = min(50_000, passages - written)
            lengths = rng.integers(6, 36, size=chunk_lines)
            drawn = words[np.minimum(np.searchsorted(cumulative, rng.random(int(lengths.sum()))), len(words) - 1)]
            ends = np.cumsum(lengths)
            records, position = [], 0
            while position < chunk_lines:
                lines = min(int(rng.integers(1, 21)), chunk_lines - position)
                title = " ".join(str(w).capitalize() for w in rng.choice(content, size=int(rng.integers(1, 4))))
                if rng.random() < 0.15:
                    title += f" ({DISAMBIGUATORS[int(rng.integers(len(DISAMBIGUATORS)))]})"
                if rng.random() < 0.02:
                    title += f" {page_number}"
                page = title.replace(" ", "_").replace("(", "-LRB-").replace(")", "-RRB-")
                for line in range(lines):
                    end = int(ends[position + line])
                    body = " ".join(drawn[end - int(lengths[position + line]) : end])
                    text = f"{title} is a {body} ." if line == 0 else f"{body[:1].upper()}{body[1:]} ."
                    records.append(orjson.dumps({"page": page, "line": line, "title": title, "text": text}))
                position += lines
                page_number += 1
            out.write(b"\n".join(records) + b"\n")
            written += chunk_lines


def synthetic_queries(count: int, seed: int) -> list[str]:
    """Claim-like queries: a page-title-like phrase and 3–8 words from the same distribution."""
    rng = np.random.default_rng(seed + 1)
    words = np.array(vocabulary(np.random.default_rng(seed)), dtype=object)  # the corpus's vocabulary
    weights = zipf_weights(len(words))
    content = words[len(FUNCTION_WORDS) : 20_000 + len(FUNCTION_WORDS)]
    queries = []
    for _ in range(count):
        title = " ".join(str(w).capitalize() for w in rng.choice(content, size=int(rng.integers(1, 3))))
        body = " ".join(rng.choice(words, size=int(rng.integers(3, 9)), p=weights))
        queries.append(f"{title} {body}.")
    return queries


# ----------------------------------------------------------------------------- one phase, own process


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def child(phase: str, corpus: Path, cache: Path, queries: int, seed: int) -> dict:
    from mermaid_verifier.tools.corpus_index import CorpusIndex

    class TimedIndex(CorpusIndex):  # the server's own open(); build and save timed on the way
        timings: dict[str, float] = {}

        @classmethod
        def build(cls, passages):
            started = time.perf_counter()
            index = super().build(passages)
            cls.timings["build_s"] = time.perf_counter() - started
            return index

        def _save(self, index_dir):
            started = time.perf_counter()
            super()._save(index_dir)
            self.timings["save_s"] = time.perf_counter() - started

    baseline_mb = peak_rss_mb()
    started = time.perf_counter()
    index = TimedIndex.open([corpus], cache)
    result = {
        "phase": phase,
        "open_s": time.perf_counter() - started,
        "passages": len(index.passages),
        "vocabulary": len(index._vocab),
        **TimedIndex.timings,
    }
    if phase == "cold" and "build_s" not in result:
        raise SystemExit("the cache was not empty: the cold phase loaded instead of building")
    if phase == "cached" and "build_s" in result:
        raise SystemExit("the cached index was not found: the cached phase rebuilt it")
    if queries:
        latencies, hits = [], 0
        for query in synthetic_queries(queries, seed):
            started = time.perf_counter()
            hits += bool(index.search(query, k=5))
            latencies.append((time.perf_counter() - started) * 1000)
        latencies.sort()
        result.update(
            query_p50_ms=statistics.median(latencies),
            query_p95_ms=latencies[max(int(0.95 * len(latencies)) - 1, 0)],
            query_max_ms=latencies[-1],
            queries_with_hits=hits,
        )
    result.update(peak_rss_mb=peak_rss_mb(), import_rss_mb=baseline_mb)
    return result


def run_child(phase: str, corpus: Path, cache: Path, queries: int, seed: int) -> dict:
    command = [sys.executable, __file__, "--_child", phase, str(corpus), str(cache), str(queries), str(seed)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{phase} phase failed ({done.returncode}):\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- driver


def machine() -> dict:
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    }


def measure(size: int, queries: int, seed: int, scratch: Path, log) -> dict:
    directory = Path(tempfile.mkdtemp(prefix=f"corpus-{size}-", dir=scratch))
    corpus, cache = directory / "synthetic_wiki.jsonl", directory / "corpus-index"
    started = time.perf_counter()
    write_corpus(corpus, size, seed)
    generate_s = time.perf_counter() - started
    log(
        f"{size:>9,} passages: corpus written ({corpus.stat().st_size / 2**20:.0f} MiB, {generate_s:.1f}s); cold build …"
    )
    cold = run_child("cold", corpus, cache, queries, seed)
    log(f"{size:>9,} passages: cold open {cold['open_s']:.1f}s; loading the cached index …")
    cached = run_child("cached", corpus, cache, 0, seed)
    cache_bytes = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
    return {
        "passages": size,
        "corpus_mib": corpus.stat().st_size / 2**20,
        "generate_s": generate_s,
        "vocabulary": cold["vocabulary"],
        "cold_open_s": cold["open_s"],
        "build_s": cold["build_s"],
        "save_s": cold.get("save_s"),
        "read_s": cold["open_s"] - cold["build_s"] - cold.get("save_s", 0.0),
        "cold_peak_rss_mb": cold["peak_rss_mb"],
        "cached_load_s": cached["open_s"],
        "cached_peak_rss_mb": cached["peak_rss_mb"],
        "import_rss_mb": cold["import_rss_mb"],
        "cache_mib": cache_bytes / 2**20,
        "queries": queries,
        "query_p50_ms": cold.get("query_p50_ms"),
        "query_p95_ms": cold.get("query_p95_ms"),
        "query_max_ms": cold.get("query_max_ms"),
        "queries_with_hits": cold.get("queries_with_hits"),
    }


def table(rows: list[dict]) -> str:
    header = (
        "| passages | cold open s (read / build / save) | cached load s | query p50 ms | query p95 ms "
        "| peak RSS cold MB | peak RSS cached MB | index cache MiB |"
    )
    lines = [header, "|---" * (header.count("|") - 1) + "|"]
    for r in rows:
        lines.append(
            f"| {r['passages']:,} | {r['cold_open_s']:.1f} ({r['read_s']:.1f} / {r['build_s']:.1f} / "
            f"{(r['save_s'] or 0):.1f}) | {r['cached_load_s']:.2f} | {r['query_p50_ms']:.2f} | "
            f"{r['query_p95_ms']:.2f} | {r['cold_peak_rss_mb']:.0f} | {r['cached_peak_rss_mb']:.0f} | "
            f"{r['cache_mib']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--_child":
        phase, corpus, cache, queries, seed = sys.argv[2:7]
        print(json.dumps(child(phase, Path(corpus), Path(cache), int(queries), int(seed))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--scratch",
        type=Path,
        default=Path(tempfile.gettempdir()),
        help="where the synthetic corpora and their index caches are written (removed afterwards)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = parser.parse_args()
    if args.queries < 1:
        parser.error("--queries must be at least 1")
    log = (
        (lambda message: print(message, file=sys.stderr, flush=True)) if args.json else (lambda m: print(m, flush=True))
    )
    info = machine()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mermaid-corpus-scale-", dir=args.scratch) as scratch:
        for size in args.sizes:
            rows.append(measure(size, args.queries, args.seed, Path(scratch), log))
    if args.json:
        print(json.dumps({"machine": info, "queries": args.queries, "seed": args.seed, "results": rows}, indent=2))
        return
    print(
        f"\ncorpus index scale ({args.queries} queries, k=5, seed {args.seed}) — {info['date']}, {info['platform']}, "
        f"{info['cpus']} cpus, Python {info['python']}, load avg {info['load_avg_1m']} at start"
    )
    print(table(rows))


if __name__ == "__main__":
    main()
