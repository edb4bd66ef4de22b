"""``mermaid-verifier check FILE|-``: check every claim of a whole text (an article, a speech, an LLM's answer)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from mermaid_verifier.cli.options import (
    SettingsOptions,
    guarded,
    llm_failures,
    stderr,
    takes_options,
    text_job_started_early,
)
from mermaid_verifier.cli.render import print_grounding_result, print_text_result, show_result
from mermaid_verifier.errors import UsageError

TextArg = Annotated[
    str, typer.Argument(metavar="FILE|-", help="A text file (UTF-8), or '-' to read the text from stdin.")
]
TextJsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON object: every claim with its span, verdict and evidence.")
]
SourceOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--source",
        help="Check the text against these documents only (grounding: is it backed by them?): a file or folder of"
        " .txt, .md, .html, .pdf (or .jsonl corpora); repeatable. Each sentence comes back supported, partially"
        " supported, contradicted, not stated or undecided, with the passage and its span.",
    ),
]
HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html", help="Also write a self-contained page: the text highlighted by verdict, evidence a click away."
    ),
]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", min=1, max=32, help="Claims verified at once (default 4).")
]


def read_text(source: str, stdin: bytes | None = None) -> str:
    """The text of ``source`` (a path, or '-' for ``stdin``); a usage error naming it when it cannot be used."""
    from mermaid_verifier.claims import MAX_TEXT_CHARS

    name = "stdin" if source == "-" else source
    if source == "-":
        raw = stdin if stdin is not None else sys.stdin.buffer.read()
    else:
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"{source}: no such file (give a text file, or '-' to read stdin)")
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"{source}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name}: not UTF-8 text (byte {exc.start}); convert it to UTF-8 first") from None
    if "\x00" in text:
        raise UsageError(f"{name}: looks binary (it holds NUL bytes); give plain text")
    if not text.strip():
        raise UsageError(f"{name}: the text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise UsageError(f"{name}: {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,} (check the text in parts)")
    return text


async def _ground(text: str, paths: list[Path], settings, as_json: bool, concurrency: int, html: Path | None) -> None:
    from mermaid_verifier.cli.options import warn
    from mermaid_verifier.texts.report import write_grounding_report
    from mermaid_verifier.tools.documents import given_documents

    documents, problems = await asyncio.to_thread(given_documents, paths)
    for problem in problems:
        warn(f"not using {problem}")
    doing = "read {}/{} claims against " + f"{len(documents)} document(s) …"
    result = await _job_result(text, documents, settings, concurrency, "reading the documents …", doing)
    show_result(result, as_json, html, write_grounding_report, print_grounding_result)


async def _job_result(text: str, documents: list | None, settings, concurrency: int, starting: str, doing: str):
    """The text job's result: against ``documents`` when given, else against open sources; on a terminal a
    status line says ``starting``, then ``doing`` with the claims decided and in all."""
    status = stderr.status(starting) if stderr.is_terminal else None
    if status:
        status.start()
    done: list = []

    def progress(item, total: int) -> None:
        done.append(item)
        if status:
            status.update(doing.format(len(done), total))

    try:
        async with text_job_started_early(settings, documents_only=documents is not None) as job:
            return await job.check(text, documents, concurrency=concurrency, on_claim=progress)
    finally:
        if status:
            status.stop()


@takes_options
def check_command(
    text_source: TextArg,
    as_json: TextJsonOpt = False,
    *,
    options: SettingsOptions,
    concurrency: ConcurrencyOpt = 4,
    source: SourceOpt = None,
    html: HtmlOpt = None,
) -> None:
    """Check a whole text: split it into claims, verify each, and sum up (share supported among decided)."""

    def body() -> None:
        settings = options.settings()
        text = read_text(text_source)
        if source:
            asyncio.run(_ground(text, list(source), settings, as_json, concurrency, html))
            return
        asyncio.run(_check(text, settings, as_json, concurrency, html))

    guarded(options.debug, body)


async def _check(text: str, settings, as_json: bool, concurrency: int, html: Path | None = None) -> None:
    result = await _job_result(text, None, settings, concurrency, "extracting claims …", "checked {}/{} claims …")
    from mermaid_verifier.texts.report import write_text_report  # after the early start of the tool servers

    show_result(result, as_json, html, write_text_report, print_text_result)
    failures = [c.result.llm_failure for c in result.claims if c.result.llm_failure]
    if failures:
        raise llm_failures(failures, len(result.claims))
