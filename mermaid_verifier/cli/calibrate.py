"""``mermaid-verifier calibrate``: fit the abstention threshold to a risk budget and save it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from mermaid_verifier.cli.options import CacheDirOpt, CorpusOpt, DebugOpt, SettingsOptions, guarded, stderr
from mermaid_verifier.errors import UsageError


def outcomes_from_rows(rows: list[dict], label_prior: str = "balanced"):
    """Outcomes grouped by page (claims about the same pages share errors; the risk bound counts groups),
    weighed by gold label under ``label_prior`` (``calibration.label_prior_weights``)."""
    from mermaid_verifier.evaluation.datasets import page_groups, result_anchor_pages
    from mermaid_verifier.weighing.calibration import Outcome, label_prior_weights

    groups = page_groups({str(i): result_anchor_pages(r) for i, r in enumerate(rows)})
    weights = label_prior_weights([r["gold"] for r in rows], label_prior)
    return [
        Outcome(
            confidence=r["confidence"],
            correct=r["verdict"] == r["gold"],
            forced_abstention=r.get("conflict", False),
            group=groups[str(i)],
            weight=weight,
        )
        for i, (r, weight) in enumerate(zip(rows, weights))
    ]


def held_out_summary(check, max_risk: float) -> str:
    """One line on :class:`~mermaid_verifier.weighing.calibration.HeldOutCheck`: what a user's next topics may see."""
    if check.answered == 0:
        return f"held-out check ({check.folds} folds by page group): fitted without a fold, the threshold answered none of its claims"
    return (
        f"held-out check ({check.folds} folds by page group): fitted without a fold, the threshold answered "
        f"{check.coverage:.1%} of its claims with {check.risk:.1%} errors; {check.folds_over_budget} of "
        f"{check.folds_answering} folds that answered any went over the {max_risk:.1%} budget"
    )


RESULT_KEYS = ("gold", "verdict", "confidence")


def say_skipped(path: Path, line_number: int, reason: str) -> None:
    stderr.print(f"skipped {path}:{line_number}: {reason}", highlight=False, soft_wrap=True)


def rows_from_results(path: Path) -> tuple[list[dict], str]:
    """The rows of an earlier run's ``results.jsonl`` (given, or in the run directory given) and
    where they came from; lines that are not rows with gold, verdict and confidence are skipped."""
    from mermaid_verifier.evaluation.datasets import BadLine, json_object_lines, require_readable_file

    path = path / "results.jsonl" if path.is_dir() else path
    require_readable_file(path, "results file")
    rows = []
    for item in json_object_lines(path):
        if isinstance(item, BadLine):
            say_skipped(path, item.line_number, item.reason)
        elif missing := [key for key in RESULT_KEYS if key not in item[1]]:
            say_skipped(path, item[0], f"no {', '.join(missing)}")
        else:
            rows.append(item[1])
    if not rows:
        raise UsageError(f"no result rows in {path}")
    return rows, str(path)


async def rows_from_claims(path: Path, limit: int, concurrency: int, settings) -> list[dict]:
    """Verify the first ``limit`` (0: all) labelled claims of ``path``; their result rows."""
    from mermaid_verifier.evaluation.batch import verify_labelled
    from mermaid_verifier.evaluation.datasets import read_labelled_claims, require_readable_file
    from mermaid_verifier.graph import open_verifier

    labelled, bad = read_labelled_claims(require_readable_file(path, "claims file"))
    for line in bad:
        say_skipped(path, line.line_number, line.reason)
    labelled = labelled[:limit] if limit else labelled
    if not labelled:
        raise UsageError(f"no labelled claims in {path}")
    async with open_verifier(settings) as verifier:
        return await verify_labelled(verifier, labelled, concurrency)


def reset_calibration(settings) -> None:
    """Remove the calibration file in force, saying what was there (or that nothing was)."""
    from mermaid_verifier.weighing import calibration

    path = settings.calibration_path
    saved = calibration.load(path)
    if saved is None:
        stderr.print(
            f"no calibration saved at {path}; `verify` uses the bundled threshold", highlight=False, soft_wrap=True
        )
        return
    path.unlink()
    stderr.print(
        f"removed {path} (abstain below {saved.abstain_below:.3f}, fitted {saved.fitted_at}); `verify` now uses "
        f"the bundled threshold",
        highlight=False,
        soft_wrap=True,
    )


