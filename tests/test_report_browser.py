"""The written report in real headless Chromium: no console errors, the script ran, the filters work.

Chromium is driven over the DevTools protocol on ``--remote-debugging-pipe`` (fd 3 in, fd 4 out,
NUL-terminated JSON): standard library only, no port, no network. The plain CLI (``--dump-dom`` with
``--enable-logging=stderr``) is not enough: it logs every console message as ``INFO:CONSOLE`` whatever
its level, and not at all the resources that failed to load. Over the protocol a console error is any of
``Runtime.exceptionThrown``, ``Runtime.consoleAPICalled`` of type error/assert, or ``Log.entryAdded`` at
level error (e.g. "Failed to load resource"). The negative controls below prove each is caught.
"""

from __future__ import annotations

import base64
import fcntl
import itertools
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from mermaid_verifier.evaluation.report import write_report

from .report_kit import make_metrics, make_rows

CHROMIUM = shutil.which("chromium")
ROWS = 1500  # the page must stay usable at the size of a FEVER dev/test run
PAGE_BUDGET = 20.0  # seconds for loading one page and its script


class DevToolsError(RuntimeError):
    pass


class Browser:
    """One headless Chromium process and its DevTools pipe."""

    def __init__(self, binary: str, profile: Path, log: Path):
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        # Above fd 4, so that placing them on 3 and 4 in the child cannot overwrite one with the other.
        child_in, child_out = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10)
        os.close(to_browser)
        os.close(from_browser)

        def on_fds_3_and_4():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        with log.open("wb") as stderr:
            self.process = subprocess.Popen(
                [
                    binary,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--remote-debugging-pipe",
                    f"--user-data-dir={profile}",
                    "--no-first-run",
                    "--no-default-browser-check",
                    "--disable-extensions",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--hide-scrollbars",
                    "--mute-audio",
                    "about:blank",
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                pass_fds=(3, 4),
                preexec_fn=on_fds_3_and_4,
            )
        os.close(child_in)
        os.close(child_out)
        self._ids = itertools.count(1)
        self._buffer = b""
        self.events: list[dict] = []

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise TimeoutError("no answer from chromium over the DevTools pipe")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise DevToolsError(f"chromium closed the DevTools pipe (exit code {self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 15) -> dict:
        """The result of one command; events that arrive meanwhile are kept in ``events``."""
        command = {"id": next(self._ids), "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        os.write(self._write, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline)
            if message.get("id") == command["id"]:
                if "error" in message:
                    raise DevToolsError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, session: str, timeout: float, since: int = 0) -> dict:
        """The first ``method`` event of ``session`` from ``events[since]`` on, waiting for it if need be."""
        deadline = time.monotonic() + timeout
        seen = since
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            seen = len(self.events)
            self.events.append(self._receive(deadline))

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (DevToolsError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._write)
        os.close(self._read)


class Tab:
    """One page loaded in its own target, with the console errors it produced."""

    def __init__(self, browser: Browser, url: str, width: int = 1280, height: int = 2000):
        self.browser = browser
        self.target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": self.target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            browser.send(f"{domain}.enable", session=self.session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            self.session,
        )
        started, since = time.monotonic(), len(browser.events)
        browser.send("Page.navigate", {"url": url}, self.session)
        browser.wait_for("Page.loadEventFired", self.session, PAGE_BUDGET, since)
        self.load_seconds = time.monotonic() - started

    def evaluate(self, expression: str):
        result = self.browser.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, self.session
        )
        if "exceptionDetails" in result:
            raise DevToolsError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, expression: str, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return True
            time.sleep(0.05)
        return False

    def console_errors(self) -> list[str]:
        errors = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]  # text "Uncaught", description "ReferenceError: …"
                errors.append(f"{details.get('text', '')} {details.get('exception', {}).get('description', '')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(" ".join(str(arg.get("value", arg.get("description", ""))) for arg in params["args"]))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(f"{params['entry'].get('text')} {params['entry'].get('url', '')}".strip())
        return errors

    def screenshot(self, path: Path) -> Path:
        data = self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium not installed: apt-get install chromium")
    home = tmp_path_factory.mktemp("chromium")
    started = Browser(CHROMIUM, home / "profile", home / "chromium.log")
    try:
        started.send("Browser.getVersion", timeout=20)  # the browser is up
        yield started
    finally:
        started.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[Path, list[dict]]:
    rows = make_rows(ROWS)
    return write_report(tmp_path_factory.mktemp("report") / "report.html", make_metrics(rows), rows), rows


@pytest.fixture
def open_tab(browser):
    tabs = []

    def open_(path: Path) -> Tab:
        tabs.append(Tab(browser, path.resolve().as_uri()))
        return tabs[-1]

    yield open_
    for tab in tabs:
        tab.close()


VISIBLE_ROWS = "document.querySelectorAll('#claims tbody tr:not([hidden])').length"


def test_the_report_loads_without_console_errors_and_its_script_runs(open_tab, report, tmp_path):
    path, rows = report
    started = time.monotonic()
    tab = open_tab(path)

    assert tab.wait_until("document.body.dataset.ready === '1'"), "the report's script did not finish"
    assert 'data-ready="1"' in tab.evaluate("document.body.outerHTML.slice(0, 200)")
    assert tab.console_errors() == []
    assert tab.evaluate(VISIBLE_ROWS) == len(rows)
    assert tab.evaluate("document.querySelectorAll('svg.chart').length") == 2

    shot = tab.screenshot(tmp_path / "report.png")
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and shot.stat().st_size > 10_000
    if os.environ.get("MERMAID_KEEP_SCREENSHOT"):
        kept = Path(__file__).resolve().parents[1] / "runs" / "report-screenshot.png"
        kept.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, kept)
    assert time.monotonic() - started < PAGE_BUDGET


