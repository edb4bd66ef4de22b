"""Local-corpus index at scale: build time, index size on disk, peak RSS, cold open and query latency.

    python -m bench.corpus_scale [--sizes 20000 200000 1000000] [--backend memory tantivy] [--queries 500] [--json]

For each size a seeded synthetic wiki-sentence corpus (``{"page", "line", "title", "text"}`` JSONL)
is written to a scratch directory: Wikipedia-like sentences of 6–35 words over a 60,000-word
vocabulary drawn with a Zipf distribution (exponent 1.07; the commonest words are real function
words), pages of 1–20 sentences under 1–3-word titles, some with a "(film)"-style disambiguator.
Each ``--backend`` then opens it exactly as the local-corpus server does (``CorpusIndex.open`` for
the in-memory bm25s index, ``TantivyCorpusIndex.open`` for the on-disk one):

* cold: a fresh process, empty cache: read + build (+ save, for the in-memory index's cache);
* open + queries: a second fresh process opening the built index (what every later server start
  does; its time is the cold-open time), then ``--queries`` claim-like searches (k=5) for p50/p95.

Each phase runs in its own process so its peak RSS (``getrusage``) is its own. RSS counts the pages of
files the process maps (tantivy reads its segments through mmap, so merging them maps gigabytes of
index files the kernel can drop at will) as well as its own anonymous memory; on Linux a sampler
(every 0.1 s, ``/proc/self/status``) records the peak of each part separately. The indexes are
removed after each size, and so is the corpus unless ``--keep-corpora DIR`` keeps it for later runs.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
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


class RssParts:
    """Peaks of the anonymous and the file-backed part of this process's RSS, sampled on a thread (Linux)."""

    STATUS = Path("/proc/self/status")

    def __init__(self, interval_s: float = 0.1):
        self.interval_s = interval_s
        self.peak_anon_mb: float | None = None
        self.peak_file_mb: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_stopped, daemon=True)

    def sample(self) -> None:
        fields = {}
        for line in self.STATUS.read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("RssAnon", "RssFile"):
                fields[name] = int(value.split()[0]) / 1024  # kB
        if len(fields) == 2:
            self.peak_anon_mb = max(self.peak_anon_mb or 0.0, fields["RssAnon"])
            self.peak_file_mb = max(self.peak_file_mb or 0.0, fields["RssFile"])

    def _sample_until_stopped(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def __enter__(self) -> RssParts:
        if self.STATUS.exists():
            self.sample()
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
            self.sample()


def open_memory_index(corpus: Path, cache: Path) -> tuple[object, dict]:
    """The in-memory (bm25s) index as the server opens it, with build and save timed on the way."""
    from mermaid_verifier.tools.corpus_index import CorpusIndex

    class TimedIndex(CorpusIndex):
        timings: dict[str, float] = {}

        @classmethod
        def build(cls, passages):
            started = time.perf_counter()
            index = super().build(passages)
            cls.timings["build_s"] = time.perf_counter() - started
            return index

        def _save(self, index_dir, paths):
            started = time.perf_counter()
            super()._save(index_dir, paths)
            self.timings["save_s"] = time.perf_counter() - started

    index = TimedIndex.open([corpus], cache)
    return index, {"passages": len(index.passages), "vocabulary": len(index._vocab), **TimedIndex.timings}


def open_tantivy_index(corpus: Path, cache: Path) -> tuple[object, dict]:
    """The on-disk (tantivy) index as the server opens it; a build is the whole cold open."""
    from mermaid_verifier.tools.tantivy_index import TantivyCorpusIndex

    built = not any(cache.glob("tantivy-*/manifest.json"))
    started = time.perf_counter()
    index = TantivyCorpusIndex.open([corpus], cache)
    timings = {"build_s": time.perf_counter() - started, "save_s": 0.0} if built else {}
    return index, {"passages": len(index), "vocabulary": None, **timings}


OPENERS = {"memory": open_memory_index, "tantivy": open_tantivy_index}


def child(phase: str, backend: str, corpus: Path, cache: Path, queries: int, seed: int) -> dict:
    baseline_mb = peak_rss_mb()
    started = time.perf_counter()
    with RssParts() as parts:
        index, details = OPENERS[backend](corpus, cache)
    result = {
        "phase": phase,
        "open_s": time.perf_counter() - started,
        "peak_anon_mb": parts.peak_anon_mb,
        "peak_file_mb": parts.peak_file_mb,
        **details,
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


def run_child(phase: str, backend: str, corpus: Path, cache: Path, queries: int, seed: int) -> dict:
    command = [
        sys.executable,
        "-m",
        "bench.corpus_scale",
        "--_child",
        phase,
        backend,
        str(corpus),
        str(cache),
        str(queries),
        str(seed),
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{phase} phase failed ({done.returncode}):\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- driver


def machine() -> dict:
    """This machine's record with the platform, the load and the date the figures were measured at."""
    from mermaid_verifier.reader.model_check import measurement_record

    return measurement_record()


def synthetic_corpus(size: int, seed: int, directory: Path, log) -> tuple[Path, float | None]:
    """The corpus of ``size`` passages for ``seed`` in ``directory``, written unless already there
    (a kept corpus is reused: writing 25M sentences takes a while); seconds spent writing it, or None."""
    corpus = directory / f"synthetic_wiki-{size}-seed{seed}.jsonl"
    if corpus.is_file():
        log(f"{size:>11,} passages: reusing {corpus}")
        return corpus, None
    partial = corpus.with_suffix(".partial")
    started = time.perf_counter()
    write_corpus(partial, size, seed)
    partial.replace(corpus)  # complete files only: a run killed while writing leaves no corpus to reuse
    return corpus, time.perf_counter() - started


def measure_size(
    size: int, backends: list[str], queries: int, seed: int, scratch: Path, log, keep_dir: Path | None = None
) -> list[dict]:
    """One synthetic corpus of ``size`` passages, indexed and queried by each backend in turn; the
    corpus is removed afterwards unless it lives in ``keep_dir``, the indexes always."""
    directory = Path(tempfile.mkdtemp(prefix=f"corpus-{size}-", dir=scratch))
    corpus, generate_s = synthetic_corpus(size, seed, keep_dir or directory, log)
    corpus_mib = corpus.stat().st_size / 2**20
    log(f"{size:>11,} passages: corpus ready ({corpus_mib:.0f} MiB)")
    rows = []
    for backend in backends:
        cache = directory / f"index-{backend}"
        log(f"{size:>11,} passages, {backend}: cold build …")
        cold = run_child("cold", backend, corpus, cache, 0, seed)
        log(f"{size:>11,} passages, {backend}: cold open {cold['open_s']:.1f}s; opening the built index, querying …")
        cached = run_child("cached", backend, corpus, cache, queries, seed)
        cache_bytes = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
        rows.append(
            {
                "backend": backend,
                "passages": size,
                "corpus_mib": corpus_mib,
                "generate_s": generate_s,
                "vocabulary": cold["vocabulary"],
                "cold_open_s": cold["open_s"],
                "build_s": cold["build_s"],
                "save_s": cold.get("save_s"),
                "read_s": cold["open_s"] - cold["build_s"] - cold.get("save_s", 0.0),
                "cold_peak_rss_mb": cold["peak_rss_mb"],
                "cold_peak_anon_mb": cold["peak_anon_mb"],
                "cold_peak_file_mb": cold["peak_file_mb"],
                "cached_load_s": cached["open_s"],
                "cached_peak_rss_mb": cached["peak_rss_mb"],
                "import_rss_mb": cold["import_rss_mb"],
                "cache_mib": cache_bytes / 2**20,
                "queries": queries,
                "query_p50_ms": cached["query_p50_ms"],
                "query_p95_ms": cached["query_p95_ms"],
                "query_max_ms": cached["query_max_ms"],
                "queries_with_hits": cached["queries_with_hits"],
            }
        )
        log(json.dumps(rows[-1]))
        shutil.rmtree(cache)
    shutil.rmtree(directory)
    return rows


def megabytes(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f}"


def table(rows: list[dict]) -> str:
    header = (
        "| backend | passages | corpus MiB | cold open s (read / build / save) | open built index s | query p50 ms "
        "| query p95 ms | peak RSS build MB | of which anonymous / file-backed MB (peaks) "
        "| peak RSS open + queries MB | index on disk MiB |"
    )
    lines = [header, "|---" * (header.count("|") - 1) + "|"]
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['passages']:,} | {r['corpus_mib']:.0f} | {r['cold_open_s']:.1f} "
            f"({r['read_s']:.1f} / {r['build_s']:.1f} / "
            f"{(r['save_s'] or 0):.1f}) | {r['cached_load_s']:.2f} | {r['query_p50_ms']:.2f} | "
            f"{r['query_p95_ms']:.2f} | {r['cold_peak_rss_mb']:.0f} | {megabytes(r.get('cold_peak_anon_mb'))} / "
            f"{megabytes(r.get('cold_peak_file_mb'))} | {r['cached_peak_rss_mb']:.0f} | "
            f"{r['cache_mib']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--_child":
        phase, backend, corpus, cache, queries, seed = sys.argv[2:8]
        print(json.dumps(child(phase, backend, Path(corpus), Path(cache), int(queries), int(seed))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000, 1_000_000])
    parser.add_argument("--backend", choices=sorted(OPENERS), nargs="+", default=["memory"])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--scratch",
        type=Path,
        default=Path(tempfile.gettempdir()),
        help="where the synthetic corpora and their index caches are written (removed afterwards)",
    )
    parser.add_argument(
        "--keep-corpora",
        type=Path,
        default=None,
        help="keep the generated corpora here and reuse them on later runs (same size and seed)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = parser.parse_args()
    if args.queries < 1:
        parser.error("--queries must be at least 1")
    log = (
        (lambda message: print(message, file=sys.stderr, flush=True)) if args.json else (lambda m: print(m, flush=True))
    )
    info = machine()
    if args.keep_corpora:
        args.keep_corpora.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mermaid-corpus-scale-", dir=args.scratch) as scratch:
        for size in args.sizes:
            rows.extend(
                measure_size(size, args.backend, args.queries, args.seed, Path(scratch), log, args.keep_corpora)
            )
    if args.json:
        print(json.dumps({"machine": info, "queries": args.queries, "seed": args.seed, "results": rows}, indent=2))
        return
    print(
        f"\ncorpus index scale ({args.queries} queries, k=5, seed {args.seed}) — {info['date']}, {info['platform']}, "
        f"{info['cpus']} cpus, Python {info['python']}, load avg {info['load_avg_1m']} at start"
    )
    print(f"machine: {json.dumps(info)}")
    print(table(rows))


if __name__ == "__main__":
    main()