def calibrate_command(
    claims: Annotated[
        Path | None,
        typer.Argument(help="Labelled claims (FEVER-style jsonl: id, claim, label).", show_default=False),
    ] = None,
    max_risk: Annotated[
        float, typer.Option("--max-risk", help="Largest acceptable error rate among answered claims.")
    ] = 0.10,
    delta: Annotated[
        float, typer.Option(help="The bound holds with probability 1 − delta (0.01, 0.05, 0.1, 0.2 or 0.5).")
    ] = 0.1,
    from_results: Annotated[
        Path | None,
        typer.Option(
            "--from-results",
            help="Reuse a results.jsonl (rows with gold, verdict, confidence), or a `fever --out` directory holding one, instead of verifying.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=0, help="Use only the first N claims (0 = all).")] = 0,
    check_folds: Annotated[
        int,
        typer.Option(
            "--check-folds",
            min=0,
            help="Also re-fit without each of K folds of page groups and answer the held-out fold, to show how the threshold does on topics it never saw (0 = skip).",
        ),
    ] = 5,
    label_prior: Annotated[
        str,
        typer.Option(
            "--label-prior",
            help="balanced: weigh the claims so each gold label counts the same, for a threshold that holds "
            "whatever mix of labels comes later; as-given: these claims' own mix is the mix `verify` will see.",
        ),
    ] = "balanced",
    concurrency: Annotated[int, typer.Option(min=1)] = 2,
    reset: Annotated[
        bool, typer.Option("--reset", help="Remove the saved threshold: `verify` goes back to the bundled one.")
    ] = False,
    corpus: CorpusOpt = None,
    cache_dir: CacheDirOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Fit the confidence threshold below which `verify` abstains, to at most MAX_RISK errors among answered claims."""

    def body() -> None:
        from mermaid_verifier.weighing import calibration

        if reset:
            if claims is not None or from_results is not None:
                raise UsageError("--reset removes the saved threshold; it takes no claims file or --from-results")
            reset_calibration(SettingsOptions(cache_dir=cache_dir).settings())
            return
        if label_prior not in calibration.LABEL_PRIORS:
            raise UsageError(f"--label-prior takes {' or '.join(calibration.LABEL_PRIORS)}, not {label_prior!r}")
        if check_folds == 1:
            raise UsageError("--check-folds takes 0 (no check) or 2 and more: one fold leaves nothing to fit on")
        if claims is not None and from_results is not None:
            raise UsageError(
                f"give a claims file or --from-results, not both (got {claims} and --from-results {from_results})"
            )
        settings = SettingsOptions(corpus=corpus, cache_dir=cache_dir).settings(use_memory=False)
        if from_results is not None:
            rows, source = rows_from_results(from_results)
        elif claims is not None:
            rows, source = asyncio.run(rows_from_claims(claims, limit, concurrency, settings)), str(claims)
        else:
            raise UsageError("give a claims file or --from-results")
        outcomes = outcomes_from_rows(rows[:limit] if limit else rows, label_prior)
        held_out, groups = None, calibration.group_count(outcomes)
        if check_folds and calibration.can_fill_folds(groups, check_folds):
            held_out = calibration.check_held_out(outcomes, max_risk, delta, check_folds)
        elif check_folds:
            stderr.print(
                f"held-out check skipped: {groups} page groups cannot fill {check_folds} folds",
                highlight=False,
                soft_wrap=True,
            )
        fitted = calibration.fit(outcomes, max_risk, delta, source, held_out, label_prior)
        calibration.save(fitted, settings.calibration_path)
        print(fitted.model_dump_json(indent=2))
        if held_out is not None:
            stderr.print(held_out_summary(held_out, max_risk), highlight=False, soft_wrap=True)
        stderr.print(
            f"saved to {settings.calibration_path}; `verify` now abstains below confidence {fitted.abstain_below:.3f}",
            highlight=False,
            soft_wrap=True,
        )

    guarded(debug, body)
