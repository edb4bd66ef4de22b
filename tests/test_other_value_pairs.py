"""Other-value pairs (training/other_value_pairs.py): an occupation or a work the passage does not give -> NEI."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from training.other_value_pairs import (
    MAX_PER_PAGE,
    NEI,
    SUPPORTS,
    names_group,
    occupation_edit,
    pairs_of,
    read_supports,
)

BENTLEY = "Marcus Bentley is a British actor and voice-over artist, best known as the narrator of Big Brother."
CHATWIN = "Justin Chatwin starred in War of the Worlds."
CHATWIN_EVIDENCE = "Justin Chatwin is a Canadian actor, known for his roles in War of the Worlds and Shameless."


def row(claim: str, evidence: str, label: str = SUPPORTS, title: str = "Page") -> dict:
    return {"claim": claim, "title": title, "evidence": evidence, "label": label, "origin": "reader-gold-context"}


def test_an_occupation_becomes_one_of_another_group_that_the_evidence_never_names():
    for seed in range(30):
        edit = occupation_edit("Marcus Bentley is a British actor.", BENTLEY, random.Random(seed))
        assert edit is not None and edit.startswith("Marcus Bentley is a")
        new = edit.removeprefix("Marcus Bentley is a").removeprefix("n").removeprefix(" British ").removesuffix(".")
        assert new not in {"actor", "actress", "performer", "voice actor"}
        assert not names_group((new,), BENTLEY)


def test_the_article_follows_the_word_after_it():
    edits = {occupation_edit("Ann Lee is an actress.", "Ann Lee is an actress.", random.Random(s)) for s in range(60)}
    for edit in edits - {None}:
        noun = edit.split()[-1]
        assert edit.split()[3] == ("an" if noun[0] in "aeiou" else "a"), edit
    assert {edit.split()[3] for edit in edits - {None}} == {"a", "an"}


def test_a_group_the_evidence_names_by_another_word_is_never_drawn():
    evidence = "Ann Lee is an American singer who sings and plays the guitar; she trained as a lawyer."
    for seed in range(40):
        edit = occupation_edit("Ann Lee is an American singer.", evidence, random.Random(seed))
        assert edit is not None
        assert not any(w in edit for w in ("songwriter", "drummer", "pianist", "lawyer", "judge"))


def test_claims_that_are_not_an_occupation_of_their_subject_are_left_alone():
    rng = random.Random(1)
    assert occupation_edit("Inception is an American film.", "Inception is a 2010 film.", rng) is None
    assert occupation_edit("Kareem is an American retired professional basketball player.", "", rng) is None
    assert occupation_edit("Bentley, a narrator, is an actor.", BENTLEY, rng) is None


def test_a_band_or_group_is_never_given_a_person_s_occupation():
    evidence = "Razorlight are an English rock band formed in London."
    for seed in range(20):
        rng = random.Random(seed)
        assert occupation_edit("Razorlight is an English band.", evidence, rng) is None
        assert occupation_edit("Daft Punk is a French music duo.", "Daft Punk is a French duo.", rng) is None
        assert occupation_edit("The Roots is a hip-hop group.", "The Roots is a hip hop group.", rng) is None


def test_works_come_only_from_named_people_who_starred_or_appeared_in_them():
    rows = [
        row(CHATWIN, CHATWIN_EVIDENCE),
        row("His work has appeared in The New York Times.", "Barry Werth's work has appeared in The New York Times."),
        row("Birdie Tebbetts played in Major League Baseball.", "Birdie Tebbetts played in Major League Baseball."),
        row("A student resembling Roderick appeared in Jack the Giant Slayer.", "Jack the Giant Slayer is a film."),
    ]
    pairs, counts = pairs_of(rows, random.Random(0))
    assert pairs == [] and counts == {"work no value to draw": 1}


def test_each_edit_comes_with_its_supported_twin_and_works_are_drawn_from_other_claims():
    rows = [
        row(CHATWIN, CHATWIN_EVIDENCE),
        row("Uma Thurman starred in Kill Bill.", "Uma Thurman starred in Kill Bill and in a film of other worlds."),
        row("Ann Lee is an actress.", "Ann Lee is an actress.", title="Ann Lee"),
    ]
    pairs, counts = pairs_of(rows, random.Random(3))
    assert counts == {"work made": 1, "work no value to draw": 1, "occupation made": 1}
    by_claim = {p["claim"]: p for p in pairs}
    assert by_claim["Justin Chatwin starred in Kill Bill."]["label"] == NEI
    assert by_claim[CHATWIN]["label"] == SUPPORTS
    assert [p["label"] for p in pairs] == [NEI, SUPPORTS, NEI, SUPPORTS]
    assert all(p["evidence"] == r["evidence"] for p, r in zip(pairs[::2], [rows[0], rows[2]], strict=True))


def test_no_page_gives_more_than_its_share_of_pairs():
    claims = [f"Ann Lee {verb} an {mods}actress." for verb in ("is", "was") for mods in ("", "English ", "Irish ")]
    rows = [row(claim, "Ann Lee is an actress.", title="Ann Lee") for claim in claims]
    rows += [row("Bo Li is an actor.", "Bo Li is an actor.", title="Bo Li")]
    pairs, counts = pairs_of(rows, random.Random(5))
    assert counts == {"occupation made": MAX_PER_PAGE + 1, "occupation page drawn enough": 6 - MAX_PER_PAGE}
    assert [p["title"] for p in pairs[::2]] == ["Ann Lee"] * MAX_PER_PAGE + ["Bo Li"]


def test_only_supported_rows_are_read_once_each(tmp_path: Path):
    path = tmp_path / "pairs.jsonl"
    rows = [row(CHATWIN, CHATWIN_EVIDENCE), row(CHATWIN, CHATWIN_EVIDENCE), row("X is a chef.", "Y", label=NEI)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert read_supports([path]) == [rows[0]]


def test_the_command_writes_the_same_bytes_for_the_same_seed(tmp_path: Path):
    path = tmp_path / "pairs.jsonl"
    rows = [row(f"Person {i} is an actor.", f"Person {i} is an actor.", title=f"Person {i}") for i in range(40)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    outputs = []
    for run in ("a", "b"):
        out = tmp_path / run
        argv = [sys.executable, "-m", "training.other_value_pairs", str(path), "--seed", "7", "--out", str(out)]
        subprocess.run(argv, check=True, capture_output=True, cwd=Path(__file__).resolve().parents[1])
        outputs.append([(out / n).read_bytes() for n in ("pairs_train_other.jsonl", "pairs_validation_other.jsonl")])
        assert sum(len(b.splitlines()) for b in outputs[-1]) == 80
    assert outputs[0] == outputs[1]


def test_a_pair_and_its_twin_go_to_one_part_even_untitled(tmp_path: Path):
    path = tmp_path / "pairs.jsonl"
    rows = [row(f"Person {i} is an actor.", f"Person {i} is an actor.", title="") for i in range(60)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = [sys.executable, "-m", "training.other_value_pairs", str(path), "--seed", "3", "--out", str(tmp_path)]
    subprocess.run(argv, check=True, capture_output=True, cwd=Path(__file__).resolve().parents[1])
    parts = [
        [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        for name in ("pairs_train_other.jsonl", "pairs_validation_other.jsonl")
    ]
    assert all(parts), "both parts hold pairs"
    for part in parts:
        assert [p["label"] for p in part] == [NEI, SUPPORTS] * (len(part) // 2)
        assert all(a["evidence"] == b["evidence"] for a, b in zip(part[::2], part[1::2], strict=True))
    assert not {p["evidence"] for p in parts[0]} & {p["evidence"] for p in parts[1]}
