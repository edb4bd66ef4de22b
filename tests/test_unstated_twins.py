"""training.unstated_twins: a NOT ENOUGH INFO twin for each SUPPORTS pair, its claim joined to one it does not make."""

from __future__ import annotations

import json

import pytest

from training import unstated_twins

EVIDENCE = "Marie Curie was a physicist and chemist who conducted pioneering research on radioactivity."


def pair(claim: str, title: str = "Marie Curie", origin: str = "vitaminc_real", evidence: str = EVIDENCE) -> dict:
    return {"claim": claim, "title": title, "evidence": evidence, "label": "SUPPORTS", "origin": origin}


PAIRS = [pair("Marie Curie researched radioactivity.")]
POOL = [
    PAIRS[0],
    pair("Marie Curie did pioneering research on radioactivity as a physicist."),  # stated by the evidence
    pair("She was born in Warsaw in the Russian Empire in 1867."),  # same page, unstated
    pair("Paris hosted the Summer Olympics in 1924.", title="Paris"),  # another page
]


def test_the_twin_joins_an_unstated_claim_of_the_same_page():
    made = unstated_twins.twins(PAIRS, POOL, seed=1)
    assert made == [
        {
            "claim": "Marie Curie researched radioactivity, and she was born in Warsaw in the Russian Empire in 1867.",
            "title": "Marie Curie",
            "evidence": EVIDENCE,
            "label": "NOT ENOUGH INFO",
            "origin": "unstated-twin:vitaminc_real",
        }
    ]
    assert made == unstated_twins.twins(PAIRS, POOL, seed=2)  # one partner passes, whatever the draw


def test_a_partner_the_evidence_states_is_never_joined():
    stated = [POOL[0], POOL[1]]
    assert unstated_twins.twins(PAIRS, stated, seed=1) == []
    assert not unstated_twins.unstated(POOL[1]["claim"], PAIRS[0]["claim"], EVIDENCE)
    assert unstated_twins.unstated(POOL[2]["claim"], PAIRS[0]["claim"], EVIDENCE)


def test_without_a_page_partner_one_of_the_origin_near_the_claim_is_taken():
    untitled = [pair("Marie Curie researched radioactivity.", title="")]
    pool = [
        pair("Quantum computers factor large integers quickly.", title=""),  # no word shared with the claim
        pair("Marie Curie won two Nobel Prizes, in physics and in chemistry.", title=""),
        pair("Radioactivity is measured in becquerels, named after Henri Becquerel.", title="", origin="feverous"),
    ]
    made = unstated_twins.twins(untitled, pool, seed=3)
    assert [row["claim"] for row in made] == [
        "Marie Curie researched radioactivity, and Marie Curie won two Nobel Prizes, in physics and in chemistry."
    ]
    assert unstated_twins.twins(untitled, pool[:1], seed=3) == []  # off topic: no twin rather than a random one


def test_only_supports_pairs_get_twins():
    with pytest.raises(ValueError, match="line 2 is not"):
        unstated_twins.twins([PAIRS[0], PAIRS[0] | {"label": "REFUTES"}], POOL, seed=1)


def test_command_writes_the_same_bytes_for_the_same_seed_and_refuses_to_overwrite(tmp_path, capsys):
    pairs, pool = tmp_path / "worded.jsonl", tmp_path / "pool.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in PAIRS * 3))
    pool.write_text("".join(json.dumps(r) + "\n" for r in POOL))
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        assert unstated_twins.main([str(pairs), "--pool", str(pool), "--seed", "5", "--out", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes() and len(first.read_text().splitlines()) == 3
    assert "3 twins of 3 pairs (0 without a partner)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        unstated_twins.main([str(pairs), "--pool", str(pool), "--out", str(first)])
    assert "exists" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        unstated_twins.main([str(pairs), "--pool", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "c.jsonl")])
    assert "none.jsonl: no such pairs file" in capsys.readouterr().err
