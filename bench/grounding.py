"""Grounding measured the way LLM-AggreFact measures it: balanced accuracy of "supported" vs "not", per LFQA
sentence and per WiCE claim, each against the documents given with it; and how often a claim the documents do
not state is called contradicted.

Data (``../shared/data/grounding/``): ``lfqa_dev.jsonl`` (200 answers, 1,262 sentences labelled by three
annotators; "supported" by majority, "partially" counts as not) and ``wice_dev.jsonl`` (349 Wikipedia claims
with the page each cites; "partially supported" counts as not). Sets read (``--sets``):

* ``lfqa``, ``wice``: the dev sets as they are;
* ``wice_deleted``: the WiCE dev claims labelled supported, against their page with every supporting sentence
  (the union of ``supporting_sentences``) deleted: nothing there states them, so each should come back not
  stated, neither supported nor contradicted;
* ``unmentioned``: ``bench/data/unmentioned_claims.jsonl``, 107 claims written about the subjects of 28 WiCE dev
  pages that those pages do not state (nor their opposite), each with the page it is checked against and the
  words of its relation and value (``absent``) the page must not hold (checked here when the set is read).

Each text's claims come from the pipeline's extractor; each claim's passages (the ``PASSAGES`` BM25 hits and
windows of ``WINDOW`` sentences around the best ``WINDOWS`` of them: a superset of every setting scored) are
read once by the stance model, and the ledger keeps, per claim, every passage's P(supports), P(refutes), the
claim's numbers, dates and names it lacks, and (where P(refutes) >= 0.3) whether it speaks to the claim's slot,
with the document lines it covers (WiCE). ``score`` then replays :func:`mermaid_verifier.texts.grounding.decide_claim`
on the ledger for any setting without reading again: a sentence is supported when all its claims are (one
without a claim counts as supported: nothing was flagged in it). The settings are chosen on one half of the
questions (LFQA) or pages (WiCE) and scored on the other, both ways (``halves``); the one setting that ships is
fitted on both sets together among those that read at most ``MAX_READS`` passages a claim (as many as before).

    python -m bench.grounding run [--data ../shared/data] [--sets lfqa wice wice_deleted unmentioned]
    python -m bench.grounding score [--ledger …] [--threshold T]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gzip
import hashlib
import json
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LEDGER = REPO / "bench" / "results" / "grounding" / "ledger.jsonl.gz"
UNMENTIONED = REPO / "bench" / "data" / "unmentioned_claims.jsonl"
SETS = ("lfqa", "wice", "wice_deleted", "unmentioned")
PASSAGES, WINDOWS, WINDOW = 8, 2, 4  # what the ledger reads: a superset of the settings scored
SLOT_FROM = 0.3  # passages read at or above this P(refutes) get the slot check in the ledger
THRESHOLDS = [round(0.30 + 0.02 * i, 2) for i in range(34)]
BAND_EDGES = [round(0.05 * i, 2) for i in range(1, 20)] + [0.97, 0.99]  # where an undecided band may start or end
MAX_UNDECIDED = 0.25  # the band leaves at most this share of each set's units undecided
MAX_READS = 8  # what ships reads no more passages a claim than before, so no claim is slower
SETTINGS = {  # (passages, windows, coverage): what the fit chooses among
    "hits 8": (8, 0, False),
    "hits 8 + coverage": (8, 0, True),
    "hits 6 + 2 windows": (6, 2, False),
    "hits 6 + 2 windows + coverage": (6, 2, True),
    "hits 8 + 2 windows": (8, 2, False),
    "hits 8 + 2 windows + coverage": (8, 2, True),
}


def half(key: str) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % 2


def _wice_rows(data: Path) -> list[dict]:
    return [json.loads(line) for line in (data / "grounding" / "wice_dev.jsonl").open()]


def _lfqa_rows(data: Path) -> list[dict]:
    return [json.loads(line) for line in (data / "grounding" / "lfqa_dev.jsonl").open()]


def _lfqa_documents(row: dict) -> list[dict]:
    return [
        {"name": d["title"] or f"document {i + 1}", "title": d["title"], "text": d["text"]}
        for i, d in enumerate(row["documents"])
    ]


def units(data: Path, sets: tuple[str, ...] = SETS) -> list[dict]:
    """The texts to check, with their documents and gold labels (and, for WiCE, the gold evidence lines)."""
    out = []
    if "lfqa" in sets:
        for row in _lfqa_rows(data):
            out.append(
                {
                    "set": "lfqa",
                    "id": row["id"],
                    "half": half(row["question"]),
                    "sentences": [{"text": s["text"], "supported": s["supported"]} for s in row["sentences"]],
                    "documents": _lfqa_documents(row),
                }
            )
    for row in _wice_rows(data):
        if "wice" in sets:
            out.append(
                {
                    "set": "wice",
                    "id": row["id"],
                    "half": half(row["title"]),
                    "sentences": [{"text": row["claim"], "supported": row["supported"]}],
                    "documents": [{"name": "cited page", "title": "", "text": row["document"]}],
                    "gold_sets": row["supporting_sentences"],
                }
            )
        if "wice_deleted" in sets and row["label"] == "supported" and row["supporting_sentences"]:
            gold = {i for group in row["supporting_sentences"] for i in group}
            kept = [line for i, line in enumerate(row["document"].split("\n")) if i not in gold]
            out.append(
                {
                    "set": "wice_deleted",
                    "id": row["id"],
                    "half": half(row["title"]),
                    "sentences": [{"text": row["claim"], "supported": False}],
                    "documents": [{"name": "cited page", "title": "", "text": "\n".join(kept)}],
                }
            )
    if "unmentioned" in sets:
        wice = {r["id"]: r for r in _wice_rows(data)}
        lfqa = {r["id"]: r for r in _lfqa_rows(data)}
        for number, line in enumerate(UNMENTIONED.open()):
            row = json.loads(line)
            if row["source"] == "wice":
                documents = [{"name": "cited page", "title": "", "text": wice[row["id"]]["document"]}]
            elif row["source"] == "lfqa":
                documents = _lfqa_documents(lfqa[row["id"]])
            else:
                documents = row["documents"]
            said = " ".join(d["text"] for d in documents).lower()
            present = [w for w in row["absent"] if re.search(r"(?<![a-z])" + re.escape(w), said)]
            if present:
                raise ValueError(f"{UNMENTIONED}: {row['claim']!r}: its documents say {present}; fix the claim")
            out.append(
                {
                    "set": "unmentioned",
                    "id": f"{row['id']}#{number}",
                    "half": 0,
                    "sentences": [{"text": row["claim"], "supported": False}],
                    "documents": documents,
                }
            )
    return out


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for line in text.split("\n"):
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


async def _read_claim(reader, index, claim, lines: list[tuple[int, int]] | None) -> dict:
    """One claim's passages (the ledger's superset), read, with each one's lacking values and slot check."""
    from mermaid_verifier.agents.quantities import aligned
    from mermaid_verifier.agents.slots import ClaimReader
    from mermaid_verifier.texts.grounding import passages_for

    wide = dataclasses.replace(reader.config, passages=PASSAGES, windows=WINDOWS, window_sentences=WINDOW)
    passages = await asyncio.to_thread(passages_for, index, claim, wide)
    slots = await asyncio.to_thread(ClaimReader.of, claim.text)
    readings = await reader.stance.aprobabilities(  # as read_claim gives them: numbers aligned as quantities
        claim.text, [(p.title, aligned(claim.text, p.text)) for p in passages], max_length=reader.config.max_length
    )
    hits = passages[:PASSAGES]
    keys = {(p.document, p.start, p.end): i for i, p in enumerate(passages)}
    windows = [keys[(w.document, w.start, w.end)] for w in (index.window(h, WINDOW) for h in hits[:WINDOWS])]

    def entry(p, r) -> dict:
        row = {
            "d": p.document,
            "a": p.start,
            "b": p.end,
            "n": p.sentences,
            "s": round(r.get("supports", 0.0), 4),
            "r": round(r.get("refutes", 0.0), 4),
            "m": slots.missing(p.text, p.title),
        }
        if row["r"] >= SLOT_FROM:
            slot = slots.speaks(p.text, p.title)
            row["slot"], row["why"] = slot.states_slot, slot.reason
        if lines is not None and p.document == 0:
            row["lines"] = [i for i, (a, b) in enumerate(lines) if a < p.end and b > p.start and b > a]
        return row

    rows = await asyncio.to_thread(lambda: [entry(p, r) for p, r in zip(passages, readings)])
    return {"text": claim.text, "passages": rows, "hits": list(range(len(hits))), "windows": windows}


