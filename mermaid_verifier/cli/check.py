"""``mermaid-verifier check FILE|-``: check every claim of a whole text (an article, a speech, an LLM's answer)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from mermaid_verifier.cli.options import (
    CacheDirOpt,
    CorpusOpt,
    DebugOpt,
    MaxStepsOpt,
    MemoryUrlOpt,
    NoMemoryOpt,
    guarded,
    llm_failures,
    run_settings,
    stderr,
    stdout,
)
from mermaid_verifier.errors import UsageError
from mermaid_verifier.output import origin, where

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
        " supported, contradicted or not stated, with the passage and its span.",
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
_COLOURS = {"SUPPORTS": "green", "REFUTES": "red", "NOT ENOUGH INFO": "yellow"}


def read_text(source: str, stdin: bytes | None = None) -> str:
    """The text of ``source`` (a path, or '-' for ``stdin``); a usage error naming it when it cannot be used."""
    from mermaid_verifier.text_graph import MAX_TEXT_CHARS

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


_GROUNDING_COLOURS = {
    "supported": "green",
    "partially supported": "yellow",
    "contradicted": "red",
    "not stated": "magenta",
    "nothing to check": "dim",
}


def print_grounding_result(result) -> None:
    """Each sentence with its label, the passage that backs (or contradicts) it, document and span, and each of
    its claims that is not supported: contradicted (with the passage) or not stated; then the summary."""
    for sentence in result.sentences:
        colour = _GROUNDING_COLOURS[sentence.label]
        if sentence.label == "nothing to check":
            stdout.print(
                Text.assemble((sentence.sentence, "dim"), (f"  — nothing to check: {sentence.reason}", "dim italic"))
            )
            continue
        stdout.print(Text.assemble((sentence.label.upper(), f"bold {colour}"), "  ", (sentence.sentence, "bold")))
        for claim in sentence.unsupported:
            status = "contradicted" if claim in sentence.contradicted else "not stated"
            said = "contradicted by the documents" if status == "contradicted" else "not stated in the documents"
            stdout.print(Text(f"      {said}: {claim}", style=_GROUNDING_COLOURS[status]))
        passage = sentence.passage
        if passage is not None:
            verb = {"contradicted": "contradicted by", "not stated": "closest passage"}.get(sentence.label, "backed by")
            stdout.print(
                Text(
                    f"      {verb} {passage.name} [{passage.start}:{passage.end}] (P(supports) {passage.supports:.2f}, "
                    f"P(refutes) {passage.refutes:.2f}): {passage.text[:200]}",
                    style="dim",
                )
            )
    s = result.summary
    share = (
        f"{s.supported_share:.0%} of checkable sentences supported"
        if s.supported_share is not None
        else "nothing checkable"
    )
    stdout.print(
        Text(
            f"\n{s.sentences} sentence(s): {s.supported} supported, {s.partially_supported} partially supported, "
            f"{s.contradicted} contradicted, {s.not_stated} not stated, {s.nothing_to_check} with nothing to check — "
            f"{share} ({s.claims_supported} of {s.claims} claims supported, {s.claims_contradicted} contradicted, "
            f"{s.claims_not_stated} not stated, by {len(result.documents)} document(s))",
            style="bold",
        )
    )


def show_result(result, as_json: bool, html: Path | None, write_page, print_readable) -> None:
    """A checked text's result: the extraction's fall-back said, the page written (``--html``), then the JSON
    object or the readable listing."""
    from mermaid_verifier.cli.options import warn

    if result.extraction_fallback:
        warn(result.extraction_fallback)
    if html is not None:
        try:
            write_page(html, result)
        except OSError as exc:
            raise UsageError(f"{html}: the page cannot be written ({exc.strerror or exc})") from None
    if as_json:
        stdout.print(result.model_dump_json(), soft_wrap=True)
    else:
        print_readable(result)
        if html is not None:
            stderr.print(f"page: {html}", highlight=False, soft_wrap=True)


async def _ground(text: str, paths: list[Path], settings, as_json: bool, concurrency: int, html: Path | None) -> None:
    from mermaid_verifier.cli.options import warn
    from mermaid_verifier.grounding import check_grounding
    from mermaid_verifier.tools.documents import given_documents

    documents, problems = await asyncio.to_thread(given_documents, paths)
    for problem in problems:
        warn(f"not using {problem}")
    status = stderr.status("reading the documents …") if stderr.is_terminal else None
    if status:
        status.start()
    done: list = []

    def progress(grounded, total: int) -> None:
        done.append(grounded)
        if status:
            status.update(f"read {len(done)}/{total} claims against {len(documents)} document(s) …")

    try:
        result = await check_grounding(text, documents, settings, concurrency=concurrency, on_claim=progress)
    finally:
        if status:
            status.stop()
    from mermaid_verifier.evaluation.text_report import write_grounding_report

    show_result(result, as_json, html, write_grounding_report, print_grounding_result)


def print_text_result(result) -> None:
    """The text sentence by sentence, each claim with its verdict and best evidence; then the summary."""
    by_sentence: dict[int, list] = {}
    for checked in result.claims:
        by_sentence.setdefault(checked.claim.start, []).append(checked)
    dropped = {d.start: d for d in result.dropped}
    for start in sorted(set(by_sentence) | set(dropped)):
        if start in dropped:
            item = dropped[start]
            stdout.print(Text.assemble((item.sentence, "dim"), (f"  — not checked: {item.reason}", "dim italic")))
            continue
        claims = by_sentence[start]
        stdout.print(Text(claims[0].claim.sentence, style="bold"))
        for checked in claims:
            r = checked.result
            label = r.verdict.value
            line = Text.assemble(
                "  ",
                (f"{label}", f"bold {_COLOURS[label]}"),
                f" {r.confidence:.2f}",
                (" ABSTAINED" if r.abstained else "", "magenta"),
                "  ",
                checked.claim.text,
            )
            stdout.print(line)
            if r.evidence:
                best = r.evidence[0]
                stdout.print(
                    Text(f"      {best.title}: {best.text[:160]}  ({where(best)} · {origin(best)})", style="dim")
                )
            else:
                stdout.print(Text("      no evidence found", style="dim"))
    s = result.summary
    share = f"{s.supported_share:.0%} of decided claims supported" if s.supported_share is not None else "none decided"
    stdout.print(
        Text(
            f"\n{s.claims} claim(s): {s.supported} supported, {s.refuted} refuted, {s.not_enough_info} not enough "
            f"info, {s.abstained} abstained — {share}; {s.sentences_without_claims} sentence(s) with nothing to check",
            style="bold",
        )
    )


def check_command(
    text_source: TextArg,
    as_json: TextJsonOpt = False,
    corpus: CorpusOpt = None,
    no_memory: NoMemoryOpt = False,
    memory_url: MemoryUrlOpt = None,
    cache_dir: CacheDirOpt = None,
    max_steps: MaxStepsOpt = None,
    concurrency: ConcurrencyOpt = 4,
    source: SourceOpt = None,
    html: HtmlOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Check a whole text: split it into claims, verify each, and sum up (share supported among decided)."""

    def body() -> None:
        settings = run_settings(
            corpus=corpus,
            no_memory=no_memory,
            cache_dir=cache_dir,
            max_steps=max_steps,
            debug=debug,
            memory_url=memory_url,
        )
        text = read_text(text_source)
        if source:
            asyncio.run(_ground(text, list(source), settings, as_json, concurrency, html))
            return
        asyncio.run(_check(text, settings, as_json, concurrency, html))

    guarded(debug, body)


async def _check(text: str, settings, as_json: bool, concurrency: int, html: Path | None = None) -> None:
    from mermaid_verifier.text_graph import check_text

    status = stderr.status("extracting claims …") if stderr.is_terminal else None
    if status:
        status.start()

    done: list = []

    def progress(checked, total: int) -> None:
        done.append(checked)
        if status:
            status.update(f"checked {len(done)}/{total} claims …")

    try:
        result = await check_text(text, settings, concurrency=concurrency, on_claim=progress)
    finally:
        if status:
            status.stop()
    from mermaid_verifier.evaluation.text_report import write_text_report

    show_result(result, as_json, html, write_text_report, print_text_result)
    failures = [c.result.llm_failure for c in result.claims if c.result.llm_failure]
    if failures:
        raise llm_failures(failures, len(result.claims))
