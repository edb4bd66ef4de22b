"""Run settings: one frozen dataclass, every field with an environment-variable fallback.

Precedence: explicit argument (CLI option, ``Settings(...)``) > environment > default.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Literal, get_args

import platformdirs

from mermaid_verifier.errors import ConfigError
from mermaid_verifier.source_registry import NAMES

ENV_PREFIX = "MERMAID_"


def _default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("mermaid-verifier"))


def _paths_from_env(value: str) -> tuple[Path, ...]:
    return tuple(Path(p).expanduser() for p in value.split(os.pathsep) if p.strip())


KNOWN_SOURCES = NAMES  # mermaid_verifier.source_registry


def parse_sources(value: str) -> tuple[str, ...]:
    """``"wikipedia, local"`` -> ("wikipedia", "local"); unknown names are a ValueError."""
    names = tuple(dict.fromkeys(part.strip().lower() for part in value.split(",") if part.strip()))
    unknown = [n for n in names if n not in KNOWN_SOURCES]
    if unknown or not names:
        raise ValueError(f"unknown source(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(KNOWN_SOURCES)}")
    return names


def _truthy(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(f"expected a boolean, got {value!r}")


def _optional_str(value: str) -> str | None:
    return value.strip() or None


def _optional_float(value: str) -> float | None:
    return None if value.strip().lower() in {"", "none"} else float(value)


BACKENDS = ("offline", "llm", "cascade")
# the local corpus's index: "memory" (bm25s), "tantivy" (on disk, the ondisk extra), "auto" (by corpus size)
INDEX_BACKENDS = ("auto", "memory", "tantivy")
STRUCTURED_METHODS = ("json_schema", "json_object", "function_calling")  # the order structured calls fall back in
# How the LLM judge's answer is checked against the stance model's reading of the same evidence
# (agents/reconcile.py, verdict_from_llm_answer): strict caps its confidence and abstains when it contradicts a
# confident stance verdict; cap only caps; off lets the answer stand on the model's confidence and the
# cited evidence's reliability.
JudgeCheck = Literal["strict", "cap", "off"]
JUDGE_CHECKS: tuple[str, ...] = get_args(JudgeCheck)
LLM_ROLES = ("decomposer", "executor", "judge")


@dataclass(frozen=True)
class Settings:
    """Everything a verification run can be configured with."""

    corpora: tuple[Path, ...] = field(default=(), metadata={"env": "CORPUS", "parse": _paths_from_env})
    sources: tuple[str, ...] = field(default=KNOWN_SOURCES, metadata={"env": "SOURCES", "parse": parse_sources})
    cache_dir: Path = field(default_factory=_default_cache_dir, metadata={"env": "CACHE_DIR", "parse": Path})
    index_backend: str = field(
        default="auto", metadata={"env": "INDEX_BACKEND", "parse": lambda v: v.strip().lower() or "auto"}
    )
    use_memory: bool = field(default=True, metadata={"env": "MEMORY", "parse": _truthy})
    memory_location: Path | None = field(
        default=None, metadata={"env": "MEMORY_DIR", "parse": Path}
    )  # default: cache_dir/evidence-memory
    # a PostgreSQL database shared by workers (postgresql://user@host/db); None: the local store in memory_dir
    memory_url: str | None = field(default=None, repr=False, metadata={"env": "MEMORY_URL", "parse": _optional_str})
    # how long a remembered lookup (tool call and its answer) is served; 0 = lookups are not remembered
    lookup_ttl_days: float = field(default=30.0, metadata={"env": "LOOKUP_TTL_DAYS", "parse": float})  # local corpora
    live_lookup_ttl_days: float = field(
        default=1.0, metadata={"env": "LIVE_LOOKUP_TTL_DAYS", "parse": float}
    )  # live sources
    max_steps: int = field(default=5, metadata={"env": "MAX_STEPS", "parse": int})
    search_k: int = field(default=5, metadata={"env": "SEARCH_K", "parse": int})
    tool_timeout_s: float = field(default=20.0, metadata={"env": "TOOL_TIMEOUT", "parse": float})
    debug: bool = field(default=False, metadata={"env": "DEBUG", "parse": _truthy})
    stance_model_dir: Path | None = field(default=None, metadata={"env": "STANCE_MODEL", "parse": Path})
    calibration_file: Path | None = field(default=None, metadata={"env": "CALIBRATION", "parse": Path})
    reliability_file: Path | None = field(default=None, metadata={"env": "RELIABILITY", "parse": Path})
    # --- LLM backend (agents/llm*.py). ``backend=None`` (MERMAID_BACKEND unset) means "offline", endpoint or not:
    # only MERMAID_BACKEND=llm or cascade turns on LLM calls (``effective_backend``).
    backend: str | None = field(default=None, metadata={"env": "BACKEND", "parse": lambda v: v.strip().lower() or None})
    openai_base_url: str | None = field(default=None, metadata={"env_name": "OPENAI_BASE_URL", "parse": _optional_str})
    openai_api_key: str | None = field(
        default=None, repr=False, metadata={"env_name": "OPENAI_API_KEY", "parse": _optional_str}
    )
    llm_model: str = field(default="gpt-4o-mini", metadata={"env": "LLM_MODEL", "parse": str.strip})
    decomposer_model: str | None = field(default=None, metadata={"env": "DECOMPOSER_MODEL", "parse": _optional_str})
    executor_model: str | None = field(default=None, metadata={"env": "EXECUTOR_MODEL", "parse": _optional_str})
    judge_model: str | None = field(default=None, metadata={"env": "JUDGE_MODEL", "parse": _optional_str})
    price_in: float | None = field(
        default=None, metadata={"env": "PRICE_IN", "parse": _optional_float}
    )  # USD / 1M input tokens
    price_out: float | None = field(
        default=None, metadata={"env": "PRICE_OUT", "parse": _optional_float}
    )  # USD / 1M output tokens
    prompts_dir: Path | None = field(default=None, metadata={"env": "PROMPTS_DIR", "parse": Path})
    structured_method: str = field(
        default="json_schema", metadata={"env": "STRUCTURED_METHOD", "parse": lambda v: v.strip().lower()}
    )
    llm_temperature: float | None = field(default=0.0, metadata={"env": "LLM_TEMPERATURE", "parse": _optional_float})
    # seconds per request: a small local model reading a 2k-token prompt on 2 busy cores needs ~60 s
    llm_timeout_s: float = field(default=120.0, metadata={"env": "LLM_TIMEOUT", "parse": float})
    # retries after a failed request: 1, as a retried timeout on a one-slot local server only queues behind itself
    llm_retries: int = field(default=1, metadata={"env": "LLM_RETRIES", "parse": int})
    # completion cap per request (sent as max_tokens): a tool call, decomposition or verdict needs 50-300; a
    # small local model that loops on one call runs to the cap (512 tokens: ~30 s at 17 tokens/s)
    llm_max_tokens: int = field(default=512, metadata={"env": "LLM_MAX_TOKENS", "parse": int})
    # the LLM judge's answer against the stance model's reading (JUDGE_CHECKS above; docs/llm-backends.md)
    judge_check: JudgeCheck = field(
        default="strict", metadata={"env": "JUDGE_CHECK", "parse": lambda v: v.strip().lower()}
    )

    def __post_init__(self) -> None:
        if not 1 <= self.max_steps <= 20:
            raise ConfigError(f"max_steps must be between 1 and 20, got {self.max_steps}")
        if not 1 <= self.search_k <= 50:
            raise ConfigError(f"search_k must be between 1 and 50, got {self.search_k}")
        if self.lookup_ttl_days < 0 or self.live_lookup_ttl_days < 0:
            raise ConfigError("MERMAID_LOOKUP_TTL_DAYS / MERMAID_LIVE_LOOKUP_TTL_DAYS must not be negative")
        if self.memory_url is not None and not self.memory_url.startswith(("postgresql://", "postgres://")):
            raise ConfigError("MERMAID_MEMORY_URL must be a PostgreSQL URL (postgresql://user@host:port/database)")
        if self.index_backend not in INDEX_BACKENDS:
            raise ConfigError(
                f"MERMAID_INDEX_BACKEND must be one of {', '.join(INDEX_BACKENDS)}, got {self.index_backend!r}"
            )
        if self.index_backend == "tantivy" and importlib.util.find_spec("tantivy") is None:
            raise ConfigError(
                "MERMAID_INDEX_BACKEND=tantivy needs the 'tantivy' package: "
                "pip install 'mermaid-verifier[ondisk]' (or choose memory or auto)"
            )
        if self.tool_timeout_s <= 0:
            raise ConfigError(f"tool_timeout_s must be positive, got {self.tool_timeout_s}")
        if self.backend is not None and self.backend not in BACKENDS:
            raise ConfigError(f"MERMAID_BACKEND must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.backend in ("llm", "cascade") and not self.has_llm_endpoint:
            raise ConfigError(
                f"MERMAID_BACKEND={self.backend} needs an LLM endpoint: set OPENAI_BASE_URL "
                "(e.g. a local server) and/or OPENAI_API_KEY"
            )
        if self.judge_check not in JUDGE_CHECKS:
            raise ConfigError(f"MERMAID_JUDGE_CHECK must be one of {', '.join(JUDGE_CHECKS)}, got {self.judge_check!r}")
        if self.structured_method not in STRUCTURED_METHODS:
            raise ConfigError(
                f"MERMAID_STRUCTURED_METHOD must be one of {', '.join(STRUCTURED_METHODS)}, "
                f"got {self.structured_method!r}"
            )
        if any(p is not None and p < 0 for p in (self.price_in, self.price_out)):
            raise ConfigError("MERMAID_PRICE_IN / MERMAID_PRICE_OUT must not be negative")
        if self.llm_timeout_s <= 0:
            raise ConfigError(f"MERMAID_LLM_TIMEOUT must be positive, got {self.llm_timeout_s}")
        if not 0 <= self.llm_retries <= 10:
            raise ConfigError(f"MERMAID_LLM_RETRIES must be between 0 and 10, got {self.llm_retries}")
        if not 16 <= self.llm_max_tokens <= 65536:
            raise ConfigError(f"MERMAID_LLM_MAX_TOKENS must be between 16 and 65536, got {self.llm_max_tokens}")
        if self.prompts_dir is not None and not Path(self.prompts_dir).is_dir():
            raise ConfigError(f"MERMAID_PROMPTS_DIR {self.prompts_dir} is not a directory")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> Settings:
        """Settings from ``MERMAID_*`` variables, then ``overrides`` (``None`` values are ignored)."""
        source: Mapping[str, str] = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            name = f.metadata.get("env_name") or ENV_PREFIX + f.metadata["env"]
            if name in source:
                try:
                    values[f.name] = f.metadata["parse"](source[name])
                except ValueError as exc:
                    raise ConfigError(f"{name}: {exc}") from exc
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_(self, **changes) -> Settings:
        return replace(self, **changes)

    @property
    def has_llm_endpoint(self) -> bool:
        """An OpenAI-compatible endpoint is configured (a base URL, an API key, or both)."""
        return bool(self.openai_base_url or self.openai_api_key)

    @property
    def effective_backend(self) -> str:
        """``backend`` as set (``MERMAID_BACKEND``), else "offline": an ``OPENAI_API_KEY`` set for some
        other tool must not quietly turn on paid LLM calls."""
        return self.backend or "offline"

    def model_for(self, role: str) -> str:
        """The chat model name for one agent ("decomposer", "executor", "judge"); ``llm_model`` by default."""
        if role not in LLM_ROLES:
            raise ValueError(f"unknown LLM role {role!r}")
        return getattr(self, f"{role}_model") or self.llm_model

    @property
    def memory_dir(self) -> Path:
        return self.memory_location or self.cache_dir / "evidence-memory"

    @property
    def calibration_path(self) -> Path:
        """Where `calibrate` saves the abstention threshold and `verify` reads it."""
        return self.calibration_file or self.cache_dir / "calibration.json"

    @property
    def index_cache_dir(self) -> Path:
        return self.cache_dir / "corpus-index"
