"""bench/gold_readings.py: FEVER's gold sentences read alone by each model, grouped by how many years they hold."""

from __future__ import annotations

import json

import pytest

from bench.gold_readings import gold_pairs, group_of, main, read_all, summarise

SPAN = "Dan O'Bannon (September 30, 1946 -- December 17, 2009) was an American film screenwriter."
CLAIMS = [
    {"id": 1, "claim": "Dan O'Bannon died in 2009.", "label": "SUPPORTS", "evidence": [[[0, 0, "Dan_O'Bannon", 0]]]},
    {"id": 2, "claim": "Paris is in Spain.", "label": "REFUTES",
     "evidence": [[[0, 0, "Paris", 5], [0, 0, "France", 1]], [[0, 0, "Missing", 3]], [[0, 0, "Paris", 0]]]},
    {"id": 3, "claim": "Paris is old.", "label": "NOT ENOUGH INFO", "evidence": [[[0, None, None, None]]]},
    {"id": 4, "claim": "Rome is in Italy.", "label": "SUPPORTS", "evidence": [[[0, 0, "Rome", 0]]]},
]  # fmt: skip
CORPUS = {
    ("Dan_O'Bannon", 0): {"title": "Dan O'Bannon", "text": SPAN},
    ("Paris", 0): {"title": "Paris", "text": "Paris is the capital of France."},
    ("Paris", 5): {"title": "Paris", "text": "Paris lies on the Seine."},
    ("Rome", 0): {"title": "Rome", "text": "Rome is the capital of Italy."},
}
ASSIGNMENT = {"1": "train", "2": "train", "3": "train", "4": "validation"}


def test_a_pair_is_a_claims_first_single_sentence_gold_group_the_corpus_holds_in_the_part_asked():
    pairs = gold_pairs(CLAIMS, CORPUS, ASSIGNMENT, "train")
    # claim 2: its two-sentence group and the missing sentence are passed over; NEI and other parts are left out
    assert [(p["id"], p["title"], p["evidence"]) for p in pairs] == [
        (1, "Dan O'Bannon", SPAN),
        (2, "Paris", "Paris is the capital of France."),
    ]
    assert [group_of(p["evidence"]) for p in pairs] == ["several years", "other"]


def test_a_sentence_is_grouped_by_the_first_kind_of_value_it_names_twice_years_before_ranks_before_numbers():
    assert group_of("Saturn is the sixth planet from the Sun and the second-largest, after Jupiter.") == "several ranks"
    assert group_of("He played 13 games, scoring 2 goals.") == "several numbers"
    assert group_of("In 1938 he played his 2nd season and his 3rd, 13 games in all.") == "several ranks"
    assert group_of("From 1938 to 1946 he played 13 games in his 2nd and 3rd seasons.") == "several years"
    assert group_of("He played 13 games in 1938.") == "other"


def test_each_models_gold_probability_is_summed_by_label_and_group_and_moves_are_counted_against_the_first():
    pairs = gold_pairs(CLAIMS, CORPUS, ASSIGNMENT, "train")
    readings = {
        "shipped": [{"supports": 0.9, "refutes": 0.05, "neutral": 0.05}, {"supports": 0.1, "refutes": 0.8, "neutral": 0.1}],
        "student": [{"supports": 0.4, "refutes": 0.55, "neutral": 0.05}, {"supports": 0.1, "refutes": 0.7, "neutral": 0.2}],
    }  # fmt: skip
    out = summarise(pairs, readings)
    assert out["shipped"]["SUPPORTS / several years"] == {"pairs": 1, "named_gold": 1, "mean_gold_probability": 0.9}
    assert out["student"]["SUPPORTS / several years"] == {
        "pairs": 1, "named_gold": 0, "mean_gold_probability": 0.4, "fell": 1, "rose": 0
    }  # fmt: skip
    assert out["student"]["REFUTES / other"] == {
        "pairs": 1, "named_gold": 1, "mean_gold_probability": 0.7, "fell": 0, "rose": 0
    }  # fmt: skip


def test_every_model_reads_every_pair_alone_under_its_title():
    pairs = gold_pairs(CLAIMS, CORPUS, ASSIGNMENT, "train")
    heard = []

    def reader(model_dir):
        def probabilities(claim, evidence):
            heard.append((str(model_dir), claim, evidence))
            return [{"supports": 1.0, "refutes": 0.0, "neutral": 0.0}]

        return probabilities

    readings = read_all(["a", "b"], pairs, reader)
    assert list(readings) == ["a", "b"] and all(len(r) == 2 for r in readings.values())
    assert heard[0] == ("a", "Dan O'Bannon died in 2009.", [("Dan O'Bannon", SPAN)])


def test_missing_shared_data_is_named(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--model-dir", "x", "--fever", str(tmp_path / "none.jsonl")])
    assert stopped.value.code == 2
    assert "none.jsonl: not found" in capsys.readouterr().err


def test_the_command_reads_files_and_writes_its_figures(tmp_path, monkeypatch):
    fever = tmp_path / "fever.jsonl"
    fever.write_text("".join(json.dumps(c) + "\n" for c in CLAIMS))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"page": p, "line": n} | row) + "\n" for (p, n), row in CORPUS.items()))
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"assignment": ASSIGNMENT}))
    import bench.gold_readings as gold

    monkeypatch.setattr(
        gold,
        "read_all",
        lambda dirs, pairs: {str(d): [{"supports": 0.5, "refutes": 0.3, "neutral": 0.2}] * len(pairs) for d in dirs},
    )
    out = tmp_path / "out.json"
    assert (
        main(
            [
                "--model-dir",
                "m",
                "--fever",
                str(fever),
                "--corpus",
                str(corpus),
                "--split",
                str(split),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads(out.read_text())
    assert result["pairs"] == 2 and set(result["models"]["m"]) == {"SUPPORTS / several years", "REFUTES / other"}
