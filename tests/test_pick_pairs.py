"""training.pick_pairs: labelled pairs of named origins picked out as an extra file for a run's mix."""

from __future__ import annotations

import json

import pytest

from training import pick_pairs


def row(i: int, origin: str, label: str) -> dict:
    return {"claim": f"c{i}", "evidence": "e", "title": "", "label": label, "origin": origin}


ROWS = (
    [row(i, "scifact", "SUPPORTS") for i in range(6)]
    + [row(i, "scifact", "REFUTES") for i in range(6, 8)]
    + [row(i, "breaking_nli:numbers", "SUPPORTS") for i in range(8, 10)]
    + [row(i, "synthetic", "SUPPORTS") for i in range(10, 14)]
)


def test_keeps_named_origins_and_labels_at_most_n_each_in_file_order():
    kept = pick_pairs.pick(ROWS, ["scifact", "breaking_nli"], ["SUPPORTS"], per_origin=3, seed=1)
    assert [r["origin"] for r in kept].count("scifact") == 3
    assert [r["origin"] for r in kept].count("breaking_nli:numbers") == 2  # matched before ':'
    assert all(r["label"] == "SUPPORTS" for r in kept)
    assert kept == sorted(kept, key=ROWS.index)
    assert kept == pick_pairs.pick(ROWS, ["scifact", "breaking_nli"], ["SUPPORTS"], per_origin=3, seed=1)
    drawn = {tuple(r["claim"] for r in pick_pairs.pick(ROWS, ["scifact"], ["SUPPORTS"], 3, s)) for s in range(8)}
    assert len(drawn) > 1


def test_without_a_cap_every_row_of_the_labels_is_kept():
    kept = pick_pairs.pick(ROWS, ["scifact"], ["SUPPORTS", "REFUTES"], per_origin=None, seed=1)
    assert [r["claim"] for r in kept] == [f"c{i}" for i in range(8)]


def test_an_absent_origin_is_refused_with_the_ones_there_are():
    with pytest.raises(ValueError, match=r"no rows of origin sci_fact; the file has: breaking_nli, scifact, synthetic"):
        pick_pairs.pick(ROWS, ["sci_fact"], ["SUPPORTS"], None, 1)


def test_an_origin_without_the_labels_asked_for_is_refused():
    with pytest.raises(ValueError, match="synthetic has no rows labelled REFUTES"):
        pick_pairs.pick(ROWS, ["scifact", "synthetic"], ["REFUTES"], None, 1)


def test_command_writes_the_file_and_refuses_to_overwrite(tmp_path, capsys):
    source = tmp_path / "pairs_train.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "pairs" / "pairs_train_worded.jsonl"
    argv = [str(source), "--origin", "scifact", "--label", "SUPPORTS", "--per-origin", "4", "--out", str(out)]
    assert pick_pairs.main(argv) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(written) == 4 and {r["origin"] for r in written} == {"scifact"}
    assert "scifact SUPPORTS: 4" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stopped:
        pick_pairs.main(argv)
    assert stopped.value.code == 2
    assert "exists" in capsys.readouterr().err


