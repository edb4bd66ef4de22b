"""Run settings: one frozen dataclass, every field with an environment-variable fallback.

Precedence: explicit argument (CLI option, ``Settings(...)``) > environment > default.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import platformdirs

from mermaid_verifier.errors import ConfigError

ENV_PREFIX = "MERMAID_"


def _default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("mermaid-verifier"))


def _paths_from_env(value: str) -> tuple[Path, ...]:
    return tuple(Path(p).expanduser() for p in value.split(os.pathsep) if p.strip())


def _truthy(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(f"expected a boolean, got {value!r}")


@dataclass(frozen=True)
class Settings:
    """Everything a verification run can be configured with."""

    corpora: tuple[Path, ...] = field(default=(), metadata={"env": "CORPUS", "parse": _paths_from_env})
    cache_dir: Path = field(default_factory=_default_cache_dir, metadata={"env": "CACHE_DIR", "parse": Path})
    use_memory: bool = field(default=True, metadata={"env": "MEMORY", "parse": _truthy})
    max_steps: int = field(default=5, metadata={"env": "MAX_STEPS", "parse": int})
    search_k: int = field(default=5, metadata={"env": "SEARCH_K", "parse": int})
    tool_timeout_s: float = field(default=20.0, metadata={"env": "TOOL_TIMEOUT", "parse": float})
    debug: bool = field(default=False, metadata={"env": "DEBUG", "parse": _truthy})
    stance_model_dir: Path | None = field(default=None, metadata={"env": "STANCE_MODEL", "parse": Path})
    calibration_file: Path | None = field(default=None, metadata={"env": "CALIBRATION", "parse": Path})
    reliability_file: Path | None = field(default=None, metadata={"env": "RELIABILITY", "parse": Path})

    def __post_init__(self) -> None:
        if not 1 <= self.max_steps <= 20:
            raise ConfigError(f"max_steps must be between 1 and 20, got {self.max_steps}")
        if not 1 <= self.search_k <= 50:
            raise ConfigError(f"search_k must be between 1 and 50, got {self.search_k}")
        if self.tool_timeout_s <= 0:
            raise ConfigError(f"tool_timeout_s must be positive, got {self.tool_timeout_s}")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides) -> "Settings":
        """Settings from ``MERMAID_*`` variables, then ``overrides`` (``None`` values are ignored)."""
        environ = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            name = ENV_PREFIX + f.metadata["env"]
            if name in environ:
                try:
                    values[f.name] = f.metadata["parse"](environ[name])
                except ValueError as exc:
                    raise ConfigError(f"{name}: {exc}") from exc
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_(self, **changes) -> "Settings":
        return replace(self, **changes)

    @property
    def memory_dir(self) -> Path:
        return self.cache_dir / "evidence-memory"

    @property
    def calibration_path(self) -> Path:
        """Where `calibrate` saves the abstention threshold and `verify` reads it."""
        return self.calibration_file or self.cache_dir / "calibration.json"

    @property
    def index_cache_dir(self) -> Path:
        return self.cache_dir / "corpus-index"
