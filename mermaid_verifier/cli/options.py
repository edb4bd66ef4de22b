"""What every command shares: the consoles, the option types, the settings they build and the one
place that turns errors into a line on stderr and an exit code (2 usage, 1 runtime; ``--debug`` or
``MERMAID_DEBUG=1`` shows the traceback instead)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer
from rich.console import Console

from mermaid_verifier.errors import MermaidError

stdout = Console()
stderr = Console(stderr=True)
ClaimsArg = Annotated[list[str], typer.Argument(help="Claims to verify; '-' reads one claim per line from stdin.", show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object per claim.")]
CorpusOpt = Annotated[Optional[list[Path]], typer.Option("--corpus", "-c", help="A local JSONL corpus (repeatable; env MERMAID_CORPUS, os.pathsep-separated).", show_default=False)]
NoMemoryOpt = Annotated[bool, typer.Option("--no-memory", help="Neither read nor write the evidence memory.")]
CacheDirOpt = Annotated[Optional[Path], typer.Option("--cache-dir", help="Where the memory and index caches live (env MERMAID_CACHE_DIR).", show_default=False)]
MaxStepsOpt = Annotated[Optional[int], typer.Option("--max-steps", help="Executor step budget (env MERMAID_MAX_STEPS, default 5).", show_default=False)]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks (env MERMAID_DEBUG=1).")]
ReviewOpt = Annotated[bool, typer.Option("--review", help="Ask a person about uncertain verdicts (queued for `mermaid-verifier review` when no one is at the terminal).")]




def say_skipped_sources(skipped_sources: dict[str, str]) -> None:
    if skipped_sources:
        skipped = ", ".join(f"{name} ({why})" for name, why in skipped_sources.items())
        stderr.print(f"note: not using {skipped}; continuing with the reachable sources", highlight=False, soft_wrap=True)


def debug_requested(flag: bool) -> bool:
    return flag or os.environ.get("MERMAID_DEBUG", "").lower() in {"1", "true", "yes", "on"}


def guarded(debug: bool, action: Callable[[], None]) -> None:
    """Run a command body; turn every failure into one line on stderr and an exit code."""
    debug = debug_requested(debug)
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
