"""A text job's result as a self-contained HTML page (``check --html FILE``): a text checked against open
sources, with each sentence highlighted by the verdicts of its claims and each claim's verdict, reason and
evidence a click away; or a text read against its documents, each sentence beside the passage that backs it.

One file, no external resources and no script: the evidence opens with ``<details>``. Everything from the
text, the claims and the evidence is escaped (Jinja autoescape); the templates are this package's
(``templates/text_report.html.j2``, ``templates/grounding_report.html.j2``), rendered with the batch report's
settings, evidence views and formatting (``report.evidence_view``).
"""

from __future__ import annotations

from pathlib import Path

from mermaid_verifier.models import GroundingResult, TextCheckResult
from mermaid_verifier.rendering import SHOWN_EVIDENCE, environment, evidence_view, fmt_decimal, fmt_percent

DOCUMENTS_CORPUS = "documents"  # tools.documents writes the user's documents under this corpus name


def sentence_tone(verdicts: list[tuple[str, bool]]) -> str:
    """One colour for a sentence from its claims' (verdict, abstained): refuted wins, then not enough info,
    then abstained; supported only when every claim is."""
    decided = [label for label, abstained in verdicts if not abstained]
    if "REFUTES" in decided:
        return "refutes"
    if "NOT ENOUGH INFO" in decided:
        return "nei"
    if len(decided) < len(verdicts):
        return "abstained"
    return "supports"


def _evidence(item: dict) -> dict:
    view = evidence_view(item)
    if item.get("corpus") == DOCUMENTS_CORPUS and not item.get("url"):
        view["href"] = None  # the user's own file: there is no page to link to
        view["where"] = f"{item.get('page')} #{item.get('line')}"
    else:
        view["where"] = item.get("url") or (f"{item.get('page')} #{item.get('line')}" if item.get("page") else "")
    return view


def text_view(result: TextCheckResult) -> dict:
    """The template's data: the text cut into plain stretches and sentences with their claims."""
    data = result.model_dump(mode="json")
    claims_at: dict[tuple[int, int], list[dict]] = {}
    for checked in data["claims"]:
        r = checked["result"]
        claims_at.setdefault((checked["claim"]["start"], checked["claim"]["end"]), []).append(
            {
                "number": checked["index"] + 1,
                "text": checked["claim"]["text"],
                "verdict": r["verdict"],
                "abstained": r["abstained"],
                "confidence": fmt_decimal(r["confidence"], 2),
                "reason": r["reason"],
                "evidence": [_evidence(e) for e in r["evidence"][:SHOWN_EVIDENCE]],
            }
        )
    dropped_at = {(d["start"], d["end"]): d["reason"] for d in data["dropped"]}
    pieces: list[dict] = []
    position = 0
    for start, end in sorted(set(claims_at) | set(dropped_at)):
        if start < position:  # overlapping spans cannot happen from one extraction; never show text twice
            continue
        if start > position:
            pieces.append({"kind": "plain", "text": result.text[position:start]})
        claims = claims_at.get((start, end), [])
        pieces.append(
            {
                "kind": "sentence",
                "text": result.text[start:end],
                "tone": sentence_tone([(c["verdict"], c["abstained"]) for c in claims]) if claims else "dropped",
                "claims": claims,
                "dropped": dropped_at.get((start, end)),
            }
        )
        position = end
    if position < len(result.text):
        pieces.append({"kind": "plain", "text": result.text[position:]})
    summary = data["summary"]
    return {
        "pieces": pieces,
        "claims": [c for piece in pieces for c in piece.get("claims", [])],
        "summary": summary,
        "supported_share": fmt_percent(summary["supported_share"], 0),
        "dropped": data["dropped"],
    }


def render_text_report(result: TextCheckResult, title: str = "mermaid-verifier: checked text") -> str:
    return (
        environment("mermaid_verifier.texts")
        .get_template("text_report.html.j2")
        .render(title=title, **text_view(result))
    )


def write_text_report(path: Path, result: TextCheckResult) -> Path:
    return _write_page(Path(path), render_text_report(result))


