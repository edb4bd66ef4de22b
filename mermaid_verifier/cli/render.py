"""What the command line shows: verify's panel (or JSON line) for a verdict, the review request, check's listing of
a text and of its grounding, the tables of ``fever`` and ``memory``.

The rest of the package hands over records (:func:`mermaid_verifier.models.result_from_output` makes verify's) and
never imports Rich. Every styled line is built from ``Text``: claims, titles and passages are shown as given, never
read as markup."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from mermaid_verifier.cli.options import stderr, stdout, warn
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import Label, VerificationResult

if TYPE_CHECKING:  # the review module brings LangGraph's types, which `verify` without --review never needs
    from mermaid_verifier.review import ReviewRequest

SHOWN_EVIDENCE = 5
_STANCE_STYLES = {"supports": "green", "refutes": "red", "neutral": "dim"}
_COLOURS = {Label.SUPPORTS: "green", Label.REFUTES: "red", Label.NOT_ENOUGH_INFO: "yellow"}
_GROUNDING_COLOURS = {
    "supported": "green",
    "partially supported": "yellow",
    "contradicted": "red",
    "not stated": "magenta",
    "undecided": "cyan",
    "nothing to check": "dim",
}


# ----------------------------------------------------------------------------- an evidence item


def origin(evidence) -> str:
    """Which corpus and server an item came from: ``wikipedia_en_all_nopic, local-corpus`` for a corpus file (a
    ZIM or JSONL corpus), the server alone when it names the source itself (``wikipedia``)."""
    corpus = getattr(evidence, "corpus", None)
    return f"{corpus}, {evidence.source}" if corpus and corpus != evidence.source else evidence.source


def where(evidence) -> str:
    """Where an item can be read: its address, else its page and sentence number, else its page."""
    if evidence.url:
        return evidence.url
    if evidence.line is not None:
        return f"{evidence.page} #{evidence.line}"
    return evidence.page or ""


_TOPICALITY_NOTES = {
    0.0: "names nothing the claim names, not counted",
    0.5: "only mentions the claim's entity, counted half",
}


def why_trusted(evidence) -> str:
    """One line on how much the judge trusted an item and why: reliability and its terms, topicality."""
    trust = evidence.trust
    if trust is None:
        return ""
    terms = [
        f"{name} {value:.2f}"
        for name, value in (
            ("source", trust.source_credibility),
            ("recency", trust.recency),
            ("consensus", trust.consensus),
        )
        if value is not None
    ]
    line = f"reliability {trust.reliability:.2f}" + (f" ({' · '.join(terms)})" if terms else "")
    if trust.topicality is not None and trust.topicality < 1.0:
        line += "; " + _TOPICALITY_NOTES.get(trust.topicality, f"topicality {trust.topicality:.2f}")
    return line


# ----------------------------------------------------------------------------- one claim (verify, review)


def print_panel(console: Console, result: VerificationResult) -> None:
    """The verdict, its confidence and reason, the triplets, the best evidence with where it stands and why it was
    trusted, and what the run cost."""
    colour = _COLOURS[result.verdict]
    headline = Text.assemble((result.verdict.value, f"bold {colour}"), f"  confidence {result.confidence:.2f}")
    if result.abstained:
        headline.append("  ABSTAINED", style="bold magenta")
    parts: list[RenderableType] = [headline, Text(result.reason, style="dim")]

    if result.triplets:
        triplets = Table("subject", "relation", "object", title="triplets", title_justify="left", expand=True)
        for t in result.triplets:
            triplets.add_row(t.subject, t.relation, t.object)
        parts.append(triplets)

    parts.append(Text("evidence", style="bold"))
    for rank, item in enumerate(result.evidence[:SHOWN_EVIDENCE], 1):
        stance = item.stance.value if item.stance else "unscored"
        memory = " · from memory" if item.from_memory else ""
        line = Text.assemble(
            f"{rank}. ",
            (f"[{stance} {item.score or 0:.2f}]", _STANCE_STYLES.get(stance, "")),
            " ",
            (item.title, "bold"),
            f"  ({where(item)} · {origin(item)}{memory})",
        )
        parts += [line, Text(f"   {item.text}")]
        if why := why_trusted(item):
            parts.append(Text(f"   {why}", style="dim"))
    if not result.evidence:
        parts.append(Text("   no evidence found", style="dim"))
    s = result.stats
    summary = f"{s.tool_calls} tool call(s), {s.memory_hits} memory hit(s), {s.seconds:.2f} s verifying this claim"
    if s.llm_calls:
        summary += f", {s.llm_calls} LLM call(s), {s.prompt_tokens}+{s.completion_tokens} tokens"
        summary += f", ${s.cost_usd:.4f}" if s.cost_usd is not None else ""
    parts.append(Text(summary + f" · {result.backend} backend", style="dim"))
    console.print(
        Panel(Group(*parts), title=Text(result.claim), title_align="left", border_style=colour)
    )  # as typed, never markup


def print_result(console: Console, as_json: bool) -> Callable[[VerificationResult], None]:
    """How verify and review show each result: one JSON line (``--json``), else the panel."""

    def emit(result: VerificationResult) -> None:
        if as_json:
            print(result.model_dump_json(), flush=True)
        else:
            print_panel(console, result)

    return emit


def show_request(console: Console, request: ReviewRequest) -> None:
    """The uncertain verdict and its evidence, as plain text (claims and titles may hold brackets)."""
    console.print(Text.assemble(("review needed:", "bold magenta"), " ", request.claim))
    console.print(
        Text(f"judge: {request.verdict.label.value} at {request.verdict.confidence:.2f} — {request.verdict.reason}")
    )
    for rank, item in enumerate(request.evidence, 1):
        stance = item.stance.value if item.stance else "unscored"
        console.print(Text(f"  {rank}. [{stance} {item.score or 0:.2f}] {item.title}: {item.text}"))


# ----------------------------------------------------------------------------- a whole text (check)


def show_result(result, as_json: bool, html: Path | None, write_page, print_readable) -> None:
    """A checked text's result: the extraction's fall-back said, the page written (``--html``), then the JSON
    object or the readable listing."""
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
                (f"{label}", f"bold {_COLOURS[r.verdict]}"),
                f" {r.confidence:.2f}",
                (" ABSTAINED" if r.abstained else "", "magenta"),
                "  ",
                checked.claim.text,
            )
            stdout.print(line)
            if r.evidence:
                best = r.evidence[0]
                stdout.print(
                    Text(
                        f"      {best.title}: {shortened(best.text, 160)}  ({where(best)} · {origin(best)})",
                        style="dim",
                    )
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


def shortened(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut at the last word that fits ``limit`` characters (never inside a word)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut + " …"


def print_grounding_result(result) -> None:
    """Each sentence with its label, the passage that backs (or contradicts) it, document and span, and each of
    its claims that is not supported: contradicted (with the passage), not stated, or undecided (with why); then
    the summary."""
    reasons = {c.claim.text: c.reason for c in result.claims if c.status == "undecided"}
    for sentence in result.sentences:
        colour = _GROUNDING_COLOURS[sentence.label]
        if sentence.label == "nothing to check":
            stdout.print(
                Text.assemble((sentence.sentence, "dim"), (f"  — nothing to check: {sentence.reason}", "dim italic"))
            )
            continue
        stdout.print(Text.assemble((sentence.label.upper(), f"bold {colour}"), "  ", (sentence.sentence, "bold")))
        for claim in sentence.unsupported:
            status = (
                "contradicted" if claim in sentence.contradicted else "undecided" if claim in sentence.undecided
                else "not stated"
            )  # fmt: skip
            said = {
                "contradicted": "contradicted by the documents",
                "undecided": "undecided",
                "not stated": "not stated in the documents",
            }[status]
            because = f" — {reasons[claim]}" if status == "undecided" and reasons.get(claim) else ""
            stdout.print(Text(f"      {said}: {claim}{because}", style=_GROUNDING_COLOURS[status]))
        passage = sentence.passage
        if passage is not None:
            verb = {
                "contradicted": "contradicted by",
                "not stated": "closest passage",
                "undecided": "closest passage",
            }.get(sentence.label, "backed by")
            quoted = sentence.deciding or [passage]
            for item in quoted:  # the sentence(s) that decided, each with its own span in the document
                stdout.print(
                    Text(f"      {verb} {passage.name} [{item.start}:{item.end}]: {shortened(item.text)}", style="dim")
                )
            within = f" in the passage [{passage.start}:{passage.end}]" if quoted != [passage] else ""
            why = next((c.reason for c in result.claims if c.index in sentence.claims and c.reason), None)
            stdout.print(
                Text(
                    f"      read{within}: P(supports) {passage.supports:.2f}, P(refutes) {passage.refutes:.2f}"
                    + (f"; {why}" if why and sentence.label == "contradicted" else ""),
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
            f"{s.contradicted} contradicted, {s.not_stated} not stated, "
            + (f"{s.undecided} undecided, " if s.undecided else "")
            + f"{s.nothing_to_check} with nothing to check — "
            f"{share} ({s.claims_supported} of {s.claims} claims supported, {s.claims_contradicted} contradicted, "
            f"{s.claims_not_stated} not stated"
            + (f", {s.claims_undecided} undecided" if s.claims_undecided else "")
            + f", by {len(result.documents)} document(s))",
            style="bold",
        )
    )
    quoted = {sentence.passage.name for sentence in result.sentences if sentence.passage is not None}
    files = [name for name, basis in result.spans.items() if basis == "file" and name in quoted]
    extracted = [name for name, basis in result.spans.items() if basis == "extracted text" and name in quoted]
    if files:
        stdout.print(
            Text(f"spans in {', '.join(files)} count characters of the file as written, markup included", style="dim")
        )
    if extracted:
        stdout.print(
            Text(
                f"spans in {', '.join(extracted)} count characters of the text read from the PDF"
                " (--json holds that text in extracted_texts)",
                style="dim",
            )
        )


# ----------------------------------------------------------------------------- tables (fever, memory)


def summary_table(title: str, rows: Iterable[tuple[str, str]]) -> Table:
    """A run's figures, one metric a row."""
    table = Table("metric", "value", title=title, title_justify="left")
    for name, value in rows:
        table.add_row(name, value)
    return table


def memory_table(entity: str, records) -> Table:
    """The items the memory holds under an entity, with their veracity and how often they were checked and recalled."""
    table = Table("id", "veracity", "checks", "recalled", "title", "text", title=f"memory for {entity!r}")
    for r in records:
        table.add_row(r.id, f"{r.veracity:.2f}", str(len(r.history)), str(r.access_count), r.title, r.text)
    return table


def revalidation_table(report, pruned: int, folded: int) -> Table:
    """The items re-checked, each with its priority and its veracity before, observed (v̂) and after; what else the
    upkeep removed and folded, in the title."""
    table = Table(
        "id",
        "priority",
        "before",
        "v̂",
        "after",
        "note",
        title=f"re-checked {len(report)} items; removed {pruned} expired lookup(s); "
        f"folded {folded} quiet writer(s)' statistics",
    )
    for row in report:
        table.add_row(row.id, f"{row.priority:.2f}", _two(row.before), _two(row.observed), _two(row.after), row.note)
    return table


def _two(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
