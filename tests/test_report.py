"""The HTML report of a batch run: escaping, numbers, error marks, charts, links, self-containment."""

from __future__ import annotations

import random
from html.parser import HTMLParser
from importlib import resources

import pytest

from mermaid_verifier.evaluation.metrics import LABELS
from mermaid_verifier.evaluation.report import MAX_CURVE_POINTS, render_report, write_report
from mermaid_verifier.rendering import wikipedia_url

from .report_kit import _PAGES, make_evidence, make_metrics, make_rows, make_trace, reliability_bins  # noqa: F401  # noqa: F401

# ---- realistic fixtures, shaped like runs/*/results.jsonl and metrics.json ------------------------


# ---- reading the page back ------------------------------------------------------------------------


class Scan(HTMLParser):
    """Every start tag with its attributes, and every text with the index of the tag it sits in."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.texts: list[tuple[int, str]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        if data.strip():
            self.texts.append((len(self.tags) - 1, data.strip()))

    def of(self, tag: str) -> list[dict]:
        return [attrs for name, attrs in self.tags if name == tag]

    def texts_in(self, css_class: str) -> list[str]:
        return [text for index, text in self.texts if css_class in (self.tags[index][1].get("class") or "").split()]

    def cards(self) -> dict[str, str]:
        return dict(zip(self.texts_in("label"), self.texts_in("value")))

    def claim_rows(self) -> list[dict]:
        return [attrs for attrs in self.of("tr") if "data-error" in attrs]


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return make_rows(120)


@pytest.fixture(scope="module")
def page(rows) -> Scan:
    return Scan(render_report(make_metrics(rows), rows))


# ---- escaping -------------------------------------------------------------------------------------


def test_markup_in_a_claim_evidence_or_trace_is_escaped_not_executed():
    attack = "<script>alert(1)</script>"
    row = make_rows(1)[0] | {"claim": f"Claim {attack}", "reason": attack, "id": attack}
    row["evidence"] = [make_evidence(random.Random(1), 0, 0) | {"title": attack, "text": attack, "stance": attack}]
    row["trace"][0] |= {"thought": attack, "observation": attack, "action_input": {"query": attack}}
    html = render_report({}, [row], title=attack)

    assert attack not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    scan = Scan(html)
    assert len(scan.of("script")) == 1  # only the page's own filter script
    assert f"Claim {attack}" in [text for _, text in scan.texts]  # shown to the reader as text


# ---- numbers ----------------------------------------------------------------------------------------


def test_headline_numbers_are_the_metrics_given(rows):
    metrics = make_metrics(rows) | {
        "accuracy": 0.649412788168769,
        "macro_f1": 0.6321090712584638,
        "claims": 2299,
        "coverage": 0.6359,
        "selective_accuracy": 0.65184,
    }
    cards = Scan(render_report(metrics, rows)).cards()

    assert cards["Claims"] == "2299"
    assert cards["Accuracy"] == "64.9%"
    assert cards["Macro-F1"] == "0.632"
    assert cards["FEVER score"] == "n/a (no gold evidence)"
    assert cards["Coverage"] == "63.6%"
    assert cards["Selective accuracy"] == "65.2%"
    assert cards["Mean tool calls"] == "4.94"
    assert cards["Latency p50"] == "412 ms"
    assert cards["Latency p95"] == "1.93 s"
    assert cards["Throughput"] == "4.22 claims/s"
    assert cards["Abstention precision"] == "71.0%"
    assert cards["Selective score (cost 2)"] == "-0.250"


def test_a_fever_score_and_older_metric_names_are_shown():
    metrics = {"fever_score": 0.5123, "mean_tool_calls": 3.5, "claims_per_second": 2.0}
    cards = Scan(render_report(metrics, [])).cards()

    assert cards["FEVER score"] == "51.2%"
    assert cards["Mean tool calls"] == "3.50"
    assert cards["Throughput"] == "2.00 claims/s"
    assert cards["Claims"] == "0"
    assert cards["Accuracy"] == "n/a"


def test_per_class_and_confusion_tables_show_the_metrics(rows):
    metrics = make_metrics(rows)
    scan = Scan(render_report(metrics, rows))
    texts = [text for _, text in scan.texts]

    refutes = metrics["per_class"]["REFUTES"]
    at = texts.index("REFUTES", texts.index("precision"))
    assert texts[at + 1 : at + 5] == [
        f"{refutes['precision']:.3f}",
        f"{refutes['recall']:.3f}",
        f"{refutes['f1']:.3f}",
        str(refutes["support"]),
    ]
    diagonal = [text for index, text in scan.texts if "diagonal" in (scan.tags[index][1].get("class") or "")]
    assert diagonal == [str(metrics["confusion"][label][label]) for label in LABELS]


# ---- the per-claim table ----------------------------------------------------------------------------


def test_every_claim_has_a_row_and_the_wrong_ones_are_marked_as_errors(rows, page):
    marks = [attrs["data-error"] for attrs in page.claim_rows()]

    assert len(marks) == len(rows)
    assert marks == ["1" if r["verdict"] != r["gold"] else "0" for r in rows]
    assert 0 < marks.count("1") < len(rows)
    assert f"errors only ({marks.count('1')} of {len(rows)})" in [text for _, text in page.texts]


def test_the_table_has_the_filters_and_the_script_that_drives_them(page):
    inputs = {attrs.get("id"): attrs.get("type") for attrs in page.of("input")}
    script = next(text for index, text in page.texts if page.tags[index][0] == "script")

    assert inputs == {"errors-only": "checkbox", "text-filter": "search"}
    assert 'document.body.dataset.ready = "1"' in script


def test_at_most_five_evidence_items_and_the_trace_sits_in_details():
    row = make_rows(1)[0]
    row["evidence"] = [make_evidence(random.Random(r), 0, r) for r in range(8)]
    html = render_report({}, [row])

    assert html.count('<li><span class="stance') == 5
    assert "rank 4;" in html and "rank 5;" not in html
    details = html[html.index("<details>") : html.index("</details>")]
    assert "Search the whole claim first." in details and "local-corpus.get_page" in details


def test_a_row_without_gold_is_not_an_error():
    row = make_rows(1)[0] | {"gold": None, "verdict": "SUPPORTS"}
    assert [attrs["data-error"] for attrs in Scan(render_report({}, [row])).claim_rows()] == ["0"]


# ---- evidence links ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page_id", "url"),
    [
        ("Damon_Albarn", "https://en.wikipedia.org/wiki/Damon_Albarn"),
        ("R5_-LRB-band-RRB-", "https://en.wikipedia.org/wiki/R5_(band)"),
        ("Beyoncé Knowles", "https://en.wikipedia.org/wiki/Beyonc%C3%A9_Knowles"),
        ("Tom_&_Jerry", "https://en.wikipedia.org/wiki/Tom_%26_Jerry"),
        ("AC/DC", "https://en.wikipedia.org/wiki/AC%2FDC"),
        ("What?#x", "https://en.wikipedia.org/wiki/What%3F%23x"),
    ],
)
def test_wikipedia_links_are_built_from_the_page_and_quoted(page_id, url):
    assert wikipedia_url(page_id) == url


def test_evidence_links_prefer_the_url_then_the_page():
    row = make_rows(1)[0]
    base = make_evidence(random.Random(0), 0, 0)
    row["evidence"] = [
        base | {"page": "Tom_&_Jerry", "line": 3, "url": None},
        base | {"url": "https://arxiv.org/abs/2401.00001?a=1&b=2"},
        base | {"page": None, "url": None, "title": "No link here"},
    ]
    scan = Scan(render_report({}, [row]))

    assert [attrs["href"] for attrs in scan.of("a")] == [
        "https://en.wikipedia.org/wiki/Tom_%26_Jerry",
        "https://arxiv.org/abs/2401.00001?a=1&b=2",
    ]
    assert "#3" in [text for _, text in scan.texts]
    assert "No link here" in [text for index, text in scan.texts if scan.tags[index][0] == "strong"]


# ---- charts -----------------------------------------------------------------------------------------


def test_charts_are_inline_svg_with_aurc_and_ece_in_their_captions(rows):
    metrics = make_metrics(rows)
    html = render_report(metrics, rows)
    scan = Scan(html)

    assert len(scan.of("svg")) == 2
    assert len(scan.of("polyline")) == 1
    bars = [b for b in metrics["reliability_diagram"] if b["count"]]
    assert len([a for a in scan.of("rect") if a.get("class") == "bar"]) == len(bars)
    assert len([a for a in scan.of("line") if a.get("class") == "diagonal"]) == 1
    assert f"AURC {metrics['aurc']:.3f} (lower is better)" in html
    assert "ECE 0.042." in html
    assert "not available" not in html


@pytest.mark.parametrize(
    "metrics",
    [
        {},
        {"risk_coverage": {"coverage": [], "risk": []}, "reliability_diagram": []},
        {
            "risk_coverage": {"coverage": [0.5], "risk": [None]},
            "aurc": None,
            "reliability_diagram": [
                {"bin_low": 0.0, "bin_high": 0.1, "count": 0, "mean_confidence": None, "accuracy": None}
            ],
        },
        {"risk_coverage": None, "reliability_diagram": None, "ece": None},
    ],
    ids=["missing", "empty", "zero-answered", "none"],
)
def test_missing_chart_data_says_not_available(metrics):
    html = render_report(metrics, make_rows(3))

    assert "Risk–coverage curve not available" in html
    assert "Reliability diagram not available" in html
    assert "<svg" not in html


def test_a_long_curve_is_thinned():
    n = 5000
    metrics = {"risk_coverage": {"coverage": [i / n for i in range(1, n + 1)], "risk": [0.3] * n}}
    points = Scan(render_report(metrics, [])).of("polyline")[0]["points"].split()

    assert len(points) <= MAX_CURVE_POINTS + 1
    assert points[-1].startswith("404")  # the last point (coverage 1.0) is kept: the right edge of the plot


# ---- robustness -------------------------------------------------------------------------------------


def test_odd_or_partial_metrics_and_rows_do_not_crash():
    metrics = {
        "accuracy": None,
        "macro_f1": float("nan"),
        "latency": "fast",
        "tool_calls": 3,
        "per_class": {"SUPPORTS": None, "REFUTES": {"f1": 0.5}},
        "confusion": {"SUPPORTS": {"REFUTES": 2}},
        "selective_score": {"1": None},
        "llm": {"calls": 3, "cost_usd": 0.0123},
    }
    html = render_report(metrics, [{"claim": "bare"}, {}])

    cards = Scan(html).cards()
    assert cards["Accuracy"] == cards["Macro-F1"] == cards["Latency p50"] == "n/a"
    assert "llm.cost_usd" in html and "No claims." not in html


def test_no_claims_and_no_metrics():
    html = render_report({}, [])
    assert "No claims." in html and 'dataset.ready = "1"' in html


# ---- the machine -----------------------------------------------------------------------------------

VNNI_MACHINE = {
    "architecture": "x86_64",
    "cpus": 16,
    "cpu_flags": ["avx2", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "avx512_bf16"],
    "integer_kernel": "VNNI (exact)",
    "python": "3.11.2",
    "onnxruntime": "1.20.1",
}
AVX2_MACHINE = VNNI_MACHINE | {
    "cpus": 2,
    "cpu_flags": ["avx2"],
    "integer_kernel": "AVX2 without VNNI (u8 × s8 saturates beyond ±64)",
}


def machine_texts(html: str) -> list[str]:
    scan = Scan(html)
    start = next(i for i, (tag, attrs) in enumerate(scan.tags) if tag == "section" and attrs.get("id") == "machine")
    end = next(i for i, (tag, _) in enumerate(scan.tags) if i > start + 1 and tag == "h2")  # the next heading
    return [text for index, text in scan.texts if start <= index < end]


def test_the_machine_that_wrote_the_metrics_is_shown_with_its_cpu_flags_and_integer_kernel(rows):
    from mermaid_verifier.reader.model_check import machine_record

    here = machine_record()
    metrics = make_metrics(rows) | {"machine": here, "machines": [{"rows": len(rows), "machine": here}]}
    texts = machine_texts(render_report(metrics, rows))
    assert "CPU flags" in texts and "integer kernel" in texts
    assert (" ".join(here["cpu_flags"]) or "none reported") in texts
    assert here["integer_kernel"] in texts
    assert not any("more than one machine" in text for text in texts)  # one machine decided every row

    texts = machine_texts(render_report(make_metrics(rows) | {"machine": VNNI_MACHINE}, rows))
    assert "avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16" in texts and "VNNI (exact)" in texts


def test_rows_decided_on_several_machines_are_listed_with_a_warning(rows):
    metrics = make_metrics(rows) | {
        "machine": VNNI_MACHINE,
        "machines": [
            {"rows": 20, "machine": None},
            {"rows": 60, "machine": AVX2_MACHINE},
            {"rows": 40, "machine": VNNI_MACHINE, "ray_workers": [VNNI_MACHINE, AVX2_MACHINE]},
        ],
    }
    html = render_report(metrics, rows)
    texts = machine_texts(html)
    assert any("more than one machine" in text for text in texts)
    assert ["20", "machine not recorded", "60"] == texts[texts.index("20") : texts.index("60") + 1]
    assert AVX2_MACHINE["integer_kernel"] in texts and texts.count("Ray worker") == 2
    history = [attrs for attrs in Scan(html).of("table") if attrs.get("id") == "machine-history"]
    assert len(history) == 1


def test_metrics_without_a_machine_say_it_was_not_recorded(rows):
    texts = machine_texts(render_report(make_metrics(rows), rows))
    assert any("Machine not recorded" in text for text in texts)


def test_markup_in_a_machine_record_is_escaped():
    attack = "<script>alert(1)</script>"
    machine = VNNI_MACHINE | {"cpu_flags": [attack], "integer_kernel": attack, "architecture": attack}
    html = render_report(
        {"machine": machine, "machines": [{"rows": 1, "machine": None}, {"rows": 1, "machine": machine}]}, []
    )
    assert attack not in html and "&lt;script&gt;" in html
    assert len(Scan(html).of("script")) == 1


# ---- self-contained and written to disk -----------------------------------------------------------


def test_the_page_loads_nothing_from_outside(page):
    assert not [attrs for _, attrs in page.tags if "src" in attrs]
    assert not page.of("link") and not page.of("iframe") and not page.of("object")
    style = next(text for index, text in page.texts if page.tags[index][0] == "style")
    assert "url(" not in style and "@import" not in style
    assert all(attrs["href"].startswith("https://en.wikipedia.org/wiki/") for attrs in page.of("a"))


def test_write_report_creates_the_file(tmp_path, rows):
    path = write_report(tmp_path / "nested" / "report.html", make_metrics(rows), rows, title="run 7")
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<title>run 7</title>" in html


def test_the_template_ships_inside_the_package():
    assert (resources.files("mermaid_verifier.evaluation") / "templates" / "report.html.j2").is_file()


def test_a_bin_where_every_claim_was_wrong_is_still_a_visible_bar():
    from mermaid_verifier.evaluation.report import MIN_BAR_PX

    metrics = {
        "reliability_diagram": [
            {"bin_low": 0.7, "bin_high": 0.8, "count": 3, "mean_confidence": 0.75, "accuracy": 0.0},
        ]
    }
    bars = [a for a in Scan(render_report(metrics, [])).of("rect") if a.get("class") == "bar"]
    assert len(bars) == 1 and float(bars[0]["height"]) >= MIN_BAR_PX


def test_table_headers_read_as_separate_words_when_the_page_is_copied_as_text(rows):
    """Text taken from the page (copy and paste, a text browser, get_text) keeps its cells apart: no
    "confidenceevidence" or "labelprecision"."""
    from bs4 import BeautifulSoup

    text = BeautifulSoup(render_report(make_metrics(rows), rows), "html.parser").get_text()
    words = set(text.split())
    assert {"confidence", "evidence", "label", "precision", "recall", "abstained"} <= words
    assert "confidenceevidence" not in text and "labelprecision" not in text
