"""scripts/evaluate_scoring.py on a small made-up set of verified claims: tuning without test results,
the topicality ablation, the saved judge, and refusing train-part claims."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mermaid_verifier.agents.judge import ConfidenceModel, JudgeConfig
from mermaid_verifier.errors import ResultsError
from mermaid_verifier.evaluation.judge_fitting import fit_on_train_part, predictions

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "evaluate_scoring.py"
LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")


def item(page: str, supports: float, refutes: float) -> dict:
    return {
        "id": f"wiki:{page}:0",
        "source": "local-corpus",
        "title": page.replace("_", " "),
        "text": "…",
        "page": page,
        "line": 0,
        "source_kind": "local_corpus",
        "retrieved_at": 1_800_000_000.0,
        "stance_probabilities": {"supports": supports, "refutes": refutes, "neutral": 1 - supports - refutes},
    }


def made_up_rows(n: int = 90, seed: int = 0) -> list[dict]:
    """Each claim has a page about its subject; NOT ENOUGH INFO claims also get a strongly 'refuting'
    sentence from a page about someone else (what topicality exists to discount). One claim in eight
    gets misleading evidence, so the judge is sometimes wrong."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        gold = LABELS[i % 3]
        subject = f"Person_{i}"
        strength = rng.uniform(0.75, 0.95)
        own = {
            "SUPPORTS": item(subject, strength, 0.02),
            "REFUTES": item(subject, 0.02, strength),
            "NOT ENOUGH INFO": item(subject, 0.03, 0.03),
        }[gold]
        if i % 8 == 0:
            own = item(subject, 0.02, strength) if gold == "SUPPORTS" else item(subject, strength, 0.02)
        evidence = [own] + ([item(f"Stranger_{i}", 0.01, 0.95)] if gold == "NOT ENOUGH INFO" else [])
        rows.append(
            {
                "id": str(i),
                "claim": f"Person {i} did something.",
                "gold": gold,
                "entities": [f"Person {i}"],
                # claims 3k, 3k+1, 3k+2 also share a page (FEVER claims cluster by page)
                "gold_evidence": [[[subject, 0]], [[f"Shared_{i // 3}", 0]]] if gold != "NOT ENOUGH INFO" else [],
                "evidence": evidence,
            }
        )
    return rows


