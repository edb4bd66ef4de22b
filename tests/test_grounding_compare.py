"""bench/grounding_compare.py: two grounding ledgers ranked against the gold labels (AUROC) without a fitted
threshold, the difference resampled by whole texts with both readers on the same draw."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

pytest.importorskip("sklearn", reason="the dev extra (scikit-learn) is not installed")

from bench import grounding_compare  # noqa: E402


def row(set_name: str, text: str, gold: bool, support: float) -> dict:
    passage = {"d": 0, "a": 0, "b": 10, "n": 1, "s": support, "r": 0.01, "m": []}
    return {
        "set": set_name,
        "id": text,
        "half": 0,
        "gold": gold,
        "claims": [{"text": "x", "passages": [passage], "hits": [0], "windows": []}],
    }


def write(path: Path, rows: list[dict]) -> Path:
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    return path


def units(scores: list[tuple[bool, float]], set_name: str = "lfqa", per_text: int = 2) -> list[dict]:
    return [row(set_name, f"t{i // per_text}", gold, s) for i, (gold, s) in enumerate(scores)]


GOLD = [True, False] * 20


def test_a_reader_that_ranks_every_unit_right_beats_one_that_ranks_at_random(tmp_path):
    right = units([(g, 0.9 if g else 0.1) for g in GOLD])
    shuffled = units([(g, (i * 37 % 40) / 40) for i, g in enumerate(GOLD)])
    new = grounding_compare.unit_scores(write(tmp_path / "new.jsonl.gz", right), (6, 2, False))
    old = grounding_compare.unit_scores(write(tmp_path / "old.jsonl.gz", shuffled), (6, 2, False))
    figures = grounding_compare.compare(new, old, rounds=200)
    lfqa = figures["lfqa"]
    assert lfqa["auroc_new"] == 1.0 and lfqa["auroc_old"] < 0.8
    assert lfqa["units"] == 40 and lfqa["texts"] == 20 and lfqa["supported"] == 20
    assert 0 < lfqa["interval_5_95"][0] <= lfqa["difference"] <= lfqa["interval_5_95"][1]
    assert lfqa["share_of_draws_new_better"] == 1.0
    assert figures["wice"] == {"units": 0, "texts": 0, "auroc": None}
    # the same ledger against itself: no difference on any draw
    same = grounding_compare.compare(new, new, rounds=50)["lfqa"]
    assert same["difference"] == 0 and same["interval_5_95"] == [0, 0] and same["share_of_draws_new_better"] == 0


def test_units_are_matched_by_text_and_order_and_a_changed_gold_label_is_refused(tmp_path):
    old = grounding_compare.unit_scores(
        write(tmp_path / "old.jsonl.gz", units([(g, 0.5) for g in GOLD])), (6, 2, False)
    )
    fewer = grounding_compare.unit_scores(
        write(tmp_path / "few.jsonl.gz", units([(g, 0.5) for g in GOLD[:10]])), (6, 2, False)
    )
    assert grounding_compare.compare(fewer, old, rounds=10)["lfqa"]["units"] == 10
    flipped = grounding_compare.unit_scores(
        write(tmp_path / "flip.jsonl.gz", units([(not g, 0.5) for g in GOLD])), (6, 2, False)
    )
    with pytest.raises(ValueError, match="another gold label"):
        grounding_compare.compare(flipped, old, rounds=10)


def test_the_command_names_a_missing_ledger_and_prints_the_figures(tmp_path, capsys):
    ledger = write(tmp_path / "a.jsonl.gz", units([(g, 0.9 if g else 0.1) for g in GOLD], "wice", per_text=1))
    assert grounding_compare.main(["--ledger", str(tmp_path / "none.jsonl.gz"), "--against", str(ledger)]) == 2
    assert "none.jsonl.gz: no such ledger" in capsys.readouterr().err
    assert grounding_compare.main(["--ledger", str(ledger), "--against", str(ledger), "--rounds", "20"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["wice"]["auroc_new"] == 1.0 and printed["wice"]["texts"] == 40


def claim_row(text: str, gold: bool, claims: list[tuple[str, float]]) -> dict:
    return {
        "set": "lfqa",
        "id": text,
        "half": 0,
        "gold": gold,
        "claims": [
            {
                "text": words,
                "passages": [{"d": 0, "a": 0, "b": 10, "n": 1, "s": s, "r": 0.0, "m": []}],
                "hits": [0],
                "windows": [],
            }
            for words, s in claims
        ],
    }


def test_by_length_bins_claims_and_shows_a_reader_that_reads_long_claims_lower(tmp_path):
    short, long = "a b c", " ".join(["w"] * 30)
    # the new reader ranks the claims of each length as the old one does, but scores every long claim 0.3 lower
    old_rows = [
        claim_row(f"t{i}", g, [(short, 0.8 if g else 0.3), (long, 0.9 if g else 0.6)]) for i, g in enumerate(GOLD)
    ]
    new_rows = [
        claim_row(f"t{i}", g, [(short, 0.8 if g else 0.3), (long, 0.6 if g else 0.3)]) for i, g in enumerate(GOLD)
    ]
    new_rows.append(claim_row("extra", True, [(short, 0.5)]))  # a unit the old ledger lacks
    setting = (6, 2, False)
    new = grounding_compare.claim_scores(write(tmp_path / "new.jsonl.gz", new_rows), setting)
    old = grounding_compare.claim_scores(write(tmp_path / "old.jsonl.gz", old_rows), setting)
    figures = grounding_compare.by_length(new, old)["lfqa"]
    assert figures["claims"] == 80 and figures["in_one_ledger_only"] == 1
    assert list(figures["bins"]) == ["1-14", "25-34"]
    short_bin, long_bin = figures["bins"]["1-14"], figures["bins"]["25-34"]
    assert short_bin["support_new"] == short_bin["support_old"] == {"supported": 0.8, "unsupported": 0.3}
    assert long_bin["support_new"] == {"supported": 0.6, "unsupported": 0.3}
    assert long_bin["support_old"] == {"supported": 0.9, "unsupported": 0.6}
    assert long_bin["auroc_new"] == long_bin["auroc_old"] == 1.0 and long_bin["claims"] == 40
    assert grounding_compare.length_bin(14) == "1-14" and grounding_compare.length_bin(35) == "35+"
    flipped = grounding_compare.claim_scores(
        write(tmp_path / "flip.jsonl.gz", [claim_row(f"t{i}", not g, [(short, 0.5)]) for i, g in enumerate(GOLD)]),
        setting,
    )
    with pytest.raises(ValueError, match="another gold label"):
        grounding_compare.by_length(flipped, old)


def test_the_command_adds_the_length_bins_when_asked(tmp_path, capsys):
    rows = [claim_row(f"t{i}", g, [("a b", 0.9 if g else 0.1)]) for i, g in enumerate(GOLD)]
    ledger = write(tmp_path / "a.jsonl.gz", rows)
    assert grounding_compare.main(["--ledger", str(ledger), "--against", str(ledger), "--rounds", "5"]) == 0
    assert "by_length" not in json.loads(capsys.readouterr().out)
    assert (
        grounding_compare.main(["--ledger", str(ledger), "--against", str(ledger), "--rounds", "5", "--by-length"]) == 0
    )
    printed = json.loads(capsys.readouterr().out)["by_length"]
    assert printed["lfqa"]["bins"]["1-14"]["auroc_new"] == 1.0 and printed["wice"] == {
        "claims": 0,
        "in_one_ledger_only": 0,
        "bins": {},
    }
