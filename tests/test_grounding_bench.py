"""bench/grounding.py's ledger writer, run on a hand-made WiCE row: every claim's passages are read by the stance
model, with the values each lacks, the slot check where a passage reads as refuting, and the page lines it covers;
the replay then decides the claim from the ledger alone. Guards the bench against the pipeline's interfaces
moving under it (it reads through the text job's grounding reader)."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PAGE = "\n".join(
    [
        "Ada Lovelace was an English mathematician and writer.",
        "She was born in London in 1815.",
        "She is chiefly known for her work on Charles Babbage's Analytical Engine.",
        "She died in 1852 at the age of 36.",
    ]
)


def load_bench():
    from bench import grounding

    return grounding


def test_the_ledger_reads_every_claim_and_replays_its_decision(tmp_path):
    bench = load_bench()
    data = tmp_path / "data"
    (data / "grounding").mkdir(parents=True)
    row = {
        "id": "dev-ada",
        "claim": "Ada Lovelace was born in London in 1815.",
        "title": "Ada Lovelace",
        "document": PAGE,
        "label": "supported",
        "supported": True,
        "supporting_sentences": [[1]],
    }
    (data / "grounding" / "wice_dev.jsonl").write_text(json.dumps(row) + "\n")
    ledger = tmp_path / "ledger.jsonl.gz"

    asyncio.run(bench.run(data, ledger, ("wice", "wice_deleted"), None, set()))

    rows = [json.loads(line) for line in gzip.open(ledger, "rt")]
    assert [(r["set"], r["id"], r["gold"]) for r in rows] == [
        ("wice", "dev-ada", True),
        ("wice_deleted", "dev-ada", False),
    ]
    for r in rows:
        assert r["claims"], r
        for claim in r["claims"]:
            assert claim["passages"] and claim["hits"]
            for passage in claim["passages"]:
                assert 0 <= passage["s"] <= 1 and 0 <= passage["r"] <= 1 and isinstance(passage["m"], list)
                assert ("slot" in passage) == (passage["r"] >= bench.SLOT_FROM)
    wice, deleted = rows
    assert any(1 in p.get("lines", []) for c in wice["claims"] for p in c["passages"])  # the gold line was read
    assert all("lines" not in p for c in deleted["claims"] for p in c["passages"])
    assert bench.done_in(ledger) == {("wice", "dev-ada"), ("wice_deleted", "dev-ada")}
    setting = bench.SETTINGS["hits 6 + 2 windows"]
    assert {bench.claim_status(c, setting, 0.72, 0.78, True) for r in rows for c in r["claims"]} <= {
        "supported",
        "contradicted",
        "not stated",
    }
    assert (tmp_path / "ledger.run.json").is_file()


def test_the_undecided_band_takes_the_units_the_reader_gets_wrong_within_its_budget():
    bench = load_bench()
    setting = (1, 0, False)

    def unit(support: float, gold: bool, half: int = 0) -> dict:
        claim = {"hits": [0], "windows": [], "passages": [{"s": support, "m": []}]}
        return {"gold": gold, "half": half, "claims": [claim]}

    # sure readings are right; those between 0.4 and 0.8 are right half the time
    rows = [unit(0.95, True)] * 40 + [unit(0.1, False)] * 40
    rows += [unit(0.6, True), unit(0.6, False), unit(0.5, True), unit(0.5, False)] * 5
    band = bench.fitted_band([rows], setting, threshold=0.55)
    assert band[0] <= 0.5 and band[1] > 0.6  # every coin-flip reading is inside, within the 25 % budget
    reading = bench.band_reading(rows, setting, band)
    assert reading["undecided"] == 20 / 100 and reading["balanced_decided"] == 1.0
    assert bench.band_reading(rows, setting, (0.55, 0.55))["undecided"] == 0.0
    crowded = [unit(0.6, True), unit(0.6, False)] * 30 + [unit(0.95, True), unit(0.1, False)] * 10
    lo, hi = bench.fitted_band([crowded], setting, threshold=0.55)
    assert bench.band_reading(crowded, setting, (lo, hi))["undecided"] <= bench.MAX_UNDECIDED  # never over budget