def run(
    tmp_path: Path, rows: list[dict], parts: dict[str, str], *args: str, script: Path = SCRIPT
) -> subprocess.CompletedProcess:
    """``script`` on these result rows, with a split file assigning each row's id to its part."""
    results, split = tmp_path / "results.jsonl", tmp_path / "split.json"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    split.write_text(json.dumps({"assignment": parts}))
    return subprocess.run(
        [sys.executable, "-m", f"scripts.{script.stem}", str(results), "--split", str(split), *args],
        cwd=SCRIPT.parents[1],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_tunes_on_validation_and_calibration_alone_and_saves_a_loadable_judge(tmp_path):
    rows = made_up_rows()
    parts = {r["id"]: "validation" if int(r["id"]) % 2 else "calibration" for r in rows}
    done = run(
        tmp_path,
        rows,
        parts,
        "--max-risk",
        "0.3",
        "--out",
        str(tmp_path / "figures.json"),
        "--write-judge-config",
        str(tmp_path / "judge_config.json"),
    )
    assert done.returncode == 0, done.stderr
    assert "no test results given" in done.stdout
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert all("test" not in row for row in figures.values())
    # the stranger's "refutation" turns every NEI claim into REFUTES unless topicality discounts it
    with_topicality = figures["full, max-rule"]["tuning"]["macro_f1"]
    without = figures["without topicality, max-rule"]["tuning"]["macro_f1"]
    assert with_topicality > 0.8 and without < with_topicality - 0.1
    saved = json.loads((tmp_path / "judge_config.json").read_text())
    config = JudgeConfig.model_validate({k: v for k, v in saved.items() if k in JudgeConfig.model_fields})
    assert config.topicality.enabled and 0 < config.abstain_below <= 1
    confidence = json.loads((tmp_path / "judge_confidence.json").read_text())  # the shipped decider's confidence model
    assert confidence["label_interactions"] is True
    assert ConfidenceModel.model_validate(confidence).label_interactions  # loads: one weight per input


def test_cross_part_check_scores_each_tuning_part_with_a_model_fitted_on_the_other(tmp_path):
    rows = made_up_rows()
    parts = {r["id"]: "validation" if int(r["id"]) // 8 % 2 else "calibration" for r in rows}  # both parts hold errors
    done = run(tmp_path, rows, parts, "--max-risk", "0.3", "--cross-part-check")
    assert done.returncode == 0, done.stderr
    checks = [line for line in done.stdout.splitlines() if "label interactions |" in line]
    assert [line.split(" | ")[:2] for line in checks] == [
        ["| without label interactions", "validation → calibration"],
        ["| without label interactions", "calibration → validation"],
        ["| with label interactions", "validation → calibration"],
        ["| with label interactions", "calibration → validation"],
    ]
    for line in checks:
        aurc, top = line.rstrip(" |").split(" | ")[2:4]
        assert 0 <= float(aurc) <= 1 and all(0 <= float(rate) <= 1 for rate in top.split(" / "))


def test_refuses_train_part_claims(tmp_path):
    rows = made_up_rows(12)
    done = run(tmp_path, rows, {r["id"]: "train" if r["id"] == "0" else "validation" for r in rows})
    assert done.returncode == 2 and done.stderr.strip().startswith("refusing results of train-part claims")
    assert "Traceback" not in done.stderr


def test_a_claim_outside_the_split_is_named_not_a_key_error(tmp_path):
    rows = made_up_rows(12)
    done = run(tmp_path, rows, {r["id"]: "validation" for r in rows if r["id"] != "7"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"{tmp_path / 'results.jsonl'}:8: claim 7 is in no part of the split: give " + (
        "results of the split's claims (for fresh claims, read their ledger's own metrics)"
    )


def test_tuning_figures_do_not_depend_on_whether_test_results_are_given(tmp_path):
    """The judge is fixed before the test part is run: adding test results must not move the tuning fit."""
    rows = made_up_rows()
    tuning_parts = {r["id"]: "validation" if int(r["id"]) % 2 else "calibration" for r in rows if int(r["id"]) % 3}
    tuning = {}
    for with_test in (False, True):
        parts = {**tuning_parts, **({r["id"]: "test" for r in rows if not int(r["id"]) % 3} if with_test else {})}
        directory = tmp_path / str(with_test)
        directory.mkdir()
        done = run(
            directory,
            [r for r in rows if r["id"] in parts],
            parts,
            "--max-risk",
            "0.3",
            "--out",
            str(directory / "figures.json"),
        )
        assert done.returncode == 0, done.stderr
        figures = json.loads((directory / "figures.json").read_text())["full, max-rule + confidence model"]
        assert ("test" in figures) is with_test
        tuning[with_test] = (figures["tuning"], figures["judge"]["abstain_below"])
    assert tuning[False] == tuning[True]


def test_cross_part_check_says_so_when_a_part_gives_nothing_to_fit(tmp_path):
    rows = made_up_rows()
    parts = {r["id"]: "validation" if int(r["id"]) % 2 else "calibration" for r in rows}  # no misleading claim is odd
    done = run(tmp_path, rows, parts, "--max-risk", "0.3", "--cross-part-check")
    assert done.returncode == 0, done.stderr
    assert "| validation → calibration | not fitted: every rule label on these 45 claims is right |" in done.stdout


HALVINGS = SCRIPT.with_name("check_threshold_halvings.py")


def test_threshold_halvings_fit_on_one_half_of_the_page_groups_and_score_the_other(tmp_path):
    rows = made_up_rows()
    parts = {r["id"]: "validation" if int(r["id"]) // 8 % 2 else "calibration" for r in rows}
    done = run(tmp_path, rows, parts, "--halvings", "4", "--max-risk", "0.3", script=HALVINGS)
    assert done.returncode == 0, done.stderr
    assert "4 halvings; budget 0.3" in done.stdout
    table = [line for line in done.stdout.splitlines() if "label interactions |" in line]
    assert [line.split(" | ")[0] for line in table] == ["| without label interactions", "| with label interactions"]
    for line in table:
        answered, risk, over = line.split(" | ")[1:4]
        assert 0 <= float(answered) <= 1 and 0 <= float(risk) <= 1
        assert over.split()[0] in {"0.00", "0.25", "0.50", "0.75", "1.00"}  # a share of the 4 halvings


def test_threshold_halvings_refuse_the_test_part(tmp_path):
    rows = made_up_rows(12)
    done = run(tmp_path, rows, {r["id"]: "test" if r["id"] == "0" else "validation" for r in rows}, script=HALVINGS)
    assert done.returncode != 0 and "tuning parts only" in done.stderr


CROSS_VALIDATE = SCRIPT.with_name("cross_validate_risk.py")


def test_cross_validation_answers_each_claim_once_per_repeat_with_a_judge_fitted_without_its_group(tmp_path):
    rows = made_up_rows(120)
    parts = {r["id"]: ("validation", "calibration", "test")[int(r["id"]) // 8 % 3] for r in rows}
    done = run(
        tmp_path,
        rows,
        parts,
        "--folds",
        "3",
        "--repeats",
        "2",
        "--max-risk",
        "0.3",
        "--delta",
        "0.05",
        "--delta",
        "0.1",
        script=CROSS_VALIDATE,
    )
    assert done.returncode == 0, done.stderr
    assert "120 claims (" in done.stdout and "3 folds × 2 repeats; budget 0.3" in done.stdout
    table = [line for line in done.stdout.splitlines() if line.startswith("| 0.")]
    assert [line.split(" | ")[0] for line in table] == ["| 0.1", "| 0.05"]  # loosest bound first
    for line in table:
        answered, risk, within, over, by_part = line.rstrip(" |").split(" | ")[1:6]
        assert 0 <= float(answered.split()[0]) <= 1 and 0 <= float(risk.split()[0]) <= 1
        assert within in {"0 of 2", "1 of 2", "2 of 2"} and 0 <= float(over) <= 1
        assert [entry.split()[0] for entry in by_part.split(" / ")] == sorted(
            set(parts.values()), key=list(parts.values()).index
        )
    # a tighter bound never answers more
    assert float(table[1].split(" | ")[1].split()[0]) <= float(table[0].split(" | ")[1].split()[0])


def test_cross_validation_refuses_train_part_claims(tmp_path):
    rows = made_up_rows(12)
    done = run(tmp_path, rows, {r["id"]: "train" if r["id"] == "0" else "test" for r in rows}, script=CROSS_VALIDATE)
    assert done.returncode == 2 and done.stderr.strip().startswith("refusing results of train-part claims")
    assert "Traceback" not in done.stderr


def test_fit_on_train_fits_the_decision_on_train_claims_and_scores_it_on_tuning_claims(tmp_path):
    train_rows = made_up_rows(120, seed=1)
    for row in train_rows:
        row["id"] = f"t{row['id']}"
    tuning_rows = made_up_rows(90, seed=2)
    parts = {r["id"]: "train" for r in train_rows} | {
        r["id"]: "validation" if int(r["id"]) % 2 else "calibration" for r in tuning_rows
    }
    done = run(
        tmp_path,
        train_rows + tuning_rows,
        parts,
        "--max-risk",
        "0.3",
        "--fit-on-train",
        "--decider",
        "fitted",
        "--out",
        str(tmp_path / "figures.json"),
        "--write-judge-config",
        str(tmp_path / "judge_config.json"),
    )
    assert done.returncode == 0, done.stderr
    assert "full, fitted | tuning (held-out)" in done.stdout
    model = json.loads((tmp_path / "judge_model.json").read_text())
    assert model["fitted_on"] == "120 train-part claims (the pipeline's own evidence)"
    saved = json.loads((tmp_path / "judge_config.json").read_text())
    assert saved["tuned_on"].startswith("decision fitted on 120 train-part claims")
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert figures["full, fitted"]["tuning"]["macro_f1"] > 0.8  # the made-up evidence is learnable


def test_fit_on_train_needs_train_results(tmp_path):
    rows = made_up_rows()
    done = run(tmp_path, rows, {r["id"]: "validation" for r in rows}, "--fit-on-train")
    assert done.returncode != 0 and "needs results of train-part claims" in done.stderr


def test_label_prior_changes_nothing_on_balanced_claims_and_reweighs_a_skewed_mix(tmp_path):
    def figures(rows: list[dict], prior: str) -> dict:
        parts = {r["id"]: "validation" if int(r["id"]) % 2 else "calibration" for r in rows}
        out = tmp_path / f"{prior}-{len(rows)}.json"
        judge = tmp_path / f"{prior}-{len(rows)}" / "judge_config.json"
        judge.parent.mkdir()
        done = run(
            tmp_path, rows, parts, "--max-risk", "0.15", "--label-prior", prior, "--out", str(out),
            "--write-judge-config", str(judge),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(judge.read_text())["tuned_on"].endswith(f"label prior {prior})")
        return {k: v["tuning"] for k, v in json.loads(out.read_text()).items() if "confidence model" in k}

    balanced_rows = made_up_rows(120, seed=3)  # one label in three each: every weight is 1
    assert figures(balanced_rows, "balanced") == figures(balanced_rows, "as-given")
    # keep every NOT ENOUGH INFO claim but a third of the others: the misleading evidence (one claim in
    # eight, all S or R) is rarer in this mix than when each label counts the same
    skewed = [r for r in made_up_rows(240, seed=4) if r["gold"] == "NOT ENOUGH INFO" or int(r["id"]) % 9 < 3]
    weighed, plain = figures(skewed, "balanced"), figures(skewed, "as-given")
    assert weighed != plain
    for key in weighed:
        assert weighed[key]["coverage"] <= plain[key]["coverage"] + 1e-9


def write_results(tmp_path: Path, rows: list[dict], parts: dict[str, str]) -> tuple[Path, Path]:
    results, split = tmp_path / "results.jsonl", tmp_path / "split.json"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    split.write_text(json.dumps({"assignment": parts}))
    return results, split


def test_a_judge_fitted_on_the_train_part_is_scored_on_the_tuning_parts_it_never_saw(tmp_path):
    rows = made_up_rows(120)
    parts = {r["id"]: ("train" if i < 60 else "validation" if i < 90 else "calibration") for i, r in enumerate(rows)}
    results, split = write_results(tmp_path, rows, parts)
    base = JudgeConfig.bundled().model_copy(update={"model": None, "confidence_model": None})
    fit = fit_on_train_part([results], split, base)
    assert [c.text for c in fit.train] == [r["claim"] for r in rows[:60]]
    assert sorted(c.text for c in fit.tuning) == sorted(r["claim"] for r in rows[60:])
    assert len(fit.tuning_weighed) == 60 and fit.judge.model is not None and fit.judge.model.fitted_on
    right = [label == c.gold for c, (label, _, _) in zip(fit.tuning, predictions(fit.tuning_weighed, fit.judge))]
    assert sum(right) / len(right) > 0.7  # seven claims in eight carry evidence that says what they are


def test_fitting_on_the_train_part_without_one_names_the_files_and_the_parts_found(tmp_path):
    rows = made_up_rows(12)
    results, split = write_results(tmp_path, rows, {r["id"]: "validation" for r in rows})
    with pytest.raises(ResultsError, match=r"results\.jsonl: need results of train-part.*got parts \['validation'\]"):
        fit_on_train_part([results], split, JudgeConfig.bundled())