def test_the_filters_show_errors_only_and_matching_claims(open_tab, report):
    path, rows = report
    tab = open_tab(path)
    assert tab.wait_until("document.body.dataset.ready === '1'")
    errors = sum(r["verdict"] != r["gold"] for r in rows)

    tab.evaluate("document.getElementById('errors-only').click()")
    assert tab.evaluate(VISIBLE_ROWS) == errors
    assert tab.evaluate("document.getElementById('shown').textContent") == f"{errors} shown"

    needle = rows[42]["claim"]  # unique: each claim carries its number
    tab.evaluate("document.getElementById('errors-only').click()")
    tab.evaluate(
        f"const box = document.getElementById('text-filter'); box.value = {json.dumps(needle.upper())};"
        "box.dispatchEvent(new Event('input'))"
    )
    assert tab.wait_until(f"{VISIBLE_ROWS} === 1")
    assert tab.evaluate("document.querySelector('#claims tbody tr:not([hidden]) td').textContent") == rows[42]["id"]
    assert tab.console_errors() == []


def test_negative_control_a_script_error_in_the_report_is_caught(open_tab, report, tmp_path):
    path, _ = report
    html = path.read_text(encoding="utf-8")
    broken = tmp_path / "broken.html"
    broken.write_text(html.replace("  apply();\n", "  apply();\n  undefinedHelper();\n", 1), encoding="utf-8")
    assert broken.read_text(encoding="utf-8") != html
    tab = open_tab(broken)

    assert not tab.wait_until("document.body.dataset.ready === '1'", timeout=1.0)
    errors = tab.console_errors()
    assert len(errors) == 1 and "ReferenceError: undefinedHelper is not defined" in errors[0]


def test_negative_control_console_errors_and_failed_loads_are_caught(open_tab, tmp_path):
    page = tmp_path / "noisy.html"
    page.write_text(
        '<!DOCTYPE html><html><head><link rel="stylesheet" href="missing.css"></head><body>'
        '<img src="missing.png" alt=""><script>console.log("fine"); console.warn("fine too");'
        'console.error("logged error"); Promise.reject(new Error("unhandled"));'
        'document.body.dataset.ready = "1";</script></body></html>',
        encoding="utf-8",
    )
    tab = open_tab(page)
    assert tab.wait_until("document.body.dataset.ready === '1'")
    time.sleep(0.2)  # the unhandled rejection is reported after the script's turn

    errors = tab.console_errors()
    assert "logged error" in errors
    assert any("Uncaught (in promise) Error: unhandled" in e for e in errors)
    assert sum("Failed to load resource" in e for e in errors) == 2  # the stylesheet and the image
    assert not any("fine" in e for e in errors)


def _grounded_row(number: int) -> dict:
    """A results.jsonl row of ``ground``: every third record has a sentence its documents do not state."""
    flagged = number % 3 == 0
    passage = {"document": 0, "name": "doc.txt", "title": "", "text": f"Passage {number}.", "start": 0, "end": 11,
               "supports": 0.2 if flagged else 0.9, "refutes": 0.1}  # fmt: skip
    sentences = [
        {"sentence": f"Record {number} states one thing.", "start": 0, "end": 30, "label": "supported",
         "claims": [0], "passage": passage, "deciding": [], "unsupported": [], "contradicted": [], "not_stated": []},
    ]  # fmt: skip
    if flagged:
        sentences.append(
            {"sentence": f"Record {number} states <another> thing.", "start": 31, "end": 70, "label": "not stated",
             "claims": [1], "passage": passage, "deciding": [{"text": f"Passage {number}.", "start": 0, "end": 11}],
             "unsupported": ["it states another thing"], "contradicted": [], "not_stated": ["it states another thing"]}
        )  # fmt: skip
    supported = len(sentences) - flagged
    return {
        "id": f"r{number}", "line": number + 1, "dataset": "wice" if number % 2 else "lfqa", "form": "ours",
        "label": number % 4 != 0, "supported": not flagged, "documents": ["doc.txt"], "sentences": sentences,
        "claims": [], "threshold": 0.66,
        "summary": {"sentences": len(sentences), "supported": supported, "partially_supported": 0,
                    "contradicted": 0, "not_stated": int(flagged), "not_supported": int(flagged),
                    "nothing_to_check": 0, "claims": len(sentences), "claims_supported": supported,
                    "claims_contradicted": 0, "claims_not_stated": int(flagged), "supported_share": None},
    }  # fmt: skip


def test_the_batch_grounding_page_loads_without_console_errors_and_lists_what_is_not_supported(open_tab, tmp_path):
    from mermaid_verifier.texts.batch import BadRecord, ground_metrics
    from mermaid_verifier.texts.report import write_batch_report

    rows = [_grounded_row(n) for n in range(300)]
    metrics = ground_metrics(rows, [BadRecord(7, "broken JSON (unexpected end of data)")], len(rows), 12.5)
    tab = open_tab(write_batch_report(tmp_path / "report.html", metrics, rows))
    assert tab.wait_until("document.readyState === 'complete'")
    assert tab.console_errors() == []
    assert tab.evaluate("document.querySelectorAll('details').length") == 100
    assert "line 7: broken JSON" in tab.evaluate("document.body.innerText")
    first = tab.evaluate("document.querySelector('details').textContent")
    assert "Record 0 states <another> thing." in first and "Passage 0." in first  # escaped text, shown as written
    assert tab.evaluate("document.querySelectorAll('td.wrong').length") == sum(
        r["label"] != r["supported"] for r in rows
    )
    shot = tab.screenshot(tmp_path / "batch.png")
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and shot.stat().st_size > 10_000
