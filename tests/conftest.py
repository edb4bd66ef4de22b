"""Shared fixtures: fixture corpora, an in-process corpus server, a scripted stance model."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest
from mcp.shared.memory import create_connected_server_and_client_session

from mermaid_verifier.agents.decomposer import SpacyDecomposer
from mermaid_verifier.agents.judge import JudgeConfig
from mermaid_verifier.config import Settings
from mermaid_verifier.graph import Overrides, Resources
from mermaid_verifier.memory.evidence import EvidenceMemory
from mermaid_verifier.memory.store import open_local_store
from mermaid_verifier.tools.toolbox import ServerSpec, Toolbox, corpus_source

FIXTURES = Path(__file__).parent / "fixtures"
WIKI_MINI = FIXTURES / "wiki_mini.jsonl"
# the installed CLI and its `verify` entry point, run as child processes of this interpreter
CLI = [sys.executable, "-c", "from mermaid_verifier.cli import main; main()"]
VERIFY = [sys.executable, "-c", "from mermaid_verifier.cli import verify_main; verify_main()"]
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
# Graph tests check mechanics (stopping, memory budgets, review, cascade, belief revision) against fixed
# judge settings, not against the values tuned on FEVER in data/judge_config.json, which change with
# every stance model and are measured by scripts/evaluate_scoring.py instead.
MECHANICS_JUDGE = JudgeConfig(
    nei_threshold=0.22,
    refute_weight=0.75,
    abstain_below=0.5,
    conflict_level=0.6,
    stop_threshold=0.9,
)


class ScriptedStance:
    """A stance model whose answers a test writes: the first rule whose phrase the evidence text
    contains decides; everything else is neutral. Counts the pairs it was asked about."""

    def __init__(self, rules: dict[str, str], only_for_claims_with: str = ""):
        self.rules = rules  # phrase -> "supports" | "refutes"
        self.only_for_claims_with = only_for_claims_with  # the rules apply to claims containing this
        self.pairs_scored = 0

    def load(self) -> None:
        pass

    def probabilities(
        self, claim: str, evidence: list[tuple[str, str]], max_length: int | None = None
    ) -> list[dict[str, float]]:
        self.pairs_scored += len(evidence)
        out = []
        rules = self.rules if self.only_for_claims_with in claim else {}
        for _, text in evidence:
            stance = next((s for phrase, s in rules.items() if phrase in text), "neutral")
            probs = {"supports": 0.02, "refutes": 0.02, "neutral": 0.96}
            if stance != "neutral":
                probs = {"supports": 0.01, "refutes": 0.01, "neutral": 0.03} | {stance: 0.95}
            out.append(probs)
        return out

    async def aprobabilities(self, claim, evidence, max_length=None):
        return self.probabilities(claim, evidence)


def in_process_corpus_server(corpora: list[Path], cache_dir: Path) -> ServerSpec:
    from mermaid_verifier.tools.servers.local_corpus_server import create_server

    server = create_server(corpora, cache_dir)
    return ServerSpec(
        "local-corpus", lambda: create_connected_server_and_client_session(server), source=corpus_source(corpora)
    )


@pytest.fixture(scope="session")
def decomposer() -> SpacyDecomposer:
    decomposer = SpacyDecomposer()
    decomposer.warm_up()
    return decomposer


@pytest.fixture
def make_resources(tmp_path, decomposer):
    """Build Resources over an in-process corpus server; closes what it built."""
    built: list[Resources] = []

    def make(stance, *, corpora=(WIKI_MINI,), use_memory=True, memory_dir=None, max_steps=5, clock=None) -> Resources:
        settings = Settings.from_env(
            {}, corpora=tuple(corpora), cache_dir=tmp_path / "cache", use_memory=use_memory, max_steps=max_steps
        )
        toolbox = Toolbox([in_process_corpus_server(list(corpora), tmp_path / "index")])
        store = open_local_store(memory_dir or tmp_path / "memory") if use_memory else None
        memory = EvidenceMemory(store, clock=clock or time.time) if store is not None else None
        resources = Resources.create(
            settings,
            Overrides(
                toolbox=toolbox, memory=memory, stance=stance, decomposer=decomposer, judge_config=MECHANICS_JUDGE
            ),
        )
        if clock is not None:
            resources.clock = clock
        built.append(store)
        return resources

    yield make
    for store in built:
        if store is not None:
            store.close()


def requires_shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"needs {path} (../shared/data beside the repo), which is absent")
    return path


@pytest.fixture(autouse=True)
def _local_sources_only(monkeypatch):
    """Tests never start the live Wikipedia / arXiv / PubMed servers unless they ask to."""
    monkeypatch.setenv("MERMAID_SOURCES", "local")


class NetworkUsedInTest(OSError):
    """Raised when a test tries to reach a host other than this machine."""


_real_connect = socket.socket.connect
_LOOPBACK = ("127.", "::1", "localhost")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """No test reaches the network: a connect to any non-loopback address raises.

    (The live-source tests replay vcrpy cassettes of responses recorded by public projects, listed in
    tests/cassettes/SOURCES.md; the MCP servers talk over pipes.)"""

    def guarded_connect(sock, address, *args):
        host = address[0] if isinstance(address, tuple) else address
        if sock.family == socket.AF_UNIX or str(host).startswith(_LOOPBACK):
            return _real_connect(sock, address, *args)
        raise NetworkUsedInTest(f"a test tried to reach {address!r}")

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)


@pytest.fixture(params=["sqlite", "in-memory"])
def store(request, tmp_path):
    """A memory store: the default (LangGraph's SqliteStore in a directory) and LangGraph's InMemoryStore."""
    from langgraph.store.memory import InMemoryStore

    from mermaid_verifier.memory.store import open_local_store

    if request.param == "in-memory":
        yield InMemoryStore()
        return
    with open_local_store(tmp_path / "store") as local_store:
        yield local_store


LLM_ENDPOINT = "http://127.0.0.1:9/v1"  # never contacted: the chat models of these tests are scripted


@pytest.fixture
def llm_resources(tmp_path, decomposer):
    built: list[Resources] = []

    def make(
        stance, models: dict, *, backend="llm", max_steps=5, prices=(None, None), judge_check="strict"
    ) -> Resources:
        settings = Settings.from_env(
            {},
            judge_check=judge_check,
            corpora=(WIKI_MINI,),
            cache_dir=tmp_path / "cache",
            use_memory=False,
            max_steps=max_steps,
            backend=backend,
            openai_base_url=LLM_ENDPOINT,
            price_in=prices[0],
            price_out=prices[1],
        )
        toolbox = Toolbox([in_process_corpus_server([WIKI_MINI], tmp_path / "index")])
        resources = Resources.create(
            settings,
            Overrides(
                toolbox=toolbox,
                stance=stance,
                chat_model=models,
                decomposer=decomposer if backend == "cascade" else None,
                judge_config=MECHANICS_JUDGE,
            ),
        )
        built.append(resources)
        return resources

    yield make


def save_calibration(directory: Path, abstain_below: float, **fields) -> Path:
    """A calibration file in ``directory`` as `calibrate` writes it (budget 0.1, 900 claims unless told)."""
    from mermaid_verifier.weighing.calibration import Calibration, save

    values = {
        "max_risk": 0.1,
        "delta": 0.1,
        "coverage": 0.5,
        "risk": 0.08,
        "risk_upper_bound": 0.1,
        "claims": 900,
        "fitted_on": "claims.jsonl",
        "fitted_at": "2026-11-23",
    } | fields
    path = directory / "calibration.json"
    save(Calibration(abstain_below=abstain_below, **values), path)
    return path


@pytest.fixture
def always_uncertain(tmp_path):
    """A calibration that abstains on everything, so every claim needs review."""
    save_calibration(
        tmp_path,
        1.01,
        max_risk=0.0001,
        coverage=0,
        risk=0,
        risk_upper_bound=0,
        claims=1,
        fitted_on="test",
        fitted_at="now",
    )
    return tmp_path


def stance_model_copy(target: Path, edit_config=None, model_file: Path | None = None) -> Path:
    """The shipped stance model in ``target`` (its large files linked, not copied; ``model_file`` in place of
    its model.onnx), its stance_config.json passed through ``edit_config``."""
    import json

    from mermaid_verifier.reader.stance import bundled_model_dir

    shipped = bundled_model_dir()
    target.mkdir(parents=True)
    (target / "model.onnx").symlink_to(model_file or shipped / "model.onnx")
    (target / "tokenizer.json").symlink_to(shipped / "tokenizer.json")
    config = json.loads((shipped / "stance_config.json").read_text())
    (target / "stance_config.json").write_text(json.dumps(edit_config(config) if edit_config else config))
    return target


def swapped_canaries(config: dict) -> dict:
    """The canaries' float readings with supports and refutes exchanged: a model that reads them as shipped
    now reads them wrongly, as a model whose arithmetic broke on this CPU would."""
    for pair in config["self_check"]["pairs"]:
        p = pair["float"]
        pair["float"] = {"supports": p["refutes"], "refutes": p["supports"], "neutral": p["neutral"]}
    return config


def refusing_stance_model(target: Path) -> Path:
    """A copy of the shipped stance model that fails its self-check on any CPU (:func:`swapped_canaries`)."""
    return stance_model_copy(target, swapped_canaries)


class NetworkBlocked(OSError):
    """Raised by the guard instead of opening a connection or resolving a name."""


@pytest.fixture
def block_network(monkeypatch):
    """Every TCP/UDP connect and every DNS look-up made through Python fails; attempts are recorded."""
    attempts: list[tuple[str, object]] = []

    def refuse_connect(sock, address, *args):
        if sock.family == socket.AF_UNIX:
            return real_connect(sock, address, *args)
        attempts.append(("connect", address))
        raise NetworkBlocked(f"network disabled in tests: connect to {address!r}")

    def refuse_connect_ex(sock, address, *args):
        if sock.family == socket.AF_UNIX:
            return real_connect_ex(sock, address, *args)
        attempts.append(("connect", address))
        raise NetworkBlocked(f"network disabled in tests: connect to {address!r}")

    def refuse_getaddrinfo(host, port, *args, **kwargs):
        attempts.append(("dns", host))
        raise socket.gaierror(socket.EAI_NONAME, f"network disabled in tests: no DNS for {host!r}")

    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    monkeypatch.setattr(socket.socket, "connect", refuse_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", refuse_getaddrinfo)
    return attempts
