"""Every check the shipping rule names, for one stance model, and the rule's table: a candidate against a baseline.

The rule (docs/training.md, "The shipping rule"): a new reader ships only if, read as the runtime reads it, it is
at least as good as the shipped one on every validation file, the contrast set, FEVER end to end and grounding dev,
and its canaries pass. Each of those files is a small sample (the passage file 249 pairs, the list file 60, the
contrast set 544 claims), so the table gives beside each figure the paired comparison of the two readers on the
same items: the items only one reads right, McNemar's p, and a paired bootstrap 95 % interval of the macro-F1
difference (``bench.compare_runs``); for grounding the AUROC difference with its 5-95 % interval over texts
(``bench.grounding_compare``). A check is *lost* where the candidate's figure is below the baseline's, and *lost
beyond doubt* where the interval lies below 0 as well.

    python -m bench.reader_checks run --name shipped --pairs training/runs/NAME/pairs --out E
    python -m bench.reader_checks run --name NAME --model-dir training/runs/NAME/model --pairs ... --out E
    python -m bench.reader_checks table --out E --baseline shipped --candidate NAME [--json FIGURES]

``run`` is resumable: a step whose outputs are all there is skipped (``--again`` reads everything anew); each
step's output goes to ``E/NAME-STEP.log``; a failed step stops the run with one line naming it and its log.
``--skip fever --skip grounding`` leaves out the two long steps (about 6 and 12 minutes on 2 cores), and the
table then leaves those checks out and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
LONG_STEPS = ("fever", "grounding")
FEVER_PARTS = ("train", "validation", "calibration")
TUNING_PARTS = ("validation", "calibration")


class ChecksError(Exception):
    """A check that cannot be run or read (a step failed, an output is missing or unreadable)."""


@dataclass
class Step:
    name: str
    argv: list[str]
    outputs: list[Path]
    env: dict[str, str] = field(default_factory=dict)
    stdout: Path | None = None  # where the command's standard output is kept (else the step's log)
    must_succeed: bool = True  # doctor exits 1 when the canaries fail: a finding the table reads, not a failed run
    marker: Path | None = None  # written when the step ends well, for a command whose output grows as it goes


def paths(out: Path, name: str) -> dict[str, Path]:
    """Where each check of reader ``name`` is written under ``out``."""
    return {
        "contrast": out / f"{name}-contrast.json",
        "contrast_readings": out / f"{name}-contrast.readings.jsonl.gz",
        "doctor": out / f"{name}-doctor.txt",
        "fever_run": out / f"{name}-paper-dev",
        "scoring": out / f"{name}-scoring.json",
        "tuning": out / f"{name}-paper-dev-tuning.jsonl.gz",
        "grounding": out / f"{name}-grounding.jsonl.gz",
        "grounding_score": out / f"{name}-grounding-score.json",
    }


def pair_outputs(out: Path, name: str, pairs_file: Path) -> tuple[Path, Path]:
    stem = pairs_file.name.removesuffix(".jsonl")
    return out / f"{name}-{stem}.json", out / f"{name}-{stem}.readings.jsonl.gz"


def plan(
    name: str,
    model_dir: Path | None,
    pairs: Path,
    out: Path,
    data: Path = SHARED,
    skip: tuple[str, ...] = (),
    python: str = sys.executable,
) -> list[Step]:
    """The steps that read every check for one reader (``model_dir`` None: the bundled one)."""
    files = sorted(pairs.glob("pairs_validation*.jsonl"))
    if not files:
        raise ChecksError(
            f"{pairs}: no pairs_validation*.jsonl files (training.build_pairs and the pair builders write them)"
        )
    p = paths(out, name)
    console = str(Path(python).with_name("mermaid-verifier"))
    model = ["--model-dir", str(model_dir)] if model_dir else []
    env = {"MERMAID_STANCE_MODEL": str(model_dir.resolve())} if model_dir else {}
    steps = []
    for f in files:
        figures, readings = pair_outputs(out, name, f)
        argv = [python, "-m", "bench.stance_pairs", str(f), *model, "--out", str(figures), "--readings", str(readings)]
        steps.append(Step(f.name.removesuffix(".jsonl"), argv, [figures, readings]))
    contrast = [python, "-m", "bench.given_evidence", "contrast", *model, "--out", str(p["contrast"])]
    steps.append(
        Step(
            "contrast", [*contrast, "--readings", str(p["contrast_readings"])], [p["contrast"], p["contrast_readings"]]
        )
    )
    steps.append(Step("doctor", [console, "doctor", *model], [p["doctor"]], stdout=p["doctor"], must_succeed=False))
    if "fever" not in skip:
        claims = data / "fever" / "paper_dev.jsonl"
        parts = [a for part in FEVER_PARTS for a in ("--part", part)]
        fever = [console, "fever", str(claims), "--corpus", str(data / "corpus" / "wiki_sentences.jsonl")]
        fever += ["--split", str(REPO / "training" / "splits" / "fever_paper_dev.json"), *parts, "--no-memory"]
        fever += ["--out", str(p["fever_run"]), "--resume"]
        steps.append(Step("fever", fever, [p["fever_run"] / "metrics.json"], env))
        results = str(p["fever_run"] / "results.jsonl")
        scoring = [
            python,
            "-m",
            "scripts.evaluate_scoring",
            results,
            "--fit-on-train",
            "--max-risk",
            "0.30",
            "--out",
            str(p["scoring"]),
        ]
        steps.append(Step("scoring", scoring, [p["scoring"]]))
        ledger = [python, "-m", "bench.reader_checks", "tuning-ledger", results, "--out", str(p["tuning"])]
        steps.append(Step("tuning-ledger", ledger, [p["tuning"]]))
    if "grounding" not in skip:
        ground = [
            python,
            "-m",
            "bench.grounding",
            "run",
            "--data",
            str(data),
            "--out",
            str(p["grounding"]),
            "--sets",
            "wice",
            "lfqa",
        ]
        steps.append(
            Step(  # the ledger is appended to as the run goes: whole only once the marker is written
                "grounding",
                ground,
                [p["grounding"]],
                env | {"MERMAID_SOURCES": "local"},
                marker=p["grounding"].with_name(p["grounding"].name + ".done"),
            )
        )
        score = [python, "-m", "bench.grounding", "score", "--ledger", str(p["grounding"])]
        steps.append(Step("grounding-score", score, [p["grounding_score"]], stdout=p["grounding_score"]))
    return steps


def run(steps: list[Step], out: Path, name: str, again: bool = False, echo=print) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for number, step in enumerate(steps, start=1):
        if not again and all(o.exists() for o in step.outputs) and (step.marker is None or step.marker.exists()):
            echo(f"[{number}/{len(steps)}] {step.name}: done before, kept")
            continue
        log = out / f"{name}-{step.name}.log"
        echo(f"[{number}/{len(steps)}] {step.name} (log: {log})")
        with log.open("w", encoding="utf-8") as handle:
            stdout = step.stdout.open("w", encoding="utf-8") if step.stdout else handle
            try:
                done = subprocess.run(step.argv, stdout=stdout, stderr=handle, cwd=REPO, env=os.environ | step.env)
            except OSError as error:  # the command itself cannot be started (not installed, not executable)
                raise ChecksError(f"{step.name} could not start {step.argv[0]}: {error.strerror}") from error
            finally:
                if step.stdout:
                    stdout.close()
        if done.returncode != 0 and step.must_succeed:
            if step.stdout:
                step.stdout.unlink(missing_ok=True)
            raise ChecksError(f"{step.name} failed (exit {done.returncode}); its log: {log}")
        if step.marker:
            step.marker.write_text("done\n")


def tuning_ledger(results: Path, out: Path, split: Path = REPO / "training" / "splits" / "fever_paper_dev.json") -> int:
    """Keep the rows of ``fever``'s ``results.jsonl`` whose claims lie in the tuning parts: ``id, gold, verdict,
    abstained, confidence``, for ``bench.compare_runs``. Returns how many rows were kept."""
    from bench.compare_runs import RunError, read_rows, write_rows
    from mermaid_verifier.errors import UsageError
    from mermaid_verifier.evaluation.fever_run import split_assignment

    try:
        assignment = split_assignment(split, TUNING_PARTS)
        rows = read_rows(results)
    except (UsageError, RunError) as error:
        raise ChecksError(str(error)) from error
    kept = [
        {k: row.get(k) for k in ("id", "gold", "verdict", "abstained", "confidence")}
        for row in rows
        if assignment.get(str(row["id"])) in TUNING_PARTS
    ]
    write_rows(out, kept)
    return len(kept)


def _read(path: Path) -> dict:
    if not path.is_file():
        raise ChecksError(f"{path}: missing (python -m bench.reader_checks run … writes it)")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ChecksError(f"{path}: not JSON ({error})") from error


def _paired(base: Path, cand: Path) -> dict:
    from bench.compare_runs import RunError, compare, verdicts

    try:
        return compare(verdicts(base, None), verdicts(cand, None))
    except RunError as error:
        raise ChecksError(str(error)) from error


def _row(check: str, base: float, cand: float, paired: dict | None, low_high_key: str = "difference_95") -> dict:
    row = {"check": check, "baseline": round(base, 4), "candidate": round(cand, 4), "lost": cand < base}
    if paired is not None:
        low, high = paired[low_high_key]
        row |= {
            "interval": [round(low, 4), round(high, 4)],
            "lost_beyond_doubt": high < 0,
            "gained_beyond_doubt": low > 0,
        }
        if "right_only_baseline" in paired:
            row |= {"right_only": [paired["right_only_baseline"], paired["right_only_candidate"]]}
    return row


def table(out: Path, baseline: str, candidate: str) -> dict:
    """The rule's checks for ``candidate`` against ``baseline``, from what ``run`` wrote for each under ``out``."""
    rows, left_out = [], []
    stems = sorted(
        f.name.removeprefix(f"{candidate}-").removesuffix(".readings.jsonl.gz")
        for f in out.glob(f"{candidate}-pairs_validation*.readings.jsonl.gz")
    )
    if not stems:
        raise ChecksError(
            f"{out}: no pair-file readings of {candidate} (run `bench.reader_checks run --name {candidate}` first)"
        )
    for stem in stems:
        base, cand = _read(out / f"{baseline}-{stem}.json"), _read(out / f"{candidate}-{stem}.json")
        paired = _paired(out / f"{baseline}-{stem}.readings.jsonl.gz", out / f"{candidate}-{stem}.readings.jsonl.gz")
        rows.append(_row(f"{stem} macro-F1 ({base['pairs']} pairs)", base["macro_f1"], cand["macro_f1"], paired))
    b, c = paths(out, baseline), paths(out, candidate)
    base, cand = _read(b["contrast"]), _read(c["contrast"])
    paired = _paired(b["contrast_readings"], c["contrast_readings"])
    rows.append(_row(f"contrast set accuracy ({base['claims']} claims)", base["accuracy"], cand["accuracy"], paired))
    canary = c["doctor"].read_text() if c["doctor"].is_file() else ""
    rows.append(
        {
            "check": "canaries (doctor self-check)",
            "candidate": "passed" if "self-check  passed" in canary else "not passed",
            "lost": "self-check  passed" not in canary,
        }
    )
    if b["scoring"].is_file() and c["scoring"].is_file():
        base, cand = _read(b["scoring"]), _read(c["scoring"])
        paired = _paired(b["tuning"], c["tuning"])
        n = paired["claims"]
        for decider, what in (("full, fitted", "judge refitted on the train part"), ("full, max-rule", "max-rule")):
            figures = base[decider]["tuning"]["macro_f1"], cand[decider]["tuning"]["macro_f1"]
            rows.append(_row(f"FEVER tuning parts macro-F1, {what} ({n} claims)", *figures, None))
        as_run = paired["baseline"]["macro_f1"], paired["candidate"]["macro_f1"]
        rows.append(_row(f"FEVER tuning parts macro-F1, verdicts as run, bundled judge ({n} claims)", *as_run, paired))
    else:
        left_out.append("FEVER end to end (no scoring.json for one of the two)")
    if b["grounding_score"].is_file() and c["grounding_score"].is_file():
        from bench.grounding_compare import SETTINGS, compare, unit_scores

        base, cand = _read(b["grounding_score"]), _read(c["grounding_score"])
        setting = SETTINGS["hits 6 + 2 windows"]
        ranked = compare(unit_scores(c["grounding"], setting), unit_scores(b["grounding"], setting))
        for name in ("wice", "lfqa"):
            halves = (base[name]["after"]["held_out_mean"], cand[name]["after"]["held_out_mean"])
            rows.append(_row(f"grounding {name} across halves", *halves, None))
            r = ranked[name]
            if r.get("auroc_new") is not None:
                rows.append(
                    _row(f"grounding {name} AUROC (5-95 %)", r["auroc_old"], r["auroc_new"], r, "interval_5_95")
                )
    else:
        left_out.append("grounding dev (no grounding-score.json for one of the two)")
    lost = [r["check"] for r in rows if r["lost"]]
    return {
        "baseline": baseline,
        "candidate": candidate,
        "checks": rows,
        "left_out": left_out,
        "lost": lost,
        "lost_beyond_doubt": [r["check"] for r in rows if r.get("lost_beyond_doubt")],
        "ships_by_the_rule": not lost and not left_out,
    }