def done_in(ledger: Path) -> set[tuple[str, str]]:
    """The (set, id) of the texts a ledger already holds."""
    return {(r["set"], r["id"]) for r in map(json.loads, gzip.open(ledger, "rt"))} if ledger.exists() else set()


async def run(data: Path, out: Path, sets: tuple[str, ...], limit: int | None, done: set[tuple[str, str]]) -> None:
    """Read the sets in the order given, appending each text's rows to the ledger as it is done; texts already
    in the ledger are not read again (a run stopped part-way goes on where it stopped)."""
    from mermaid_verifier.reader.model_check import machine_record
    from mermaid_verifier.texts import TextJob
    from mermaid_verifier.texts.grounding import as_documents

    started = time.perf_counter()
    slots = asyncio.Semaphore(2)
    texts = 0
    async with TextJob.open(documents_only=True) as job:
        reader = job.given_documents  # the stance model, the reading settings, the passage indexes
        assert reader is not None

        async def bounded(index, claim, lines):
            async with slots:
                return await _read_claim(reader, index, claim, lines)

        for name in sets:
            items = [i for i in units(data, (name,))[:limit] if (i["set"], i["id"]) not in done]
            for number, item in enumerate(items, 1):
                text = " ".join(s["text"] for s in item["sentences"])
                documents = as_documents(item["documents"])
                extraction, index = await asyncio.gather(
                    job.extractor.aextract(text),
                    asyncio.to_thread(reader.indexes.get, documents, reader.config.sizes),
                )
                lines = _line_spans(documents[0].text) if item["set"] == "wice" else None
                claims = await asyncio.gather(*(bounded(index, c, lines) for c in extraction.claims))
                cursor, rows = 0, []
                for sentence in item["sentences"]:
                    start = text.index(sentence["text"], cursor)
                    end = start + len(sentence["text"])
                    cursor = end
                    row = {
                        "set": item["set"],
                        "id": item["id"],
                        "half": item["half"],
                        "gold": sentence["supported"],
                        "claims": [r for c, r in zip(extraction.claims, claims) if c.start < end and c.end > start],
                    }
                    if "gold_sets" in item:
                        row["gold_sets"] = item["gold_sets"]
                    rows.append(row)
                with gzip.open(out, "at") as f:
                    f.writelines(json.dumps(row) + "\n" for row in rows)
                texts += 1
                if number % 20 == 0:
                    elapsed = time.perf_counter() - started
                    print(f"{name}: {number}/{len(items)} texts, {elapsed:.0f} s", file=sys.stderr, flush=True)
    meta = {
        "sets": list(sets),
        "texts_read_by_this_run": texts,
        "seconds": round(time.perf_counter() - started, 1),
        "read": {"passages": PASSAGES, "windows": WINDOWS, "window_sentences": WINDOW, "slot_from": SLOT_FROM},
        "config": json.loads((REPO / "data" / "grounding_config.json").read_text()),
        "machine": machine_record(),
    }
    out.with_name(out.name.replace(".jsonl.gz", "") + ".run.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta, indent=1))


# --------------------------------------------------------------------------- replaying the decision


def claim_status(claim: dict, setting: tuple[int, int, bool], threshold: float, refute: float, slots: bool) -> str:
    """The pipeline's decision (:func:`decide_claim`) on a ledger claim, for a setting."""
    from mermaid_verifier.agents.slots import SlotReading
    from mermaid_verifier.models import ExtractedClaim
    from mermaid_verifier.texts.grounding import decide_claim
    from mermaid_verifier.tools.passages import DocumentPassage

    coverage = setting[2]
    rows = chosen(claim, setting)
    passages = [DocumentPassage(r["d"], "", "", "", r["a"], r["b"], 0, r["n"]) for r in rows]
    readings = [{"supports": r["s"], "refutes": r["r"]} for r in rows]
    by_span = {(r["d"], r["a"], r["b"]): r for r in rows}
    decided = decide_claim(
        0,
        ExtractedClaim(text=claim["text"], sentence=claim["text"], start=0, end=len(claim["text"])),
        passages,
        readings,
        threshold,
        refute_threshold=refute,
        missing=(lambda p: by_span[(p.document, p.start, p.end)]["m"]) if coverage else None,
        speaks=(
            lambda p: SlotReading(
                about_subject=True, states_slot=by_span[(p.document, p.start, p.end)]["slot"], reason=""
            )
        )
        if slots
        else None,
    )
    return decided.status


def chosen(claim: dict, setting: tuple[int, int, bool]) -> list[dict]:
    """The ledger passages a setting reads for a claim: its first hits, then windows around the best."""
    passages_n, windows_n, _ = setting
    picked = dict.fromkeys([*claim["hits"][:passages_n], *claim["windows"][: min(windows_n, passages_n)]])
    return [claim["passages"][i] for i in picked]


def best_support(claim: dict, setting: tuple[int, int, bool]) -> float:
    """The highest P(supports) among the passages that may support the claim under a setting (with coverage,
    those that lack none of its numbers, dates and names): it is supported at a threshold this reaches."""
    coverage = setting[2]
    return max((p["s"] for p in chosen(claim, setting) if not (coverage and p["m"])), default=0.0)


def sentence_support(row: dict, setting: tuple[int, int, bool]) -> float:
    """A sentence is supported when all its claims are: the lowest of their best supports (none: supported)."""
    return min((best_support(c, setting) for c in row["claims"]), default=1.0)


def balanced_accuracy(rows: list[dict], setting: tuple[int, int, bool], threshold: float) -> float | None:
    positives = [sentence_support(r, setting) for r in rows if r["gold"]]
    negatives = [sentence_support(r, setting) for r in rows if not r["gold"]]
    if not positives or not negatives:
        return None
    tpr = sum(s >= threshold for s in positives) / len(positives)
    tnr = sum(s < threshold for s in negatives) / len(negatives)
    return round((tpr + tnr) / 2, 4)


def fitted(rows: list[dict], settings: dict[str, tuple[int, int, bool]]) -> tuple[str, float]:
    """The setting and threshold with the best balanced accuracy on ``rows``."""
    return max(
        ((label, t) for label in settings for t in THRESHOLDS),
        key=lambda c: balanced_accuracy(rows, settings[c[0]], c[1]) or 0,
    )


def halves(part: list[dict], settings: dict[str, tuple[int, int, bool]]) -> dict:
    """Fitted on one half, scored on the other, both ways."""
    out = []
    for tuned in (0, 1):
        fit = [r for r in part if r["half"] == tuned]
        test = [r for r in part if r["half"] != tuned]
        label, t = fitted(fit, settings)
        out.append(
            {
                "tuned_on_half": tuned,
                "setting": label,
                "threshold": t,
                "fit": balanced_accuracy(fit, settings[label], t),
                "held_out": balanced_accuracy(test, settings[label], t),
            }
        )
    held = [h["held_out"] for h in out if h["held_out"] is not None]
    return {"halves": out, "held_out_mean": round(sum(held) / len(held), 4) if held else None}


def band_reading(rows: list[dict], setting: tuple[int, int, bool], band: tuple[float, float]) -> dict:
    """With an undecided band (lo, hi): the share of units undecided (their sentence's lowest claim support in
    [lo, hi): no claim decided against, one the reader cannot tell), the balanced accuracy on the decided ones
    (supported from ``hi``), and how often the threshold's label is right inside the band."""
    lo, hi = band
    supports = [(sentence_support(r, setting), r["gold"]) for r in rows]
    decided = [(s, gold) for s, gold in supports if not lo <= s < hi]
    inside = [(s, gold) for s, gold in supports if lo <= s < hi]
    positives = [s >= hi for s, gold in decided if gold]
    negatives = [s < lo for s, gold in decided if not gold]
    balanced = (
        (sum(positives) / len(positives) + sum(negatives) / len(negatives)) / 2 if positives and negatives else None
    )
    return {
        "undecided": round(len(inside) / len(rows), 4) if rows else None,
        "balanced_decided": None if balanced is None else round(balanced, 4),
        "inside": len(inside),
    }


def fitted_band(parts: list[list[dict]], setting: tuple[int, int, bool], threshold: float) -> tuple[float, float]:
    """The band around ``threshold`` with the best mean balanced accuracy on the decided units of ``parts``, among
    bands that leave at most ``MAX_UNDECIDED`` of each part undecided."""
    best, best_score = (threshold, threshold), -1.0
    for lo in [e for e in BAND_EDGES if e <= threshold] + [threshold]:
        for hi in [threshold] + [e for e in BAND_EDGES if e >= threshold]:
            readings = [band_reading(part, setting, (lo, hi)) for part in parts]
            if any(r["undecided"] is None or r["undecided"] > MAX_UNDECIDED for r in readings):
                continue
            score = sum(r["balanced_decided"] or 0 for r in readings) / len(readings)
            if score > best_score + 1e-9:
                best, best_score = (lo, hi), score
    return best


def band_figures(by_set: dict[str, list[dict]], setting: tuple[int, int, bool], threshold: float) -> dict:
    """The undecided band fitted on both sets' dev units, and fitted on one half of each, scored on the other."""
    names = [n for n in ("lfqa", "wice") if by_set.get(n)]
    band = fitted_band([by_set[n] for n in names], setting, threshold)
    halves_out = []
    for tuned in (0, 1):
        fit = [[r for r in by_set[n] if r["half"] == tuned] for n in names]
        held = {n: [r for r in by_set[n] if r["half"] != tuned] for n in names}
        half_band = fitted_band(fit, setting, threshold)
        halves_out.append(
            {"tuned_on_half": tuned, "band": list(half_band)}
            | {n: band_reading(held[n], setting, half_band) for n in names}
        )
    return {
        "band": list(band),
        "max_undecided": MAX_UNDECIDED,
        "fitted_on_all_dev": {n: band_reading(by_set[n], setting, band) for n in names},
        "halves": halves_out,
    }


def shares(rows: list[dict], *args) -> dict:
    """Per text (a WiCE claim): supported (all its claims), contradicted (any), else not stated."""
    counts = {"supported": 0, "contradicted": 0, "not stated": 0}
    for row in rows:
        statuses = [claim_status(c, *args) for c in row["claims"]]
        key = (
            "supported" if all(s == "supported" for s in statuses)
            else "contradicted" if "contradicted" in statuses else "not stated"
        )  # fmt: skip
        counts[key] += 1
    return {k: round(v / len(rows), 4) for k, v in counts.items()} | {"texts": len(rows)} if rows else {}


def evidence_recall(rows: list[dict], setting: tuple[int, int, bool]) -> dict:
    """WiCE: how often the passages read (over all the claim's extracted claims) hold a whole gold evidence
    set, and each gold sentence."""
    passages_n, windows_n, _ = setting
    full = sentences = found = 0
    with_gold = [r for r in rows if r.get("gold_sets")]
    for row in with_gold:
        covered: set[int] = set()
        for claim in row["claims"]:
            chosen = set(claim["hits"][:passages_n]) | set(claim["windows"][: min(windows_n, passages_n)])
            for i in chosen:
                covered |= set(claim["passages"][i].get("lines", []))
        full += any(set(group) <= covered for group in row["gold_sets"])
        gold = {i for group in row["gold_sets"] for i in group}
        sentences += len(gold)
        found += len(gold & covered)
    return {
        "claims": len(with_gold),
        "a_whole_gold_set": round(full / len(with_gold), 4) if with_gold else None,
        "gold_sentences": round(found / sentences, 4) if sentences else None,
    }


def score(ledger: Path, threshold: float | None) -> dict:
    rows = [json.loads(line) for line in gzip.open(ledger, "rt")]
    by_set = {name: [r for r in rows if r["set"] == name] for name in SETS}
    figures: dict = {"sentences": len(rows), "without_claim": sum(not r["claims"] for r in rows)}
    old = {"hits 8": SETTINGS["hits 8"]}
    for name in ("lfqa", "wice"):
        part = by_set[name]
        if not part:
            continue
        figures[name] = {
            "units": len(part),
            "texts": len({r["id"] for r in part}),
            "supported": sum(r["gold"] for r in part),
            "before": {  # the reading as it was: 8 BM25 hits, no windows, no coverage, threshold 0.78
                "shipped_0.78": balanced_accuracy(part, SETTINGS["hits 8"], 0.78),
                **halves(part, old),
            },
            "after": halves(part, SETTINGS),
            "by_setting_held_out_mean": {
                label: halves(part, {label: s})["held_out_mean"] for label, s in SETTINGS.items()
            },
        }
    if by_set["wice"]:
        figures["wice_evidence_recall"] = {label: evidence_recall(by_set["wice"], s) for label, s in SETTINGS.items()}
    shippable = [label for label, (hits, windows, _) in SETTINGS.items() if hits + windows <= MAX_READS]
    both = max(
        ((label, t) for label in shippable for t in THRESHOLDS),
        key=lambda c: sum(balanced_accuracy(by_set[n], SETTINGS[c[0]], c[1]) or 0 for n in ("lfqa", "wice")),
    )
    label, t = both[0], threshold if threshold is not None else both[1]
    setting = SETTINGS[label]
    figures["one_setting"] = {
        "setting": label,
        "threshold": t,
        "fitted_on_all_dev": threshold is None,
        "lfqa": balanced_accuracy(by_set["lfqa"], setting, t),
        "wice": balanced_accuracy(by_set["wice"], setting, t),
    }
    figures["undecided"] = band_figures(by_set, setting, t)
    checks = {
        "wice_supported_as_is": [r for r in by_set["wice"] if r["gold"]],
        "wice_deleted": by_set["wice_deleted"],
        "unmentioned": by_set["unmentioned"],
    }
    figures["statuses"] = {
        name: {
            "after (slot check)": shares(part, setting, t, t, True),
            "after without the slot check": shares(part, setting, t, t, False),
            "before (hits 8, no coverage, no slot check, 0.78)": shares(part, SETTINGS["hits 8"], 0.78, 0.78, False),
        }
        for name, part in checks.items()
        if part
    }
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    r.add_argument("--out", type=Path, default=LEDGER)
    r.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    r.add_argument("--limit", type=int, default=None)
    s = sub.add_parser("score")
    s.add_argument("--ledger", type=Path, nargs="+", default=[LEDGER])
    s.add_argument("--threshold", type=float, default=None)
    args = parser.parse_args()
    if args.command == "run":
        if not (args.data / "grounding").is_dir():
            print(f"{args.data / 'grounding'} not found: pass --data DIR (the shared data folder)", file=sys.stderr)
            return 2
        args.out.parent.mkdir(parents=True, exist_ok=True)
        asyncio.run(run(args.data, args.out, tuple(args.sets), args.limit, done_in(args.out)))
        return 0
    merged = args.ledger[0]
    if len(args.ledger) > 1:
        merged = args.ledger[0].with_name("merged.tmp.jsonl.gz")
        with gzip.open(merged, "wt") as f:
            for ledger in args.ledger:
                f.writelines(gzip.open(ledger, "rt"))
    print(json.dumps(score(merged, args.threshold), indent=1))
    if merged not in args.ledger:
        merged.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
