"""Every exception mermaid-verifier raises on purpose. Only the CLI catches them.

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


class CorpusError(UsageError):
    """A local corpus file is missing, unreadable, or not in a known layout."""


class ToolServerError(MermaidError):
    """An MCP tool server could not be started, or its session broke."""


class ModelError(MermaidError):
    """A bundled model (stance model, parser) is missing or cannot be loaded."""


class CalibrationError(MermaidError):
    """A risk budget no abstention threshold can meet on the given claims: nothing is saved."""