def test_command_names_the_file_when_an_origin_is_wrong(tmp_path, capsys):
    source = tmp_path / "pairs_train.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with pytest.raises(SystemExit):
        pick_pairs.main([str(source), "--origin", "feverous", "--out", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert str(source) in err and "no rows of origin feverous" in err
    assert not (tmp_path / "x.jsonl").exists()


def test_years_among_keeps_claimed_years_bound_among_several_and_names_an_origin_left_without_rows():
    span = "Dan O'Bannon (September 30, 1946 -- December 17, 2009) was an American screenwriter."
    rows = [
        {"claim": "He died in 2009.", "evidence": span, "label": "SUPPORTS", "origin": "fever-gold"},
        {
            "claim": "He was born in 1946 and died in 2009.",
            "evidence": span,
            "label": "SUPPORTS",
            "origin": "fever-gold",
        },
        {"claim": "He died in 2010.", "evidence": span, "label": "REFUTES", "origin": "fever-gold"},  # not in it
        {"claim": "He died in 2009.", "evidence": "He died in 2009.", "label": "SUPPORTS", "origin": "fever-gold"},
        {"claim": "He was a screenwriter.", "evidence": span, "label": "SUPPORTS", "origin": "fever-gold"},  # no year
        {"claim": "It opened in 1990.", "evidence": "It opened in 1990.", "label": "SUPPORTS", "origin": "feverous"},
    ]
    kept = pick_pairs.pick(rows, ["fever-gold"], ["SUPPORTS", "REFUTES"], None, seed=1, among=2)
    assert [r["claim"] for r in kept] == ["He died in 2009.", "He was born in 1946 and died in 2009."]
    assert (
        pick_pairs.pick(rows, ["fever-gold"], ["SUPPORTS"], None, seed=1, among=1)[-1]["evidence"] == "He died in 2009."
    )
    with pytest.raises(ValueError, match="feverous has no rows labelled SUPPORTS whose claimed year stands among 2"):
        pick_pairs.pick(rows, ["fever-gold", "feverous"], ["SUPPORTS"], None, seed=1, among=2)
    with pytest.raises(ValueError, match="--years-among takes 0"):
        pick_pairs.pick(rows, ["fever-gold"], ["SUPPORTS"], None, seed=1, among=-1)


def test_ordinals_and_numbers_among_keep_the_claimed_rank_or_count_stated_beside_others():
    saturn = "Saturn is the sixth planet from the Sun and the second-largest in the Solar System, after Jupiter."
    rigby = "He played 13 games in 1938, scoring 2 goals, and 1,200 people watched."
    rows = [
        {"claim": "Saturn is the sixth planet.", "evidence": saturn, "label": "SUPPORTS", "origin": "feverous"},
        {
            "claim": "Saturn is the Sixth planet.",
            "evidence": "It is the sixth planet.",
            "label": "SUPPORTS",
            "origin": "feverous",
        },  # one rank stated: not among several
        {"claim": "Saturn is the fifth planet.", "evidence": saturn, "label": "SUPPORTS", "origin": "feverous"},
        {"claim": "He played 13 games.", "evidence": rigby, "label": "SUPPORTS", "origin": "feverous"},
        {"claim": "He played 3 games.", "evidence": rigby, "label": "SUPPORTS", "origin": "feverous"},  # 13 is not 3
        {"claim": "It was watched by 1,200 people.", "evidence": rigby, "label": "SUPPORTS", "origin": "feverous"},
        {"claim": "He played in 1938.", "evidence": rigby, "label": "SUPPORTS", "origin": "feverous"},  # a year
    ]
    ordinals = pick_pairs.pick(rows, ["feverous"], ["SUPPORTS"], None, seed=1, among=2, kind="ordinal")
    assert [r["claim"] for r in ordinals] == ["Saturn is the sixth planet."]
    numbers = pick_pairs.pick(rows, ["feverous"], ["SUPPORTS"], None, seed=1, among=2, kind="number")
    assert [r["claim"] for r in numbers] == ["He played 13 games.", "It was watched by 1,200 people."]
    assert pick_pairs.mentions("the 21st and 3rd, the First", "ordinal") == ["21st", "3rd", "first"]
    assert pick_pairs.mentions("in 1990, 12, 3.5 and 1,000,000", "number") == ["12", "3.5", "1,000,000"]
    with pytest.raises(ValueError, match="whose claimed number stands among 9"):
        pick_pairs.pick(rows, ["feverous"], ["SUPPORTS"], None, seed=1, among=9, kind="number")
    with pytest.raises(ValueError, match="not 'rank'"):
        pick_pairs.pick(rows, ["feverous"], ["SUPPORTS"], None, seed=1, among=2, kind="rank")


def test_command_takes_one_kind_of_value_among_several(tmp_path, capsys):
    source = tmp_path / "pairs_train.jsonl"
    row = {"claim": "It came 2nd.", "evidence": "It came 2nd, then 5th.", "label": "SUPPORTS", "origin": "fever"}
    source.write_text(json.dumps(row) + "\n")
    out = tmp_path / "ordinals.jsonl"
    assert pick_pairs.main([str(source), "--origin", "fever", "--ordinals-among", "2", "--out", str(out)]) == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == [row]
    with pytest.raises(SystemExit):
        pick_pairs.main(
            [
                str(source),
                "--origin",
                "fever",
                "--ordinals-among",
                "2",
                "--numbers-among",
                "2",
                "--out",
                str(tmp_path / "x"),
            ]
        )
    assert "not allowed with argument" in capsys.readouterr().err
