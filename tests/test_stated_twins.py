"""training.stated_twins: a SUPPORTS twin for each SUPPORTS pair, its claim joined to another sentence its evidence
states."""

from __future__ import annotations

import json

import pytest

from training import stated_twins

EVIDENCE = (
    "Marie Curie was a physicist and chemist who conducted pioneering research on radioactivity. "
    "She was the first woman to win a Nobel Prize. "
    "Marie Curie founded a radium institute in the city of Warsaw."
)


def pair(claim: str, label: str = "SUPPORTS", evidence: str = EVIDENCE, origin: str = "reader-gold-context") -> dict:
    return {"claim": claim, "title": "Marie Curie", "evidence": evidence, "label": label, "origin": origin}


def test_the_twin_joins_a_sentence_the_evidence_states_and_stays_supported():
    made = stated_twins.twins([pair("Marie Curie researched radioactivity.")], seed=1)
    # the second sentence points back ("She ...") and does not read alone; the third is another statement
    assert made == [
        {
            "claim": "Marie Curie researched radioactivity, and Marie Curie founded a radium institute in the city of "
            "Warsaw.",
            "title": "Marie Curie",
            "evidence": EVIDENCE,
            "label": "SUPPORTS",
            "origin": "stated-twin:reader-gold-context",
        }
    ]
    assert made == stated_twins.twins([pair("Marie Curie researched radioactivity.")], seed=7)


def test_no_twin_from_a_single_sentence_the_claims_own_sentence_or_another_label():
    one = "Marie Curie was a physicist and chemist who conducted pioneering research on radioactivity."
    assert stated_twins.twins([pair("Marie Curie researched radioactivity.", evidence=one)], seed=1) == []
    # the sentence the claim was drawn from is not a second statement
    own = pair("Marie Curie founded a radium institute in Warsaw.")
    assert [row["claim"] for row in stated_twins.twins([own], seed=1)] == [
        "Marie Curie founded a radium institute in Warsaw, and Marie Curie was a physicist and chemist who "
        "conducted pioneering research on radioactivity."
    ]
    assert stated_twins.twins([pair("Marie Curie researched radioactivity.", label="NOT ENOUGH INFO")], seed=1) == []


@pytest.mark.parametrize(
    "sentence, ok",
    [
        ("However, the institute was closed in 1940 by the occupation.", False),
        ("This made the institute famous across Europe.", False),
        ("May 26] 1848) was a Russian literary critic of Westernizing tendency.", False),
        ("Home About Contact Marie Curie Museum Tickets Shop Events Blog Press.", False),
        ("The institute in Warsaw opened to patients in 1932.", True),
    ],
)
def test_a_sentence_that_leans_on_another_or_is_not_prose_is_never_joined(sentence, ok):
    assert (stated_twins.whole(sentence) and stated_twins.reads_alone(sentence)) is ok


def test_the_command_writes_the_same_bytes_for_the_same_seed_and_refuses_an_existing_out(tmp_path, capsys):
    source = tmp_path / "pairs.jsonl"
    source.write_text(
        "".join(json.dumps(row) + "\n" for row in [pair("Marie Curie researched radioactivity."), pair("x", "REFUTES")])
    )
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert stated_twins.main([str(source), "--seed", "3", "--out", str(first)]) == 0
    assert stated_twins.main([str(source), "--seed", "3", "--out", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes() and len(first.read_text().splitlines()) == 1
    assert "1 twins of 1 SUPPORTS pairs" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        stated_twins.main([str(source), "--out", str(first)])
    assert "exists" in capsys.readouterr().err
    refutes = tmp_path / "refutes.jsonl"
    refutes.write_text(json.dumps(pair("x", "REFUTES")) + "\n")
    with pytest.raises(SystemExit):
        stated_twins.main([str(refutes), "--out", str(tmp_path / "c.jsonl")])
    assert "no SUPPORTS pair" in capsys.readouterr().err