def render(figures: dict) -> str:
    lines = [f"{figures['candidate']} against {figures['baseline']}", ""]
    lines += [
        "| check | baseline | candidate | interval of the difference | right only (baseline / candidate) |",
        "|---|---|---|---|---|",
    ]
    for r in figures["checks"]:
        interval = "{:+.4f} … {:+.4f}".format(*r["interval"]) if "interval" in r else ""
        only = "{} / {}".format(*r["right_only"]) if "right_only" in r else ""
        mark = " **lost**" if r["lost"] else ""
        lines.append(f"| {r['check']} | {r.get('baseline', '')} | {r['candidate']}{mark} | {interval} | {only} |")
    lines.append("")
    for item in figures["left_out"]:
        lines.append(f"left out: {item}")
    verdict = "ships by the rule" if figures["ships_by_the_rule"] else "does not ship by the rule"
    lost = "; ".join(figures["lost"]) or "none"
    beyond = "; ".join(figures["lost_beyond_doubt"]) or "none"
    lines.append(f"{figures['candidate']} {verdict}: checks lost {lost}; lost beyond doubt (interval below 0) {beyond}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="read every check for one reader")
    r.add_argument("--name", required=True, help="the reader's name in the output files (shipped for the bundled one)")
    r.add_argument("--model-dir", type=Path, default=None, help="the reader (default: the bundled one)")
    r.add_argument("--pairs", type=Path, required=True, help="the folder holding the pairs_validation*.jsonl files")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--data", type=Path, default=SHARED, help="the shared data folder")
    r.add_argument("--skip", action="append", choices=LONG_STEPS, default=[])
    r.add_argument("--again", action="store_true", help="read every step anew, even those done before")
    t = sub.add_parser("table", help="the rule's table of a candidate against a baseline")
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--baseline", default="shipped")
    t.add_argument("--candidate", required=True)
    t.add_argument("--json", type=Path, default=None, help="write the figures as JSON here too")
    led = sub.add_parser("tuning-ledger", help="the tuning parts' rows of a fever results.jsonl")
    led.add_argument("results", type=Path)
    led.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            if args.model_dir and not (args.model_dir / "model.onnx").is_file():
                raise ChecksError(f"{args.model_dir}: no model.onnx (training.reader_job import writes one)")
            steps = plan(args.name, args.model_dir, args.pairs, args.out, args.data, tuple(args.skip))
            run(steps, args.out, args.name, args.again)
        elif args.command == "table":
            figures = table(args.out, args.baseline, args.candidate)
            print(render(figures))
            if args.json:
                args.json.write_text(json.dumps(figures, indent=1) + "\n")
        else:
            if not args.results.is_file():
                raise ChecksError(f"{args.results}: no such results file")
            print(f"{tuning_ledger(args.results, args.out)} rows of the tuning parts written to {args.out}")
    except ChecksError as error:
        print(f"reader_checks: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
