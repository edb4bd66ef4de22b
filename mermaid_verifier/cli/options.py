"""What every command shares: the consoles, the option types, the options that make a run's settings
(:class:`SettingsOptions`, which a command takes whole with :func:`takes_options`) and the one place that turns
errors into a line on stderr and an exit code (2 usage, 1 runtime; ``--debug`` or ``MERMAID_DEBUG=1`` shows the
traceback instead).

Both consoles print text as given: claims, ids, titles and paths may hold ``[...]`` or ``:name:``,
which Rich would otherwise read as markup or emoji codes. Styled output is built from ``Text``."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import os
import platform
import sys
import typing
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from mermaid_verifier.errors import LLMServiceError, MermaidError, UsageError
from mermaid_verifier.process_end import exit_code, exit_without_teardown
from mermaid_verifier.reader.model_check import installed_version

if TYPE_CHECKING:
    from mermaid_verifier.config import Settings
    from mermaid_verifier.texts import TextJob
    from mermaid_verifier.wiring import Overrides

# The exit status of a program whose reader went away (128 + SIGPIPE), as `head` leaves it in a pipeline.
OUTPUT_CLOSED = 141


class LiteralConsole(Console):
    """A console that reads no markup or emoji codes and reports a closed pipe as ``BrokenPipeError``
    (Rich's own reaction is to exit with status 1)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(markup=False, emoji=False, **kwargs)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError("output closed by its reader")


stdout = LiteralConsole()
stderr = LiteralConsole(stderr=True)
ClaimsArg = Annotated[
    list[str], typer.Argument(help="Claims to verify; '-' reads one claim per line from stdin.", show_default=False)
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object per claim.")]
CorpusOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--corpus",
        "-c",
        help="A local corpus: a JSONL file or a Kiwix ZIM file, e.g. all of Wikipedia (repeatable; env MERMAID_CORPUS, "
        "os.pathsep-separated).",
        show_default=False,
    ),
]
NoMemoryOpt = Annotated[bool, typer.Option("--no-memory", help="Neither read nor write the evidence memory.")]
MemoryUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--memory-url",
        help="Keep the evidence memory in this PostgreSQL database, shared by every worker pointing at it (postgresql://user@host/db; env MERMAID_MEMORY_URL; needs the postgres extra).",
        show_default=False,
    ),
]
CacheDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir", help="Where the memory and index caches live (env MERMAID_CACHE_DIR).", show_default=False
    ),
]
MaxStepsOpt = Annotated[
    int | None,
    typer.Option("--max-steps", help="Executor step budget (env MERMAID_MAX_STEPS, default 5).", show_default=False),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks (env MERMAID_DEBUG=1).")]
ReviewOpt = Annotated[
    bool,
    typer.Option(
        "--review",
        help="Ask a person about uncertain verdicts (queued for `mermaid-verifier review` when no one is at the terminal).",
    ),
]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]


def version_line() -> str:
    """``mermaid-verifier VERSION (onnxruntime VERSION, Python VERSION)``, from the installed metadata: nothing
    is imported or loaded to say it."""
    return (
        f"mermaid-verifier {installed_version('mermaid-verifier')} "
        f"(onnxruntime {installed_version('onnxruntime')}, Python {platform.python_version()})"
    )


def _print_version(requested: bool) -> None:
    if requested:
        stdout.print(version_line(), highlight=False, soft_wrap=True)
        raise typer.Exit(0)


VersionOpt = Annotated[
    bool,
    typer.Option(
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version (with onnxruntime's and Python's) and exit.",
    ),
]


def say_skipped_sources(skipped_sources: dict[str, str]) -> None:
    if skipped_sources:
        skipped = ", ".join(f"{name} ({why})" for name, why in skipped_sources.items())
        stderr.print(
            f"note: not using {skipped}; continuing with the reachable sources", highlight=False, soft_wrap=True
        )


