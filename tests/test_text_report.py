"""The page ``check --html`` writes: the text highlighted by verdict, each claim's evidence a click away,
nothing from the text or the evidence run as markup (checked in real headless Chromium when installed)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from bs4 import BeautifulSoup

from mermaid_verifier.models import (
    CheckedClaim,
    DroppedSentence,
    Evidence,
    ExtractedClaim,
    Label,
    Stats,
    TextCheckResult,
    TextSummary,
    VerificationResult,
)
from mermaid_verifier.texts.report import render_text_report, sentence_tone, write_text_report

PLANTED = "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
TEXT = f"The lighthouse was first lit in 1887. Its lamp was electrified in 1975 {PLANTED}. Hello!"


def checked(index: int, text: str, start: int, end: int, label: Label, abstained: bool, evidence: list) -> CheckedClaim:
    result = VerificationResult(
        claim=text,
        verdict=label,
        abstained=abstained,
        confidence=0.8,
        reason=f"because {PLANTED}",
        triplets=[],
        keywords=[],
        evidence=evidence,
        trace=[],
        stats=Stats(),
    )
    claim = ExtractedClaim(text=text, sentence=TEXT[start:end], start=start, end=end)
    return CheckedClaim(index=index, claim=claim, result=result)


def result() -> TextCheckResult:
    first_end = TEXT.index(".") + 1
    second_start = first_end + 1
    second_end = TEXT.index(". Hello") + 1
    from_docs = Evidence(
        id="documents:lighthouse.html:2",
        source="local-corpus",
        corpus="documents",
        title="Lighthouse",
        text=f"It was first lit in 1887 {PLANTED}",
        page="lighthouse.html",
        line=2,
    )
    from_wiki = Evidence(
        id="wiki:Lamp:0",
        source="local-corpus",
        corpus="wiki_sentences",
        title="Lamp",
        text="A lamp.",
        page="Lamp",
        line=0,
    )
    claims = [
        checked(0, "The lighthouse was first lit in 1887.", 0, first_end, Label.SUPPORTS, False, [from_docs]),
        checked(
            1,
            "The lighthouse's lamp was electrified in 1975.",
            second_start,
            second_end,
            Label.REFUTES,
            False,
            [from_wiki],
        ),
    ]
    dropped = [DroppedSentence(sentence="Hello!", start=len(TEXT) - 6, end=len(TEXT), reason="a greeting")]
    return TextCheckResult(text=TEXT, claims=claims, dropped=dropped, summary=TextSummary.of(claims, 1))


def test_the_text_is_highlighted_by_verdict_and_each_claim_opens_its_evidence():
    page = BeautifulSoup(render_text_report(result()), "html.parser")
    marks = page.select(".text mark")
    assert [(m["class"][0], m.get_text()) for m in marks] == [
        ("supports", "The lighthouse was first lit in 1887."),
        ("refutes", TEXT[TEXT.index("Its") : TEXT.index(". Hello") + 1]),
        ("dropped", "Hello!"),
    ]
    assert page.select(".text")[0].get_text().replace("[1]", "").replace("[2]", "") == TEXT
    details = page.select("details")
    assert [d["id"] for d in details] == ["claim-1", "claim-2"]
    first, second = (d.select("ol.evidence li")[0] for d in details)
    assert first.select("a") == [] and "lighthouse.html #2" in first.get_text()  # the user's own file: no link
    assert second.select("a")[0]["href"] == "https://en.wikipedia.org/wiki/Lamp"


def test_nothing_from_the_text_or_the_evidence_becomes_markup():
    html = render_text_report(result())
    page = BeautifulSoup(html, "html.parser")
    assert page.find_all("script") == [] and page.find_all("img") == []
    assert "&lt;script&gt;" in html


def test_a_sentence_takes_the_tone_of_its_worst_claim():
    assert sentence_tone([("SUPPORTS", False), ("REFUTES", False)]) == "refutes"
    assert sentence_tone([("SUPPORTS", False), ("NOT ENOUGH INFO", False)]) == "nei"
    assert sentence_tone([("SUPPORTS", False), ("REFUTES", True)]) == "abstained"
    assert sentence_tone([("SUPPORTS", False)]) == "supports"


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium on this machine (Debian package 'chromium')")
def test_in_a_real_browser_no_planted_script_runs(tmp_path):
    path = write_text_report(tmp_path / "page.html", result())
    done = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", path.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    dom = BeautifulSoup(done.stdout, "html.parser")
    assert dom.title.get_text() == "mermaid-verifier: checked text"  # a script that ran would have renamed it
    assert len(dom.select(".text mark")) == 3 and len(dom.select("details")) == 2


def test_the_grounding_page_shows_each_sentence_beside_its_passage_as_text_only(tmp_path):
    from mermaid_verifier.models import (
        GroundedClaim,
        GroundedSentence,
        GroundingPassage,
        GroundingResult,
        GroundingSummary,
    )
    from mermaid_verifier.texts.report import write_grounding_report

    found = GroundingPassage(
        document=0, name="lighthouse.html", title="", text=f"First lit in 1887 {PLANTED}", start=10, end=60,
        supports=0.97, refutes=0.01,
    )  # fmt: skip
    first = ExtractedClaim(
        text="The lighthouse was first lit in 1887.", sentence="The lighthouse was first lit in 1887.", start=0, end=37
    )
    second = ExtractedClaim(
        text=f"Its lamp was electrified in 1975 {PLANTED}.", sentence=TEXT[38:-7], start=38, end=len(TEXT) - 7
    )
    claims = [
        GroundedClaim(index=0, claim=first, supported=True, support=0.97, passage=found, read=3),
        GroundedClaim(index=1, claim=second, supported=False, support=0.1, passage=found, read=3),
    ]
    sentences = [
        GroundedSentence(sentence=first.sentence, start=0, end=37, label="supported", claims=[0], passage=found),
        GroundedSentence(
            sentence=second.sentence,
            start=38,
            end=second.end,
            label="not stated",
            claims=[1],
            unsupported=[second.text],
            passage=found,
        ),  # fmt: skip
        GroundedSentence(
            sentence="Hello!", start=len(TEXT) - 6, end=len(TEXT), label="nothing to check", reason="a greeting"
        ),
    ]
    result = GroundingResult(
        text=TEXT, documents=["lighthouse.html"], sentences=sentences, claims=claims,
        summary=GroundingSummary.of(sentences, claims), threshold=0.5,
    )  # fmt: skip
    page = write_grounding_report(tmp_path / "g.html", result).read_text()
    soup = BeautifulSoup(page, "html.parser")
    assert soup.find("script") is None and soup.find("img") is None  # planted markup stays text
    cells = soup.select(".rows > div")
    assert [c.get_text(" ", strip=True)[:28] for c in cells[:2]] == ["Sentence", "Passage of the documents"]
    assert "SUPPORTED" in cells[2].get_text().upper() and "lighthouse.html, characters 10–60" in cells[3].get_text()
    assert "not stated in the documents: Its lamp was electrified in 1975" in cells[4].get_text()
    assert "closest passage" in cells[5].get_text()
    assert "a greeting" in cells[6].get_text()
