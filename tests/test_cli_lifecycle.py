"""The command line's start and end: ``--version`` and the refusals of ``serve`` answer before anything heavy is
imported; Ctrl-C during ``check`` or ``verify`` ends with one line and exit 130, with nothing left unawaited.
Real child processes where a signal or the imports matter; no model is loaded (a stand-in stance model)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.cli import serve as cli_serve
from mermaid_verifier.config import Settings
from mermaid_verifier.texts import TextJob, check_text
from mermaid_verifier.tools.toolbox import Toolbox
from mermaid_verifier.wiring import Overrides

from .conftest import MECHANICS_JUDGE, WIKI_MINI, ScriptedStance, in_process_corpus_server

# what a command that only prints or refuses must not import: the web framework, the graphs, the models
HEAVY = [
    "fastapi",
    "uvicorn",
    "langgraph",
    "onnxruntime",
    "spacy",
    "mermaid_verifier.service",
    "mermaid_verifier.texts",
    "mermaid_verifier.graph",
]
# the CLI (or the `verify` script) as a child that writes, as it exits, which of HEAVY it imported
WATCHED = textwrap.dedent(
    """
    import atexit, json, os, sys
    heavy = json.loads(os.environ["HEAVY_MODULES"])
    def report():
        with open(os.environ["IMPORTED_FILE"], "w") as out:
            json.dump(sorted(name for name in heavy if name in sys.modules), out)
    atexit.register(report)
    from mermaid_verifier.cli import {entry}
    {entry}()
    """
)
VERSION_LINE = re.compile(r"^mermaid-verifier \d+\.\d+\S* \(onnxruntime \S+, Python \d+\.\d+\.\d+\S*\)$")


def run_watched(
    entry: str, args: list[str], tmp_path: Path, watched: list[str] = HEAVY, child: str = WATCHED
) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The CLI's ``entry`` run as ``child`` (a script that writes which of ``watched`` it imported), and that list."""
    imported = tmp_path / "imported.json"
    env = {
        **os.environ,
        "HEAVY_MODULES": json.dumps(watched),
        "IMPORTED_FILE": str(imported),
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
    }
    env.pop("MERMAID_TOKEN", None)
    env.pop("MERMAID_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-c", child.format(entry=entry), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return done, json.loads(imported.read_text())


# ----------------------------------------------------------------------------- --version


@pytest.mark.parametrize(
    "entry, args",
    [("main", ["--version"]), ("verify_main", ["--version"]), ("main", ["verify", "--version"])],
    ids=["mermaid-verifier", "verify", "mermaid-verifier-verify"],
)
def test_version_prints_one_line_with_onnxruntime_and_python_and_loads_nothing(tmp_path, entry, args):
    done, imported = run_watched(entry, args, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    [line] = done.stdout.splitlines()
    assert VERSION_LINE.match(line), line
    from importlib import metadata

    assert line.startswith(f"mermaid-verifier {metadata.version('mermaid-verifier')} ")
    assert f"(onnxruntime {metadata.version('onnxruntime')}, Python {'.'.join(map(str, sys.version_info[:3]))}" in line
    assert imported == []


def test_the_verify_script_loads_the_verify_command_alone(tmp_path):
    others = ["check", "calibrate", "doctor", "fever", "mcp", "memory", "serve", "review", "commands"]
    done, imported = run_watched("verify_main", ["--help"], tmp_path, [f"mermaid_verifier.cli.{o}" for o in others])
    assert done.returncode == 0, done.stderr
    assert "Verify claims" in done.stdout
    assert imported == []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# the CLI as a child that, when it starts the tool servers, writes which of the watched modules it has imported by then,
# and ends
AT_START = textwrap.dedent(
    """
    import json, os, sys
    import mermaid_verifier.tools.sources as sources
    def starting(settings):
        with open(os.environ["IMPORTED_FILE"], "w") as out:
            json.dump(sorted(name for name in json.loads(os.environ["HEAVY_MODULES"]) if name in sys.modules), out)
        os._exit(0)
    sources.toolbox_started_early = starting
    from mermaid_verifier.cli import {entry}
    {entry}()
    """
)


@pytest.mark.parametrize(
    "entry, args",
    [
        ("verify_main", ["Mount Everest is in Nepal."]),
        ("main", ["check", "TEXT"]),
        ("main", ["mcp"]),
        ("main", ["mcp", "--transport", "http", "--port", "PORT"]),
        ("main", ["serve", "--port", "PORT"]),
    ],
    ids=["verify", "check", "mcp-stdio", "mcp-http", "serve"],
)
def test_the_tool_servers_start_before_the_graph_the_parser_and_the_model_are_imported(tmp_path, entry, args):
    """Their processes import and load their indexes on the other core while these imports run (a cold
    ``verify`` or ``check``, or a server that answers its first request sooner)."""
    text = tmp_path / "text.txt"
    text.write_text("Mount Everest is in Nepal. It is 8,849 metres high.\n")
    pipeline = ["langgraph", "spacy", "onnxruntime", "mermaid_verifier.graph", "mermaid_verifier.texts"]
    given = {"TEXT": str(text), "PORT": str(free_port())}
    arguments = [given.get(a, a) for a in args] + ["--no-memory", "--corpus", str(WIKI_MINI)]
    done, imported = run_watched(entry, arguments, tmp_path, pipeline, child=AT_START)
    assert done.returncode == 0, done.stderr
    assert imported == []


# ----------------------------------------------------------------------------- serve's refusals come first


def test_serve_beyond_this_machine_without_a_token_is_refused_before_anything_heavy_is_imported(tmp_path):
    done, imported = run_watched("main", ["serve", "--host", "0.0.0.0"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --host 0.0.0.0 lets other machines in: give --token TOKEN (clients send 'Authorization: Bearer "
        "TOKEN') or, to serve without one, --no-auth"
    ]
    assert imported == []


def test_serve_refuses_before_the_socket_or_the_pipeline_is_opened(monkeypatch, tmp_path):
    def never(*args, **kwargs):
        pytest.fail("serve went on past a refused argument")

    monkeypatch.setattr(cli_serve, "listening_socket", never)
    monkeypatch.setattr(TextJob, "open", never)
    monkeypatch.delenv("MERMAID_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: --host 0.0.0.0 lets other machines in")


# ----------------------------------------------------------------------------- Ctrl-C

# The CLI as a child whose stance model never answers (it stands for one that is still working): each call
# appends its claim to READY_FILE, so the test interrupts a command that is verifying, with claims still
# waiting. SIGUSR1 makes it write every thread's stack to stderr, for a test that gives up on it.
WORKING = textwrap.dedent(
    """
    import asyncio, faulthandler, os, signal
    from mermaid_verifier import wiring

    faulthandler.register(signal.SIGUSR1, all_threads=True)

    class Working:
        def load(self):
            pass
        async def aprobabilities(self, claim, evidence):
            with open(os.environ["READY_FILE"], "a", encoding="utf-8") as ready:
                ready.write(claim + "\\n")
            await asyncio.sleep(600)
        def probabilities(self, claim, evidence):
            raise AssertionError("the stand-in stance model is only awaited")

    create = wiring.Resources.create.__func__
    wiring.Resources.create = classmethod(
        lambda cls, settings=None, overrides=None: create(
            cls, settings, (overrides or wiring.Overrides()).replace(stance=Working())
        )
    )
    from mermaid_verifier.cli import main
    main()
    """
)
CLAIMS = [f"Mount Everest is in the Himalayas range number {n}." for n in range(1, 7)]
# Deadlines, generous for a loaded machine (a parallel test run on two cores), bounded so a hang fails: the
# start (imports, the corpus server, the first claims) and the way out after Ctrl-C.
START_S = 300.0
EXIT_S = 120.0


def claims_waiting(ready: Path) -> set[str]:
    """The claims whose stance call the child has reached (whole lines only: one may be half written)."""
    try:
        return set(ready.read_text(encoding="utf-8").split("\n")[:-1])
    except FileNotFoundError:
        return set()


def stacks_of(process: subprocess.Popen) -> str:
    """A child that would not end: its threads' stacks (SIGUSR1), then it is killed; its stderr."""
    process.send_signal(signal.SIGUSR1)
    try:
        process.communicate(timeout=10)  # the stacks are written at once; it is not expected to end
    except subprocess.TimeoutExpired:
        pass
    process.kill()
    return process.communicate()[1]


def interrupted_when(
    command: list[str], env: dict[str, str], ready: Callable[[], bool], not_ready: Callable[[], str]
) -> tuple[subprocess.Popen, str, str]:
    """Run ``command``, press Ctrl-C once ``ready()`` holds, and return the ended process with its stdout and
    stderr; the test fails (with the child's stacks) if it is not ready in START_S (``not_ready()`` says how far it
    got) or still runs EXIT_S after the signal."""
    # Ctrl-C as a terminal delivers it: a test run started in the background (where the shell ignores SIGINT)
    # would otherwise pass the ignored disposition on, and the command would never see the signal
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + START_S
        while not ready():
            assert process.poll() is None, process.communicate()[1]
            if time.monotonic() > deadline:
                pytest.fail(f"{not_ready()} in {START_S:.0f} s; the child's threads:\n{stacks_of(process)}")
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=EXIT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {EXIT_S:.0f} s after Ctrl-C; the child's threads:\n{stacks_of(process)}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process, out, err


@pytest.mark.parametrize("command", ["check", "verify"])
def test_ctrl_c_while_working_prints_one_line_and_exits_130(tmp_path, command):
    """Ctrl-C comes once every claim in flight waits on the stance model (two for ``check --concurrency 2``,
    one for ``verify``, which takes its claims in turn), so the machine's load changes only how long it takes."""
    text = tmp_path / "text.txt"
    text.write_text(" ".join(CLAIMS))
    ready = tmp_path / "ready"
    arguments = ["check", str(text), "--concurrency", "2"] if command == "check" else ["verify", *CLAIMS]
    in_flight = 2 if command == "check" else 1
    env = {
        **os.environ,
        "READY_FILE": str(ready),
        "MERMAID_CACHE_DIR": str(tmp_path / "cache"),
        "MERMAID_SOURCES": "local",
        "PYTHONWARNINGS": "always",  # every warning shown, whatever the environment filters
    }
    env.pop("MERMAID_DEBUG", None)
    process, out, err = interrupted_when(
        [sys.executable, "-c", WORKING, *arguments, "--corpus", str(WIKI_MINI), "--no-memory"],
        env,
        lambda: len(claims_waiting(ready)) >= in_flight,
        lambda: f"{len(claims_waiting(ready))} of {in_flight} claims reached the stance model",
    )
    assert "never awaited" not in err
    assert err.splitlines() == ["interrupted"], err
    assert out == ""
    assert process.returncode == 130


class Counting(ScriptedStance):
    """Counts the stance calls in flight at once (one per claim being verified)."""

    def __init__(self) -> None:
        super().__init__({})
        self.now = self.most = 0

    async def aprobabilities(self, claim, evidence):
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await asyncio.sleep(0.05)
            return self.probabilities(claim, evidence)
        finally:
            self.now -= 1


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_a_text_verifies_at_most_concurrency_claims_at_once(tmp_path, decomposer, concurrency):
    settings = Settings.from_env({}, corpora=(WIKI_MINI,), cache_dir=tmp_path / "cache", use_memory=False)
    toolbox = Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path / "index")])
    stance = Counting()
    result = await check_text(
        " ".join(CLAIMS[:4]),
        settings,
        concurrency=concurrency,
        overrides=Overrides(toolbox=toolbox, stance=stance, decomposer=decomposer, judge_config=MECHANICS_JUDGE),
    )
    assert len(result.claims) == 4
    assert stance.most == concurrency


# a first run's child: the default corpus is a generated summaries file large enough to take seconds to split;
# the conversion marks its start, then goes on as it is
FIRST_RUN = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from mermaid_verifier.tools import corpora
    convert = corpora.summaries_to_sentences
    def marked(*args):
        Path(os.environ["STARTED_FILE"]).touch()
        return convert(*args)
    corpora.summaries_to_sentences = marked
    corpora.default_summaries_file = lambda: Path(os.environ["SUMMARIES_FILE"])
    from mermaid_verifier.cli import app
    sys.argv = ["mermaid-verifier", *sys.argv[1:]]
    app()
    """
)


@pytest.mark.parametrize("command", ["verify", "fever"])
def test_ctrl_c_while_a_first_run_converts_the_default_corpus_stops_it_and_writes_nothing(tmp_path, command):
    """The conversion runs off the event loop and stops when told: Ctrl-C is answered while it works (it used to
    hold the loop until every summary was split, seconds, and then write the corpus anyway). ``verify`` starts its
    servers early; ``fever`` builds its pipeline in a worker thread."""
    summaries = {
        f"Page {i}": {"title": f"Page {i}", "extract": f"Page {i} is a page. It holds {i} words. It ends here."}
        for i in range(60_000)
    }
    summaries_file = tmp_path / "summaries.json"
    summaries_file.write_text(json.dumps(summaries))
    started, cache = tmp_path / "started", tmp_path / "cache"
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": 1, "claim": "Paris is the capital of France.", "label": "SUPPORTS"}) + "\n")
    arguments = (
        ["verify", "Paris is the capital of France."]
        if command == "verify"
        else ["fever", str(claims), "--out", str(tmp_path / "run"), "--no-memory"]
    )
    env = {
        **os.environ,
        "STARTED_FILE": str(started),
        "SUMMARIES_FILE": str(summaries_file),
        "MERMAID_CACHE_DIR": str(cache),
        "MERMAID_SOURCES": "local",
    }
    env.pop("MERMAID_CORPUS", None)
    process, out, err = interrupted_when(
        [sys.executable, "-c", FIRST_RUN, *arguments], env, started.exists, lambda: "the conversion did not start"
    )
    said = "interrupted" if command == "verify" else "error: interrupted: the claims decided so far are kept in"
    assert (process.returncode, out) == (130, "")
    assert err.splitlines()[-1].startswith(said), err
    written = (
        sorted(p.name for p in (cache / "default-corpus").iterdir()) if (cache / "default-corpus").exists() else []
    )
    assert written == []  # no corpus, no digest, no temporary file: the next run converts it whole