def _write_page(path: Path, html: str) -> Path:
    """The page written whole or not at all (a temporary file beside it, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
    return path


_TONES = {
    "supported": "supported",
    "partially supported": "partially",
    "contradicted": "contradicted",
    "not stated": "not-stated",
    "undecided": "undecided",
    "nothing to check": "nothing",
}


def grounding_view(result: GroundingResult) -> dict:
    """The grounding page's data: each sentence beside the passage that backs it (or the closest one)."""
    data = result.model_dump(mode="json")
    why = {c["claim"]["text"]: c["reason"] for c in data["claims"] if c["status"] == "undecided"}
    for sentence in data["sentences"]:
        sentence["tone"] = _TONES[sentence["label"]]
        sentence["why"] = {claim: why.get(claim) or "" for claim in sentence["undecided"]}
        if sentence["passage"]:
            sentence["passage"]["supports"] = fmt_decimal(sentence["passage"]["supports"], 2)
            sentence["passage"]["refutes"] = fmt_decimal(sentence["passage"]["refutes"], 2)
    return {
        "sentences": data["sentences"],
        "summary": data["summary"],
        "supported_share": fmt_percent(data["summary"]["supported_share"], 0),
        "documents": data["documents"],
        "threshold": fmt_decimal(result.threshold, 2),
        "undecided_band": [fmt_decimal(x, 2) for x in result.undecided_band] if result.undecided_band else None,
    }


def render_grounding_report(
    result: GroundingResult, title: str = "mermaid-verifier: text against its documents"
) -> str:
    return (
        environment("mermaid_verifier.texts")
        .get_template("grounding_report.html.j2")
        .render(title=title, **grounding_view(result))
    )


def write_grounding_report(path: Path, result: GroundingResult) -> Path:
    return _write_page(Path(path), render_grounding_report(result))


SHOWN_RECORDS = 2000  # a batch page lists at most this many records (the results file holds them all)


def _label_cells(labels: dict) -> dict:
    return {
        "labelled": labels["labelled"],
        "balanced_accuracy": fmt_decimal(labels["balanced_accuracy"]),
        "precision": fmt_decimal(labels["not_supported_precision"]),
        "recall": fmt_decimal(labels["not_supported_recall"]),
        "supported_recall": fmt_decimal(labels["supported_recall"]),
        "decided": fmt_percent((labels.get("decided") or {}).get("share"), 1),
        "decided_balanced": fmt_decimal((labels.get("decided") or {}).get("balanced_accuracy")),
    }


def _record_view(row: dict) -> dict:
    flagged = [
        s | {"tone": _TONES[s["label"]]}
        for s in row["sentences"]
        if s["label"] not in ("supported", "nothing to check")
    ]
    return {
        "id": row["id"],
        "line": row["line"],
        "dataset": row["dataset"],
        "supported": row["supported"],
        "label": row["label"],
        "wrong": row["label"] is not None and row["label"] != row["supported"],
        "sentences": row["summary"]["sentences"] - row["summary"]["nothing_to_check"],
        "supported_sentences": row["summary"]["supported"],
        "flagged": flagged,
    }


def batch_view(metrics: dict, rows: list[dict]) -> dict:
    """The batch page's data: shares, label metrics per dataset, skipped lines, and each record's flagged sentences."""
    datasets = [
        {"name": name, "records": part["records"], "supported": fmt_percent(part["records_supported"], 1),
         "sentences_supported": fmt_percent(part["sentences_supported"], 1), **_label_cells(part["labels"])}
        for name, part in metrics["datasets"].items()
    ]  # fmt: skip
    return {
        "metrics": metrics,
        "records_supported": fmt_percent(metrics["records_supported"], 1),
        "sentences_supported": fmt_percent(metrics["sentences_supported"], 1),
        "sentences_contradicted": fmt_percent(metrics["sentences_contradicted"], 1),
        "claims_supported": fmt_percent(metrics["claims_supported"], 1),
        "overall": _label_cells(metrics["labels"]),
        "datasets": datasets,
        "records": [_record_view(row) for row in rows[:SHOWN_RECORDS]],
        "hidden": max(0, len(rows) - SHOWN_RECORDS),
        "machine": metrics["machine"],
    }


def render_batch_report(
    metrics: dict, rows: list[dict], title: str = "mermaid-verifier: answers against their contexts"
) -> str:
    return (
        environment("mermaid_verifier.texts")
        .get_template("grounding_batch.html.j2")
        .render(title=title, **batch_view(metrics, rows))
    )


def write_batch_report(path: Path, metrics: dict, rows: list[dict]) -> Path:
    return _write_page(Path(path), render_batch_report(metrics, rows))
