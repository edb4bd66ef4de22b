"""Turning graph output into a :class:`VerificationResult`, and showing it in a terminal."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from mermaid_verifier.models import Label, VerificationResult

SHOWN_EVIDENCE = 5
_STANCE_STYLES = {"supports": "green", "refutes": "red", "neutral": "dim"}
_COLOURS = {Label.SUPPORTS: "green", Label.REFUTES: "red", Label.NOT_ENOUGH_INFO: "yellow"}


def result_from_output(claim: str, output: dict) -> VerificationResult:
    verdict = output["verdict"]
    return VerificationResult(
        claim=claim,
        verdict=verdict.label,
        abstained=verdict.abstained,
        conflict=verdict.conflict,
        confidence=verdict.confidence,
        reason=verdict.reason,
        abstain_below=verdict.abstain_below,
        threshold_source=verdict.threshold_source,
        triplets=output["decomposition"].triplets,
        keywords=output["decomposition"].keywords,
        entities=output["decomposition"].entities,
        evidence=output["evidence"],
        trace=output["trace"],
        stats=output["stats"],
        backend=output["stats"].backend,
        llm_failure=output.get("llm_failure"),
    )


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


def print_panel(console: Console, result: VerificationResult) -> None:
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
    summary = f"{s.tool_calls} tool call(s), {s.memory_hits} memory hit(s), {s.seconds:.2f}s"
    if s.llm_calls:
        summary += f", {s.llm_calls} LLM call(s), {s.prompt_tokens}+{s.completion_tokens} tokens"
        summary += f", ${s.cost_usd:.4f}" if s.cost_usd is not None else ""
    parts.append(Text(summary + f" · {result.backend} backend", style="dim"))
    console.print(
        Panel(Group(*parts), title=Text(result.claim), title_align="left", border_style=colour)
    )  # as typed, never markup
