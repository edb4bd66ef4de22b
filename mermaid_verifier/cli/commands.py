"""The ``mermaid-verifier`` command and its subcommands (the ``verify`` console script is in ``cli/verify.py``)."""

from __future__ import annotations

import typer

from mermaid_verifier.cli.calibrate import calibrate_command
from mermaid_verifier.cli.check import check_command
from mermaid_verifier.cli.doctor import doctor_command
from mermaid_verifier.cli.fever import fever_command
from mermaid_verifier.cli.ground import ground_command
from mermaid_verifier.cli.mcp import mcp_command
from mermaid_verifier.cli.memory import memory_app
from mermaid_verifier.cli.options import (
    CacheDirOpt,
    CorpusOpt,
    DebugOpt,
    JsonOpt,
    SettingsOptions,
    VersionOpt,
    guarded,
    run_to_the_end,
    stderr,
    stdout,
)
from mermaid_verifier.cli.render import print_result
from mermaid_verifier.cli.serve import serve_command
from mermaid_verifier.cli.verify import verify_command

app = typer.Typer(
    help="mermaid-verifier: verify claims against evidence.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root(version: VersionOpt = False) -> None:
    """mermaid-verifier: verify claims against evidence."""


def review_command(
    as_json: JsonOpt = False, corpus: CorpusOpt = None, cache_dir: CacheDirOpt = None, debug: DebugOpt = False
) -> None:
    """Work through the claims waiting for review, resuming each paused verification."""
    from mermaid_verifier.cli.review import review_command_body  # LangGraph's checkpointer: only when it runs

    options = SettingsOptions(corpus=corpus, cache_dir=cache_dir, debug=debug)
    guarded(debug, lambda: review_command_body(options.settings(), stderr, print_result(stdout, as_json)))


app.command("verify")(verify_command)
app.command("check")(check_command)
app.command("serve")(serve_command)
app.command("mcp")(mcp_command)
app.command("review")(review_command)
app.command("calibrate")(calibrate_command)
app.command("fever")(fever_command)
app.command("ground")(ground_command)
app.command("doctor")(doctor_command)
app.add_typer(memory_app, name="memory")


def main() -> None:
    """The ``mermaid-verifier`` console script."""
    run_to_the_end(app)
