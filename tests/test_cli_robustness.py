"""The CLI where user input or the terminal is not what a command expects: markup and emoji codes
in user text, bytes that are not UTF-8, a reader that closes the pipe, paths that cannot be used,
a question without a terminal to ask, repeated ids, odd claims, options that contradict each
other, and an error whose own message is markup. Each ends in output or one line, never a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
import typer
from typer.testing import CliRunner

from mermaid_verifier.claims import MAX_CLAIM_CHARS, claim_warnings, looks_like_question, mostly_non_latin
from mermaid_verifier.cli import app
from mermaid_verifier.cli import review as cli_review
from mermaid_verifier.cli.options import OUTPUT_CLOSED, guarded
from mermaid_verifier.cli.verify import read_claims
from mermaid_verifier.errors import MermaidError, UsageError

from .conftest import CLI, VERIFY, WIKI_MINI

MARKUP_CLAIM = "Stanley Kubrick directed [bold]2001[/bold] [/] [red]A Space Odyssey :smile:."
EVEREST = "Mount Everest is in the Himalayas."
QUESTION = "Who directed Jaws?"
NON_LATIN = "東京は日本の首都です。"


def environment(tmp_path, **extra) -> dict[str, str]:
    env = {**os.environ, "MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local", **extra}
    env.pop("MERMAID_DEBUG", None)
    return env


def run(command, args, tmp_path, stdin: bytes = b"", **extra) -> subprocess.CompletedProcess:
    done = subprocess.run(
        command + [str(a) for a in args],
        input=stdin,
        capture_output=True,
        env=environment(tmp_path, **extra),
        timeout=300,
    )
    done.stdout, done.stderr = done.stdout.decode(), done.stderr.decode()
    return done


def invoke(*args, input=None, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], input=input, env=env)


def assert_one_error_line(output: str, *expected: str) -> None:
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    assert "Traceback" not in output and "unexpected" not in output
    for text in expected:
        assert text in lines[0]


# ---- the error handler ---------------------------------------------------------------------------


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


@pytest.mark.parametrize(
    "error, code, line",
    [
        (UsageError("bad [/] value [bold]x[/bold] :smile:"), 2, "error: bad [/] value [bold]x[/bold] :smile:"),
        (MermaidError("two\nlines \x1b[31mred"), 1, "error: two\\nlines \\x1b[31mred"),
        (UsageError("not UTF-8: caf\udce9"), 2, "error: not UTF-8: caf\\udce9"),
        (ValueError("[/]"), 1, "error: unexpected ValueError: [/] (run with --debug for the traceback)"),
        (
            Unprintable(),
            1,
            "error: unexpected Unprintable: (the Unprintable message cannot be shown) (run with --debug",
        ),
    ],
)
def test_the_error_handler_prints_any_message_as_one_literal_line(capsys, error, code, line):
    def fail() -> None:
        raise error

    with pytest.raises(typer.Exit) as exited:
        guarded(False, fail)
    assert exited.value.exit_code == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(line)


def test_the_error_handler_ends_quietly_when_stdout_is_closed_and_lets_exits_through(capsys):
    def closed() -> None:
        raise BrokenPipeError

    def exits() -> None:
        raise typer.Exit(3)

    with pytest.raises(typer.Exit) as exited:
        guarded(False, closed)
    assert exited.value.exit_code == OUTPUT_CLOSED
    with pytest.raises(typer.Exit) as exited:
        guarded(False, exits)
    assert exited.value.exit_code == 3
    assert capsys.readouterr().err == ""


# ---- claims as typed ------------------------------------------------------------------------------


def test_stdin_lines_that_are_not_utf8_are_skipped_with_their_line_number():
    skipped = []
    stdin = [b"First claim.\n", b"\n", b"caf\xe9 claim\n", "Second claim \u00e9.\n".encode()]
    assert read_claims(["-"], stdin, skipped.append) == ["First claim.", "Second claim \u00e9."]
    assert skipped == ["<stdin>:3: not UTF-8"]


def test_a_claim_over_the_limit_is_a_usage_error_naming_it():
    assert read_claims(["a" * MAX_CLAIM_CHARS], []) == ["a" * MAX_CLAIM_CHARS]
    with pytest.raises(
        UsageError, match=f"claim 2 is {MAX_CLAIM_CHARS + 1:,} characters long; the limit is {MAX_CLAIM_CHARS:,}"
    ):
        read_claims(["Short.", "b" * (MAX_CLAIM_CHARS + 1)], [])


@pytest.mark.parametrize(
    "claim, question, foreign",
    [
        (QUESTION, True, False),
        ("How many moons does Mars have", True, False),
        ("How I Met Your Mother is a sitcom.", False, False),
        (NON_LATIN, False, True),
        ("Москва — столица России.", False, True),
        ("Paris est la capitale de la France.", False, False),
        ("2001: A Space Odyssey (1968)", False, False),
    ],
)
def test_questions_and_non_latin_claims_are_recognised(claim, question, foreign):
    assert looks_like_question(claim) is question
    assert mostly_non_latin(claim) is foreign
    assert len(claim_warnings(claim)) == question + foreign


@pytest.fixture(scope="module")
def from_stdin(tmp_path_factory):
    """Four stdin lines through `verify --json -`: markup, a line that is not UTF-8, a question, Japanese."""
    stdin = f"{MARKUP_CLAIM}\n".encode() + b"caf\xe9 is not UTF-8\n" + f"{QUESTION}\n{NON_LATIN}\n".encode()
    return run(VERIFY, ["--json", "--corpus", WIKI_MINI, "-"], tmp_path_factory.mktemp("stdin"), stdin)


def test_json_output_keeps_markup_and_emoji_codes_as_typed(from_stdin):
    assert from_stdin.returncode == 0, from_stdin.stderr
    claims = [json.loads(line)["claim"] for line in from_stdin.stdout.splitlines()]
    assert claims == [MARKUP_CLAIM, QUESTION, NON_LATIN]


def test_a_stdin_line_that_is_not_utf8_is_named_and_the_rest_verified(from_stdin):
    assert "skipped <stdin>:2: not UTF-8" in from_stdin.stderr.splitlines()
    assert len(from_stdin.stdout.splitlines()) == 3 and "Traceback" not in from_stdin.stderr


def test_questions_and_non_english_claims_are_warned_about(from_stdin):
    warnings = [line for line in from_stdin.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2
    assert warnings[0].startswith(f"warning: claim 2 ({QUESTION!r}) looks like a question")
    assert warnings[1].startswith(f"warning: claim 3 ({NON_LATIN!r}) is mostly not in the Latin script")


def test_the_panel_shows_markup_and_emoji_codes_as_typed(tmp_path):
    done = run(VERIFY, ["--corpus", WIKI_MINI, MARKUP_CLAIM], tmp_path, COLUMNS="200")
    assert done.returncode == 0, done.stderr
    assert MARKUP_CLAIM in done.stdout and "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}" not in done.stdout
    # nothing on stderr but the run's time, its start-up named
    assert re.fullmatch(r"1 claim\(s\) in [\d.]+ s, of which [\d.]+ s starting the tool servers and loading the parser "
                        r"and the stance model\n", done.stderr), done.stderr  # fmt: skip


def test_a_claim_over_the_limit_is_refused_before_any_work(tmp_path):
    done = run(VERIFY, ["a" * (MAX_CLAIM_CHARS + 1)], tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert_one_error_line(done.stderr, f"the claim is {MAX_CLAIM_CHARS + 1:,} characters long", f"{MAX_CLAIM_CHARS:,}")


# ---- a reader that goes away ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", [["--json"], []], ids=["json", "panel"])
def test_stdout_closed_after_the_first_line_ends_quietly(tmp_path, mode):
    process = subprocess.Popen(
        VERIFY + mode + ["--corpus", str(WIKI_MINI), "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(tmp_path, COLUMNS="100"),
    )
    process.stdin.write(f"{MARKUP_CLAIM}\n{EVEREST}\nStanley Kubrick was born in New York City.\n".encode())
    process.stdin.close()
    first = process.stdout.readline()
    process.stdout.close()  # as `head -1` does
    errors = process.stderr.read().decode()
    assert process.wait(timeout=300) in (0, OUTPUT_CLOSED)
    assert first and errors == ""


# ---- paths that cannot be used --------------------------------------------------------------------


@pytest.fixture
def claims_file(tmp_path):
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps({"id": "c1", "claim": EVEREST, "label": "SUPPORTS"}) + "\n")
    return path


@pytest.mark.parametrize(
    "args, named, message",
    [
        (["verify", "--corpus", "{dir}", "A claim."], "{dir}", "corpus path is not a file"),
        (["fever", "{dir}/missing.jsonl"], "{dir}/missing.jsonl", "claims file not found"),
        (["fever", "{dir}"], "{dir}", "claims file is a directory"),
        (
            ["fever", "{claims}", "--split", "{dir}/missing.json", "--part", "test"],
            "{dir}/missing.json",
            "split file not found",
        ),
        (["fever", "{claims}", "--out", "{claims}/run"], "{claims}/run", "cannot create the run directory"),
        (["calibrate", "{dir}"], "{dir}", "claims file is a directory"),
        (["calibrate", "{dir}/missing.jsonl"], "{dir}/missing.jsonl", "claims file not found"),
        (["calibrate", "--from-results", "{dir}/missing.jsonl"], "{dir}/missing.jsonl", "results file not found"),
        (["memory", "import", "{dir}/missing.jsonl"], "{dir}/missing.jsonl", "file to import not found"),
        (["memory", "export", "{dir}/no/such/dir/memory.jsonl"], "{dir}/no/such/dir/memory.jsonl", "cannot write"),
    ],
)
def test_a_path_that_cannot_be_used_is_a_usage_error_naming_it(
    tmp_path, claims_file, monkeypatch, args, named, message
):
    def fill(text: str) -> str:
        return text.format(dir=tmp_path, claims=claims_file)

    workdir = tmp_path / "workdir"  # where a command without --out would make its default run directory
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    result = invoke(*map(fill, args), env={"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"})
    assert result.exit_code == 2, result.output
    assert_one_error_line(result.output, message, fill(named))
    assert list(workdir.iterdir()) == []  # a refused command leaves nothing behind


@pytest.mark.parametrize(
    "args, named, message",
    [
        (["{dir}/missing.jsonl"], "{dir}/missing.jsonl", "claims file not found"),
        (["{claims}", "--split", "{dir}/missing.json", "--part", "test"], "{dir}/missing.json", "split file not found"),
        (["{claims}", "--split", "{dir}/split.json", "--part", "tset"], "{dir}/split.json", "has no part 'tset'"),
        (["{claims}", "--corpus", "{dir}/missing-corpus.jsonl"], "{dir}/missing-corpus.jsonl", "corpus file not found"),
        (["{claims}", "--corpus", "{dir}"], "{dir}", "corpus path is not a file"),
        (["{dir}/empty.jsonl"], "{dir}/empty.jsonl", "no claims to verify"),
        (["{claims}", "--split", "{dir}/split.json", "--part", "other"], "{claims}", "no claims to verify"),
    ],
)
def test_a_refused_fever_run_creates_no_run_directory(tmp_path, claims_file, args, named, message):
    def fill(text: str) -> str:
        return text.format(dir=tmp_path, claims=claims_file)

    (tmp_path / "split.json").write_text(json.dumps({"assignment": {"c1": "test", "elsewhere": "other"}}))
    (tmp_path / "empty.jsonl").write_text("")
    out = tmp_path / "runs" / "fever"
    result = invoke(
        "fever",
        *map(fill, args),
        "--out",
        out,
        env={"MERMAID_CACHE_DIR": str(tmp_path / "cache"), "MERMAID_SOURCES": "local"},
    )
    assert result.exit_code == 2, result.output
    assert_one_error_line(result.output, message, fill(named))
    assert not (tmp_path / "runs").exists()


# ---- questions without a terminal -----------------------------------------------------------------


def test_a_confirmation_without_a_terminal_asks_for_yes(tmp_path):
    result = invoke("memory", "clear", "--cache-dir", tmp_path)
    assert result.exit_code == 2
    assert_one_error_line(result.output, "not confirmed: delete the evidence memory", "use --yes")
    assert "Abort" not in result.output
    assert "removed 0 items" in invoke("memory", "clear", "--yes", "--cache-dir", tmp_path).output


def test_review_shows_claims_as_typed_and_an_ended_input_keeps_the_queue(always_uncertain, monkeypatch):
    monkeypatch.setattr(cli_review, "reviewer_is_present", lambda: False)
    cache = ["--cache-dir", always_uncertain, "--corpus", WIKI_MINI]
    queued = invoke("verify", "--review", "--json", "--no-memory", *cache, MARKUP_CLAIM)
    assert queued.exit_code == 0, queued.output
    assert f"queued for review: {MARKUP_CLAIM!r}" in queued.output

    ended = invoke("review", *cache, input="")
    assert ended.exit_code == 0, ended.output
    assert f"review needed: {MARKUP_CLAIM}" in " ".join(ended.output.split())  # wrapped at 80 columns
    assert "\nno answer; the claim stays in the review queue" in ended.output and "Abort" not in ended.output

    answered = invoke("review", "--json", *cache, input="a\n")
    assert answered.exit_code == 0, answered.output
    [result] = [json.loads(line) for line in answered.stdout.splitlines() if line.startswith("{")]
    assert result["claim"] == MARKUP_CLAIM and result["abstained"] is False


def test_memory_show_prints_an_entity_with_markup_as_typed(tmp_path):
    result = invoke("memory", "show", "[/] [bold]Everest :smile:", "--cache-dir", tmp_path)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "nothing stored for '[/] [bold]Everest :smile:'"


# ---- claim files ----------------------------------------------------------------------------------


def test_fever_skips_repeated_ids_and_lines_that_are_not_utf8_and_shows_ids_as_typed(tmp_path):
    claims = tmp_path / "claims.jsonl"
    claims.write_bytes(
        b"".join(
            [
                json.dumps({"id": "[/]", "claim": MARKUP_CLAIM, "label": "SUPPORTS"}).encode() + b"\n",
                json.dumps({"id": "c2", "claim": EVEREST, "label": "SUPPORTS"}).encode() + b"\n",
                json.dumps({"id": "[/]", "claim": EVEREST, "label": "SUPPORTS"}).encode() + b"\n",
                b'{"id": "c4", "claim": "caf\xe9", "label": "SUPPORTS"}\n',
            ]
        )
    )
    out = tmp_path / "[red]run[/]"
    done = run(CLI, ["fever", claims, "--corpus", WIKI_MINI, "--out", out, "--concurrency", 1], tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"skipped {claims}:3: duplicate id '[/]' (first on line 1)" in done.stderr
    assert f"skipped {claims}:4: not UTF-8" in done.stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(row["id"] for row in rows) == ["[/]", "c2"]
    assert f"results: {out / 'results.jsonl'}" in done.stdout and "Traceback" not in done.stderr


def test_calibrate_refuses_a_claims_file_together_with_results(tmp_path, claims_file):
    results = tmp_path / "results.jsonl"
    results.write_text(
        "".join(json.dumps({"gold": "SUPPORTS", "verdict": "SUPPORTS", "confidence": 0.9}) + "\n" for _ in range(50))
    )
    result = invoke("calibrate", claims_file, "--from-results", results, "--check-folds", 0, "--cache-dir", tmp_path)
    assert result.exit_code == 2
    assert_one_error_line(
        result.output, "give a claims file or --from-results, not both", str(claims_file), str(results)
    )
    assert not (tmp_path / "calibration.json").exists()


def test_calibrate_reads_a_run_directory_and_skips_rows_it_cannot_use(tmp_path):
    rows = [
        {"gold": "SUPPORTS", "verdict": "SUPPORTS" if i % 10 else "REFUTES", "confidence": 1 - i / 1000}
        for i in range(200)
    ]
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.jsonl").write_bytes(
        b"".join(json.dumps(r).encode() + b"\n" for r in rows) + b'{"gold": "SUPPORTS"}\n' + b"\xff\n"
    )
    result = invoke(
        "calibrate", "--from-results", run_dir, "--max-risk", 0.2, "--check-folds", 0, "--cache-dir", tmp_path
    )
    assert result.exit_code == 0, result.output
    assert f"skipped {run_dir / 'results.jsonl'}:201: no verdict, confidence" in result.output
    assert f"skipped {run_dir / 'results.jsonl'}:202: not UTF-8" in result.output
    assert (tmp_path / "calibration.json").exists()
