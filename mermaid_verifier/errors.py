"""Every exception mermaid-verifier raises on purpose, and who catches them.

The ways in turn them into one line for the person or program on the other side: the CLI prints it and exits
with ``exit_code`` (``cli/options.guarded``), the HTTP service answers 502 or an ``error`` event
(``service/routes.py``), the MCP server a tool error (``service/mcp_server.py``). Inside, only LLM failures are
caught on purpose, where a claim can still end with an explained abstention: the LLM agents
(``agents/structured.py``, ``llm_executor.py``, ``llm_judge.py``) and the graph (``graph.py``) turn an endpoint
failure into that abstention, and a batch run (``evaluation/batch.py``) records it per claim and goes on.

Tool failures met *during* a verification are not exceptions: they come back to the executor as
observation text it can act on. What is here is what stops a run: bad configuration, a corpus that
cannot be read, a tool server that cannot be started or reached, a model file that is missing.
"""


class MermaidError(Exception):
    """Base class; ``exit_code`` is what the CLI exits with."""

    exit_code = 1


class UsageError(MermaidError):
    """The user asked for something impossible (empty claim, bad option value)."""

    exit_code = 2


class ConfigError(UsageError):
    """A setting or environment variable has an invalid value."""


class ResultsError(UsageError):
    """Batch results a fit cannot use: a claim outside the split, or train-part claims where they are refused."""


class CorpusError(UsageError):
    """A local corpus file is missing, unreadable, or not in a known layout."""


# The words a local-corpus server's tool error starts with when its corpus cannot be read at all: the
# toolbox turns that error into a CorpusError (no claim can be checked), where other tool errors are
# observations for the executor.
CORPUS_UNUSABLE = "corpus unusable:"


class ToolServerError(MermaidError):
    """An MCP tool server could not be started, or its session broke."""


class ModelError(MermaidError):
    """A bundled model (stance model, parser) is missing or cannot be loaded."""


class ModelSelfCheckError(ModelError):
    """The stance model read its canary pairs differently from the float model it was exported from, on this
    machine: its answers cannot be trusted here, so it gives none."""


class MemoryStoreError(MermaidError):
    """The evidence memory's database cannot be reached or set up (e.g. a PostgreSQL URL that does not answer)."""


class BatchWorkerError(MermaidError):
    """A batch's workers cannot be reached or kept alive (a Ray cluster that does not answer, a worker that keeps dying)."""


class ServiceStartError(MermaidError):
    """``mermaid-verifier serve`` started as a child process exited, or did not answer, before it was ready."""


class CalibrationError(MermaidError):
    """A risk budget no abstention threshold can meet on the given claims: nothing is saved."""


class TrainingStopped(MermaidError):
    """Training stopped before its end (wall-time limit or a signal) after writing a checkpoint; ``--resume`` continues."""

    exit_code = 75  # EX_TEMPFAIL: try again


class ResumableInterrupt(MermaidError):
    """A batch was stopped by its user (Ctrl-C); what it decided is kept and ``--resume`` continues."""

    exit_code = 130  # as for any process ended by SIGINT


class LLMOutputError(MermaidError):
    """The model's answer was unusable even after one repair round."""


class DecompositionError(LLMOutputError):
    """The LLM decomposer gave no usable decomposition; the graph turns this into an abstention."""


class LLMServiceError(MermaidError):
    """The LLM endpoint failed (connection, timeout, HTTP error) after the client's own retries."""

    def __init__(self, message: str, status_code: int | None = None, context_overflow: bool = False):
        super().__init__(message)
        self.status_code = status_code
        self.context_overflow = context_overflow

    @property
    def rejects_request(self) -> bool:
        """The server refused this request's form, for another reason than its length.

        Servers reject an output mode they lack in different ways: 400 or 422 (vLLM, OpenAI), 500
        (llama.cpp's request validation), 501; any of them makes a structured call try the next mode.
        Auth, rate limits and gateway errors (502-504) are not about the request's form."""
        return self.status_code in (400, 422, 500, 501) and not self.context_overflow
