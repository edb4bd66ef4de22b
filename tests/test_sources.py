"""Choosing evidence sources: live servers only when reachable, said once, never fatal while one remains."""

import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.config import Settings, parse_sources
from mermaid_verifier.errors import ConfigError
from mermaid_verifier.tools import sources

from .conftest import WIKI_MINI


def test_parse_sources():
    assert parse_sources(" Wikipedia, local ,wikipedia") == ("wikipedia", "local")
    with pytest.raises(ValueError, match="unknown source"):
        parse_sources("wikipedia,google")
    with pytest.raises(ConfigError, match="MERMAID_SOURCES"):
        Settings.from_env({"MERMAID_SOURCES": "bing"})


def test_unreachable_live_sources_are_skipped_with_the_reason(tmp_path):
    up = {"en.wikipedia.org": True, "export.arxiv.org": False, "eutils.ncbi.nlm.nih.gov": False}
    plan = sources.plan_sources(
        ("wikipedia", "arxiv", "pubmed", "local"), [WIKI_MINI], tmp_path, tmp_path, probe=up.get
    )
    assert [s.name for s in plan.servers] == ["wikipedia", "local-corpus"]
    assert plan.skipped == {
        "arxiv": "export.arxiv.org is unreachable",
        "pubmed": "eutils.ncbi.nlm.nih.gov is unreachable",
    }


def test_the_cli_says_once_which_sources_it_skips_and_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("MERMAID_SOURCES", "wikipedia,arxiv,local")
    monkeypatch.setattr(sources, "reachable", lambda host, timeout_s=1.5: False)
    result = CliRunner().invoke(
        app,
        [
            "verify",
            "--json",
            "--no-memory",
            "--corpus",
            str(WIKI_MINI),
            "--cache-dir",
            str(tmp_path),
            "Mount Everest is in the Himalayas.",
            "Soul Food was released by Fox 2000 Pictures.",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("note: not using wikipedia (en.wikipedia.org is unreachable), arxiv") == 1
    assert result.output.count('"verdict"') == 2


def test_no_reachable_source_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MERMAID_SOURCES", "wikipedia")
    monkeypatch.setattr(sources, "reachable", lambda host, timeout_s=1.5: False)
    result = CliRunner().invoke(app, ["verify", "--cache-dir", str(tmp_path), "A claim."])
    assert (
        result.exit_code == 2
        and "no evidence source is reachable: wikipedia: en.wikipedia.org is unreachable" in result.output
    )
