"""bench.stance_pairs: the per-group sample and the mean readings by origin and gold label, with a stand-in model."""

from __future__ import annotations

import json
import sys

import pytest

from bench import stance_pairs


class Reader:
    """Reads every claim that says 'yes' as supported, anything else as not stated."""

    def probabilities(self, claim: str, passages: list[tuple[str, str]]) -> list[dict[str, float]]:
        if "yes" in claim:
            return [{"supports": 0.8, "refutes": 0.1, "neutral": 0.1}]
        return [{"supports": 0.2, "refutes": 0.2, "neutral": 0.6}]


def row(i: int, origin: str, label: str, claim: str = "yes") -> dict:
    return {"claim": f"{claim} {i}", "evidence": "e", "title": "", "label": label, "origin": origin}


ROWS = (
    [row(i, "vitaminc_real", "SUPPORTS") for i in range(10)]
    + [row(i, "vitaminc_real:edit", "REFUTES", "no") for i in range(10, 13)]
    + [row(i, "feverous", "SUPPORTS", "no") for i in range(13, 15)]
)


def test_sample_keeps_at_most_n_per_origin_and_label_in_file_order():
    kept = stance_pairs.per_group_sample(ROWS, 2, seed=5)
    groups = [stance_pairs.group_of(r) for r in kept]
    assert groups.count(("vitaminc_real", "SUPPORTS")) == 2
    assert groups.count(("vitaminc_real", "REFUTES")) == 2  # 'vitaminc_real:edit' is the same origin
    assert groups.count(("feverous", "SUPPORTS")) == 2
    assert kept == sorted(kept, key=ROWS.index)
    assert kept == stance_pairs.per_group_sample(ROWS, 2, seed=5)
    draws = {tuple(r["claim"] for r in stance_pairs.per_group_sample(ROWS, 2, seed=s)) for s in range(8)}
    assert len(draws) > 1  # the seed chooses which pairs


def test_sample_refuses_an_empty_group_size():
    with pytest.raises(ValueError, match="at least 1"):
        stance_pairs.per_group_sample(ROWS, 0, seed=1)


def test_mean_readings_by_origin_and_label():
    figures = stance_pairs.score_pairs(Reader(), ROWS)
    means = figures["mean_probability_by_origin_label"]
    assert means["vitaminc_real"]["SUPPORTS"] == {"pairs": 10, "supports": 0.8, "refutes": 0.1, "neutral": 0.1}
    assert means["vitaminc_real"]["REFUTES"]["pairs"] == 3
    assert means["feverous"]["SUPPORTS"] == {"pairs": 2, "supports": 0.2, "refutes": 0.2, "neutral": 0.6}
    assert figures["pairs"] == 15
    assert figures["accuracy"] == round(10 / 15, 4)


def test_command_leaves_unlabelled_rows_out_and_records_the_sample(tmp_path, monkeypatch, capsys):
    pairs = tmp_path / "pairs.jsonl"
    rows = ROWS + [{"claim": "yes", "evidence": "e", "title": "", "label": None, "origin": "reader-anchor-claim"}]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setattr("mermaid_verifier.reader.stance.StanceModel", lambda model_dir: Reader())
    out = tmp_path / "figures.json"
    monkeypatch.setattr(sys, "argv", ["stance_pairs", str(pairs), "--per-group", "1", "--out", str(out)])
    stance_pairs.main()
    figures = json.loads(out.read_text())
    assert figures["sample"] == {"per_group": 1, "seed": 13}
    assert figures["unlabelled_left_out"] == 1
    assert figures["pairs"] == 3
    assert "reader-anchor-claim" not in figures["mean_probability_by_origin_label"]


def test_command_refuses_a_file_without_labels(tmp_path, monkeypatch, capsys):
    pairs = tmp_path / "anchors.jsonl"
    pairs.write_text(json.dumps({"claim": "c", "evidence": "e", "label": None, "origin": "reader-anchor-claim"}) + "\n")
    monkeypatch.setattr(sys, "argv", ["stance_pairs", str(pairs)])
    with pytest.raises(SystemExit) as stopped:
        stance_pairs.main()
    assert stopped.value.code == 2
    assert "no labelled pairs" in capsys.readouterr().err


def test_command_names_a_missing_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["stance_pairs", str(tmp_path / "nowhere.jsonl")])
    with pytest.raises(SystemExit) as stopped:
        stance_pairs.main()
    assert stopped.value.code == 2
    assert "nowhere.jsonl: no such pairs file" in capsys.readouterr().err


def test_readings_compare_pair_by_pair_with_compare_runs(tmp_path, monkeypatch):
    from bench import compare_runs

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:3]) + "\n" + json.dumps(ROWS[13]) + "\n")
    monkeypatch.setattr("mermaid_verifier.reader.stance.StanceModel", lambda model_dir: Reader())
    readings = tmp_path / "readings.jsonl.gz"
    monkeypatch.setattr(sys, "argv", ["stance_pairs", str(pairs), "--readings", str(readings)])
    stance_pairs.main()
    import gzip

    rows = [json.loads(line) for line in gzip.open(readings, "rt")]
    # ids are the lines of the file (the blank line 4 holds no pair); the verdict is the largest probability
    assert [r["id"] for r in rows] == ["1", "2", "3", "5"]
    assert [r["verdict"] for r in rows] == ["SUPPORTS"] * 3 + ["NOT ENOUGH INFO"]
    assert rows[3] == {
        "id": "5",
        "gold": "SUPPORTS",
        "verdict": "NOT ENOUGH INFO",
        "probabilities": {"supports": 0.2, "refutes": 0.2, "neutral": 0.6},
    }

    class Yes(Reader):
        def probabilities(self, claim, passages):
            return [{"supports": 0.9, "refutes": 0.05, "neutral": 0.05}]

    monkeypatch.setattr("mermaid_verifier.reader.stance.StanceModel", lambda model_dir: Yes())
    other = tmp_path / "other.jsonl"
    monkeypatch.setattr(sys, "argv", ["stance_pairs", str(pairs), "--readings", str(other)])
    stance_pairs.main()
    figures = compare_runs.compare(compare_runs.verdicts(readings, None), compare_runs.verdicts(other, None), 50)
    assert figures["claims"] == 4
    assert (figures["right_only_baseline"], figures["right_only_candidate"]) == (0, 1)  # line 5, read as supported