@contextlib.asynccontextmanager
async def servers_started_early(settings, needed: bool = True) -> AsyncIterator[Overrides]:
    """The run's tool servers starting before the caller imports the pipeline (the graph, spaCy, onnxruntime:
    seconds on one core), so that their processes import and load their indexes on another core meanwhile; says
    which sources are left out. Yields the :class:`~mermaid_verifier.wiring.Overrides` that hand them to
    ``open_pipeline`` and ``TextJob.open`` (``toolbox``, ``early_start``); none when not ``needed`` (texts read
    against given documents only)."""
    if not needed:
        from mermaid_verifier.wiring import Overrides

        yield Overrides()
        return
    from mermaid_verifier.tools.sources import toolbox_started_early

    async with toolbox_started_early(settings) as (toolbox, skipped, early):
        say_skipped_sources(skipped)
        from mermaid_verifier.wiring import Overrides  # imports the agents: only once the servers are launched

        yield Overrides(toolbox=toolbox, early_start=early)


@contextlib.asynccontextmanager
async def text_job_started_early(settings, *, documents_only: bool = False) -> AsyncIterator[TextJob]:
    """The text job of ``check``, ``serve`` and ``mcp``: the tool servers started first (unless the texts are read
    against given documents only), then the pipeline imported and opened with them; all closed on leaving."""
    async with servers_started_early(settings, needed=not documents_only) as overrides:
        from mermaid_verifier.texts import TextJob

        async with TextJob.open(settings, documents_only=documents_only, overrides=overrides) as job:
            yield job


def llm_failures(failed: list[str], claims: int) -> LLMServiceError:
    """The error a run ends with when the LLM endpoint failed on some claims: their verdicts were printed (abstentions
    that say why), and the run still failed."""
    return LLMServiceError(
        f"the LLM endpoint failed on {len(failed)} of {claims} claim(s), whose verdicts are abstentions "
        f"(last: {failed[-1]})"
    )


def warn(message: str) -> None:
    stderr.print(Text.assemble(("warning:", "yellow"), " ", one_line(message)), soft_wrap=True)


def one_line(text: str) -> str:
    """``text`` with every character a terminal would not show as itself (newlines, escape
    sequences, lone surrogates) written as its Python escape, so it stays on one line."""
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


def confirm(action: str, yes: bool) -> bool:
    """Whether to go ahead with ``action``: yes with ``--yes``, else a person at the terminal answers.
    Without a terminal there is no one to ask, which is a usage error."""
    if yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError(f"not confirmed: {action} (no terminal to ask; use --yes)")
    try:
        return typer.confirm(f"{action}?")
    except typer.Abort:  # Ctrl-C or Ctrl-D at the question
        return False


def debug_requested(flag: bool) -> bool:
    return flag or os.environ.get("MERMAID_DEBUG", "").lower() in {"1", "true", "yes", "on"}


def _message(exc: BaseException) -> str:
    try:
        return one_line(str(exc))
    except Exception:  # a message that cannot even be built must not hide the error it belongs to
        return f"(the {type(exc).__name__} message cannot be shown)"


