"""Command line: ``verify "claim"`` and ``mermaid-verifier verify …``.

This is the only place that catches mermaid-verifier's errors: each becomes one line on stderr and
an exit code (2 usage, 1 runtime). ``--debug`` or ``MERMAID_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Callable, Iterable, Optional

import typer
from rich.console import Console

from mermaid_verifier.errors import MermaidError, UsageError

stdout = Console()
stderr = Console(stderr=True)

app = typer.Typer(help="mermaid-verifier: verify claims against evidence.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)

ClaimsArg = Annotated[list[str], typer.Argument(help="Claims to verify; '-' reads one claim per line from stdin.", show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object per claim.")]
CorpusOpt = Annotated[Optional[list[Path]], typer.Option("--corpus", "-c", help="A local JSONL corpus (repeatable; env MERMAID_CORPUS, os.pathsep-separated).", show_default=False)]
NoMemoryOpt = Annotated[bool, typer.Option("--no-memory", help="Neither read nor write the evidence memory.")]
CacheDirOpt = Annotated[Optional[Path], typer.Option("--cache-dir", help="Where the memory and index caches live (env MERMAID_CACHE_DIR).", show_default=False)]
MaxStepsOpt = Annotated[Optional[int], typer.Option("--max-steps", help="Executor step budget (env MERMAID_MAX_STEPS, default 5).", show_default=False)]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks (env MERMAID_DEBUG=1).")]
ReviewOpt = Annotated[bool, typer.Option("--review", help="Ask a person about uncertain verdicts (queued for `mermaid-verifier review` when no one is at the terminal).")]


def read_claims(arguments: Iterable[str], stdin: Iterable[str]) -> list[str]:
    """Claims from the arguments, with '-' expanded to the non-blank lines of stdin."""
    claims: list[str] = []
    for argument in arguments:
        if argument == "-":
            claims += [line.strip() for line in stdin if line.strip()]
        elif argument.strip():
            claims.append(argument.strip())
        else:
            raise UsageError("empty claim: give the claim text, or '-' to read claims from stdin")
    if not claims:
        raise UsageError("no claims to verify")
    return claims


async def verify_claims(claims: list[str], settings, as_json: bool, review: bool = False, stdin_used: bool = False) -> None:
    # Start the tool servers first: their processes import and load their indexes on the other core
    # while this one imports the graph, the parser and the stance model (a cold start is ~1.5 s shorter).
    from mermaid_verifier.errors import ToolServerError
    from mermaid_verifier.sources import toolbox_for

    toolbox, skipped = toolbox_for(settings)
    _say_skipped_sources(skipped)

    async def start_quietly() -> None:
        with contextlib.suppress(ToolServerError):  # open_verifier raises it again, once, with its message
            await toolbox.start()

    early_start = asyncio.create_task(start_quietly())
    for _ in range(20):  # let the owner task spawn the server processes before the imports block the loop
        await asyncio.sleep(0)

    from mermaid_verifier.cli_review import print_result, review_tools, reviewer_is_present, run_with_review
    from mermaid_verifier.graph import open_verifier
    from mermaid_verifier.output import result_from_output

    emit = print_result(stdout, as_json)
    interactive = review and reviewer_is_present() and not stdin_used  # claims on stdin leave no one to ask
    status = stderr.status("starting tool servers and models …") if stderr.is_terminal and not review else None
    if status:
        status.start()
    async with contextlib.AsyncExitStack() as stack:
        saver = queue = None
        if review:
            saver, queue = await stack.enter_async_context(review_tools(settings))
        verifier = await stack.enter_async_context(open_verifier(settings, review=review, checkpointer=saver, toolbox=toolbox))
        await early_start
        for number, claim in enumerate(claims, 1):
            if status:
                status.update(f"verifying claim {number}/{len(claims)} …")
            if review:
                output, queued = await run_with_review(verifier, claim, queue, stderr, interactive)
                if queued:
                    stderr.print(f"queued for review: {claim!r} (run `mermaid-verifier review`)", highlight=False, soft_wrap=True)
            else:
                output = await verifier.ainvoke({"claim": claim})
            if status:
                status.stop()
            emit(result_from_output(claim, output))
            if status and number < len(claims):
                status.start()
    if status:
        status.stop()


def _say_skipped_sources(skipped_sources: dict[str, str]) -> None:
    if skipped_sources:
        skipped = ", ".join(f"{name} ({why})" for name, why in skipped_sources.items())
        stderr.print(f"note: not using {skipped}; continuing with the reachable sources", highlight=False, soft_wrap=True)


def _debug_requested(flag: bool) -> bool:
    return flag or os.environ.get("MERMAID_DEBUG", "").lower() in {"1", "true", "yes", "on"}


def guarded(debug: bool, action: Callable[[], None]) -> None:
    """Run a command body; turn every failure into one line on stderr and an exit code."""
    debug = _debug_requested(debug)
    try:
        action()
    except MermaidError as exc:
        if debug:
            raise
        stderr.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        stderr.print("interrupted")
        raise typer.Exit(130) from None
    except Exception as exc:  # the one boundary where an unexpected failure becomes a clear line
        if debug:
            raise
        stderr.print(f"[bold red]error:[/] unexpected {type(exc).__name__}: {exc} (run with --debug for the traceback)",
                     highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


def settings_from_options(**options):
    from mermaid_verifier.config import Settings

    corpus = options.pop("corpus", None)
    return Settings.from_env(corpora=tuple(corpus) if corpus else None, **options)


def _run_verify(claims: list[str], as_json: bool, corpus: Optional[list[Path]], no_memory: bool,
                cache_dir: Optional[Path], max_steps: Optional[int], debug: bool, review: bool = False) -> None:
    def body() -> None:
        settings = settings_from_options(corpus=corpus, use_memory=False if no_memory else None, cache_dir=cache_dir,
                                         max_steps=max_steps, debug=_debug_requested(debug) or None)
        claim_list = read_claims(claims, sys.stdin if "-" in claims else [])
        asyncio.run(verify_claims(claim_list, settings, as_json, review, stdin_used="-" in claims))

    guarded(debug, body)


@app.command("verify")
def verify_command(claims: ClaimsArg, as_json: JsonOpt = False, corpus: CorpusOpt = None, no_memory: NoMemoryOpt = False,
                   cache_dir: CacheDirOpt = None, max_steps: MaxStepsOpt = None, review: ReviewOpt = False,
                   debug: DebugOpt = False) -> None:
    """Verify claims: SUPPORTS / REFUTES / NOT ENOUGH INFO, with evidence and abstention."""
    _run_verify(claims, as_json, corpus, no_memory, cache_dir, max_steps, debug, review)


@app.callback()
def _root() -> None:
    """mermaid-verifier: verify claims against evidence."""


from mermaid_verifier.cli_memory import memory_app  # noqa: E402  (registers the `memory` commands)

from mermaid_verifier.cli_calibrate import calibrate_command  # noqa: E402
from mermaid_verifier.cli_fever import fever_command  # noqa: E402


@app.command("review")
def review_command(as_json: JsonOpt = False, corpus: CorpusOpt = None, cache_dir: CacheDirOpt = None,
                   debug: DebugOpt = False) -> None:
    """Work through the claims waiting for review, resuming each paused verification."""
    from mermaid_verifier.cli_review import print_result, review_command_body

    guarded(debug, lambda: review_command_body(settings_from_options(corpus=corpus, cache_dir=cache_dir), stderr,
                                               print_result(stdout, as_json)))


app.add_typer(memory_app, name="memory")
app.command("calibrate")(calibrate_command)
app.command("fever")(fever_command)


def main() -> None:
    app()


def verify_main() -> None:
    """The ``verify`` console script: the verify command on its own."""
    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    single.command()(verify_command)
    single()
