"""``verify "claim"`` and ``mermaid-verifier verify …``: verify claims and print the verdicts."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable, Iterable

from mermaid_verifier.claims import MAX_CLAIM_CHARS, check_claim_length, claim_warnings
from mermaid_verifier.cli.options import (
    ClaimsArg,
    JsonOpt,
    ReviewOpt,
    SettingsOptions,
    VersionOpt,
    guarded,
    llm_failures,
    run_to_the_end,
    servers_started_early,
    stderr,
    stdout,
    takes_options,
    warn,
)
from mermaid_verifier.cli.render import print_result
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import result_from_output


def stdin_claims(lines: Iterable[bytes], skip: Callable[[str], None]) -> list[str]:
    """The non-blank lines of stdin; a line that is not UTF-8, or longer than a claim may be, goes to
    ``skip`` with its line number and the rest are verified."""
    claims = []
    for number, raw in enumerate(lines, 1):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            skip(f"<stdin>:{number}: not UTF-8")
            continue
        if len(line) > MAX_CLAIM_CHARS:
            skip(f"<stdin>:{number}: {len(line):,} characters long; the limit for a claim is {MAX_CLAIM_CHARS:,}")
            continue
        if line:
            claims.append(line)
    return claims


def argument_claim(argument: str, number: int) -> str:
    claim = argument.strip()
    if not claim:
        raise UsageError("empty claim: give the claim text, or '-' to read claims from stdin")
    try:
        claim.encode("utf-8")
    except UnicodeEncodeError:  # bytes the locale could not decode reach Python as lone surrogates
        raise UsageError(f"claim {number} is not UTF-8") from None
    return claim


def read_claims(
    arguments: Iterable[str], stdin: Iterable[bytes], skip: Callable[[str], None] = lambda line: None
) -> list[str]:
    """Claims from the arguments, with '-' expanded to the non-blank lines of stdin (read as
    UTF-8; a line that is not is skipped and named). A claim over the length limit is a usage error."""
    claims: list[str] = []
    for argument in arguments:
        claims += stdin_claims(stdin, skip) if argument == "-" else [argument_claim(argument, len(claims) + 1)]
    if not claims:
        raise UsageError("no claims to verify")
    for number, claim in enumerate(claims, 1):
        check_claim_length(claim, f"claim {number}" if len(claims) > 1 else "the claim")
    return claims


def warn_about_claims(claims: list[str]) -> None:
    """A warning on stderr for each claim whose verdict may mean little (a question, not English)."""
    for number, claim in enumerate(claims, 1):
        for warning in claim_warnings(claim):
            shown = claim if len(claim) <= 60 else claim[:57] + "..."
            warn(f"claim {number} ({shown!r}) {warning}")


async def verify_claims(
    claims: list[str], settings, as_json: bool, review: bool = False, stdin_used: bool = False
) -> None:
    run_started = time.monotonic()
    async with contextlib.AsyncExitStack() as stack:
        # the tool servers start first, while the graph, the parser and the stance model are imported below
        overrides = await stack.enter_async_context(servers_started_early(settings))

        from mermaid_verifier.cli.review import review_tools, reviewer_is_present, run_with_review
        from mermaid_verifier.graph import open_pipeline

        emit = print_result(stdout, as_json)
        failed: list[str] = []
        interactive = review and reviewer_is_present() and not stdin_used  # claims on stdin leave no one to ask
        status = stderr.status("starting tool servers and models …") if stderr.is_terminal and not review else None
        if status:
            status.start()
        saver = queue = None
        if review:
            saver, queue = await stack.enter_async_context(review_tools(settings))
        pipeline = await stack.enter_async_context(
            open_pipeline(settings, review=review, checkpointer=saver, overrides=overrides)
        )
        verifier = pipeline.graph
        ready = time.monotonic() - run_started
        for number, claim in enumerate(claims, 1):
            if status:
                status.update(f"verifying claim {number}/{len(claims)} …")
            if review:
                output, queued = await run_with_review(verifier, claim, queue, stderr, interactive)
                if queued:
                    stderr.print(
                        f"queued for review: {claim!r} (run `mermaid-verifier review`)", highlight=False, soft_wrap=True
                    )
            else:
                output = await verifier.ainvoke({"claim": claim})
            if status:
                status.stop()
            result = result_from_output(claim, output)
            emit(result)
            if result.llm_failure is not None:
                failed.append(result.llm_failure)
            if status and number < len(claims):
                status.start()
    if status:
        status.stop()
    if not as_json:  # what each panel's time leaves out: starting the tool servers and loading the models
        stderr.print(
            f"{len(claims)} claim(s) in {time.monotonic() - run_started:.1f} s, of which {ready:.1f} s starting the"
            " tool servers and loading the parser and the stance model",
            style="dim",
            highlight=False,
        )
    if failed:
        raise llm_failures(failed, len(claims))


def say_skipped_line(where: str) -> None:
    stderr.print(f"skipped {where}", highlight=False, soft_wrap=True)


@takes_options
def verify_command(
    claims: ClaimsArg,
    as_json: JsonOpt = False,
    *,
    options: SettingsOptions,
    review: ReviewOpt = False,
    version: VersionOpt = False,  # printed by its callback, before any claim is read
) -> None:
    """Verify claims: SUPPORTS / REFUTES / NOT ENOUGH INFO, with evidence and abstention."""

    def body() -> None:
        settings = options.settings()
        claim_list = read_claims(claims, sys.stdin.buffer if "-" in claims else [], skip=say_skipped_line)
        warn_about_claims(claim_list)
        asyncio.run(verify_claims(claim_list, settings, as_json, review, stdin_used="-" in claims))

    guarded(options.debug, body)


def verify_main() -> None:
    """The ``verify`` console script: the verify command on its own."""
    import typer

    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    single.command()(verify_command)
    run_to_the_end(single)