def _say_error(message: str) -> None:
    with contextlib.suppress(OSError):  # a closed stderr leaves nowhere to say it; the exit code still tells
        stderr.print(Text.assemble(("error:", "bold red"), " ", message), soft_wrap=True)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so flushing what is left at exit does not fail a second time."""
    with contextlib.suppress(OSError, ValueError):  # stdout without a file descriptor (a test's capture)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_to_the_end(command: Callable[[], object]) -> NoReturn:
    """Run a console script's command, then end the process with its exit code, skipping the interpreter's teardown
    once nothing is left at work (:func:`~mermaid_verifier.process_end.exit_without_teardown`); everything the
    command opened it has closed on the way out."""
    try:
        command()
        code = 0
    except SystemExit as stop:
        code = exit_code(stop)
    exit_without_teardown(code)
    raise SystemExit(code)  # a thread is still at work: the normal exit waits for it


def guarded(debug: bool, action: Callable[[], None]) -> None:
    """Run a command body; turn every failure into one line on stderr and an exit code."""
    debug = debug_requested(debug)
    try:
        action()
    except typer.Exit:
        raise
    except BrokenPipeError:  # the reader of stdout went away (`verify … | head -1`): nothing left to say
        _silence_stdout()
        raise typer.Exit(OUTPUT_CLOSED) from None
    except MermaidError as exc:
        if debug:
            raise
        _say_error(_message(exc))
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):
            stderr.print("interrupted")
        raise typer.Exit(130) from None
    except Exception as exc:  # the one boundary where an unexpected failure becomes a clear line
        if debug:
            raise
        _say_error(f"unexpected {type(exc).__name__}: {_message(exc)} (run with --debug for the traceback)")
        raise typer.Exit(1) from None


# a field of an option group listed after the command's own options (and before an eager one, --version)
LISTED_LAST = "listed_last"


@dataclasses.dataclass(frozen=True)
class SettingsOptions:
    """The options that make a run's settings: where the evidence comes from, the evidence memory, the step budget,
    ``--debug``. ``verify``, ``check``, ``serve`` and ``mcp`` take them whole (:func:`takes_options`); ``fever``,
    ``review``, ``calibrate`` and ``memory`` build one from the few they have. :meth:`settings` is the one place
    options become :class:`~mermaid_verifier.config.Settings`."""

    corpus: CorpusOpt = None
    no_memory: NoMemoryOpt = False
    memory_url: MemoryUrlOpt = None
    cache_dir: CacheDirOpt = None
    max_steps: MaxStepsOpt = None
    debug: DebugOpt = dataclasses.field(default=False, metadata={LISTED_LAST: True})

    def settings(self, **overrides) -> Settings:
        """The ``MERMAID_*`` variables, then these options, then ``overrides``; an option not given (``None``)
        leaves the variable's value."""
        # the settings module (with platformdirs) loads here, when a command builds its settings: `--version`,
        # `--help` and the refusals said before the settings (serve's) do without it
        from mermaid_verifier.config import Settings

        given = {
            "corpora": tuple(self.corpus) if self.corpus else None,
            "use_memory": False if self.no_memory else None,
            "cache_dir": self.cache_dir,
            "max_steps": self.max_steps,
            "debug": debug_requested(self.debug) or None,
            "memory_url": self.memory_url,
        }
        return Settings.from_env(**(given | overrides))


Command = TypeVar("Command", bound=Callable[..., None])


def takes_options(command: Command) -> Command:
    """Let ``command`` take groups of options: a parameter whose type is a dataclass of typer options (such as
    :class:`SettingsOptions`) stands for the group's fields, which typer lists in its place as options of the
    command, and the command is called with the group built from them. A field marked ``LISTED_LAST`` (``--debug``)
    is listed after the command's other options, before an eager one (``--version``)."""
    signature = inspect.signature(command, eval_str=True)
    groups: dict[str, type] = {}
    own: list[inspect.Parameter] = []
    last: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        group = parameter.annotation
        if not (isinstance(group, type) and dataclasses.is_dataclass(group)):
            own.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))
            continue
        groups[parameter.name] = group
        types = typing.get_type_hints(group, include_extras=True)
        for field in dataclasses.fields(group):
            option = inspect.Parameter(
                field.name, inspect.Parameter.KEYWORD_ONLY, default=field.default, annotation=types[field.name]
            )
            (last if field.metadata.get(LISTED_LAST) else own).append(option)
    at = len(own)
    while at and _is_eager(own[at - 1]):
        at -= 1
    parameters = [*own[:at], *last, *own[at:]]

    @functools.wraps(command)
    def with_groups(**values) -> None:
        for name, group in groups.items():
            given = {field.name: values.pop(field.name) for field in dataclasses.fields(group) if field.name in values}
            values.setdefault(name, group(**given))
        command(**values)

    with_groups.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    with_groups.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
    return typing.cast(Command, with_groups)


def _is_eager(parameter: inspect.Parameter) -> bool:
    return any(getattr(info, "is_eager", False) for info in typing.get_args(parameter.annotation)[1:])
