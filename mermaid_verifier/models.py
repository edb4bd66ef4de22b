"""The typed records that cross module boundaries: claim, triplet, evidence, trace step, verdict."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Label(StrEnum):
    SUPPORTS = "SUPPORTS"
    REFUTES = "REFUTES"
    NOT_ENOUGH_INFO = "NOT ENOUGH INFO"


class Stance(StrEnum):
    """How one evidence item bears on the claim."""

    SUPPORTS = "supports"
    REFUTES = "refutes"
    NEUTRAL = "neutral"  # related or not, it does not settle the claim


class SourceKind(StrEnum):
    """What kind of source an evidence item comes from; sets its credibility prior."""

    ENCYCLOPEDIA = "encyclopedia"
    PEER_REVIEWED = "peer_reviewed"
    PREPRINT = "preprint"
    LOCAL_CORPUS = "local_corpus"
    USER_SUPPLIED = "user_supplied"
    MODEL_INFERENCE = "model_inference"


class Trust(BaseModel):
    """Why the judge trusted an item as much as it did: the reliability terms and their result."""

    source_credibility: float | None = None
    recency: float | None = None
    consensus: float | None = None
    reliability: float
    topicality: float | None = Field(
        default=None,
        description="1 when the item's title names what the claim names, "
        "less when only its text does or nothing does (see mermaid_verifier.topicality)",
    )


class Triplet(BaseModel):
    model_config = ConfigDict(frozen=True)

    subject: str
    relation: str
    object: str
    attribution: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,  # output unchanged when unset
        description="Who the claim says asserts this ('according to X'); None when the "
        "claim states it itself (the offline decomposer never sets it)",
    )


class Decomposition(BaseModel):
    """What the decomposer makes of a claim."""

    triplets: list[Triplet] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list, description="Named entities and other memory keys")


class Evidence(BaseModel):
    """One evidence item, with where it came from and how much the judge trusted it."""

    id: str
    source: str = Field(description="The tool server or memory it came from, e.g. 'local-corpus'")
    corpus: str | None = None
    origin: str | None = Field(
        default=None,
        description="What served it: 'corpus:<fingerprint>' for a local "
        "corpus (another corpus, or a changed file, is another origin) or a live source's name",
    )
    title: str
    text: str
    page: str | None = None
    line: int | None = None
    url: str | None = None
    retrieval_score: float | None = Field(default=None, description="The search engine's own score")
    source_kind: SourceKind | None = None
    retrieved_at: float | None = Field(default=None, description="Unix time the source returned it")
    published_at: float | None = Field(default=None, description="Unix time the source says it was published")
    from_memory: bool = False
    veracity: float | None = Field(default=None, description="Memory's belief that the item is true, 0-1")
    stance: Stance | None = None
    stance_probabilities: dict[str, float] | None = None
    score: float | None = Field(default=None, description="How strongly this item bears on the verdict, 0-1")
    trust: Trust | None = None


class TraceStep(BaseModel):
    """One thought / action / observation step of the executor."""

    step: int
    thought: str
    action: str
    action_input: dict
    observation: str
    new_evidence: int = 0


class Stats(BaseModel):
    tool_calls: int = 0
    tool_calls_by_tool: dict[str, int] = Field(default_factory=dict)
    memory_hits: int = 0
    seconds: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = Field(default=None, description="Estimated from MERMAID_PRICE_IN/OUT; None when unpriced")
    backend: Literal["offline", "llm"] = Field(
        default="offline",
        description="The path that gathered the evidence "
        "and decided: in cascade mode 'llm' when the offline verdict abstained",
    )
    llm_tool_turns: int = Field(default=0, description="LLM executor replies that made a readable tool call")
    llm_unreadable_turns: int = Field(
        default=0, description="LLM executor replies that tried to call a tool but could not be read"
    )
    llm_failure: str | None = Field(
        default=None,
        description="The LLM endpoint failure that cut this claim's "
        "search or verdict short, if any (the claim then abstains and says so)",
    )
    offline_label: Label | None = Field(
        default=None,
        description="In cascade mode, the label of the offline verdict that abstained and sent the claim "
        "to the LLM path: the LLM path may confirm it, never overturn it",
    )
    offline_confidence: float | None = Field(default=None, description="That offline verdict's confidence")


class Verdict(BaseModel):
    """The judge's decision; abstention keeps the best label and says so."""

    label: Label
    confidence: float = Field(ge=0.0, le=1.0)
    abstained: bool
    conflict: bool = Field(default=False, description="strong trusted evidence points both ways")
    reason: str
    label_probabilities: dict[str, float] = Field(default_factory=dict)
    cited: list[str] = Field(default_factory=list, description="Evidence ids the (LLM) judge based its verdict on")
    abstain_below: float | None = Field(default=None, description="The abstention threshold in force")
    threshold_source: str | None = Field(
        default=None,
        description="Where that threshold comes from: the bundled "
        "judge configuration, or the `calibrate` file in force",
    )


class VerificationResult(BaseModel):
    """What a caller gets back for one claim (also the CLI's --json object)."""

    claim: str
    verdict: Label
    abstained: bool
    conflict: bool = False
    confidence: float
    reason: str
    triplets: list[Triplet]
    keywords: list[str]
    entities: list[str] = Field(default_factory=list)
    evidence: list[Evidence]
    trace: list[TraceStep]
    stats: Stats
    backend: Literal["offline", "llm"] = "offline"
    abstain_below: float | None = Field(default=None, description="The abstention threshold in force")
    threshold_source: str | None = Field(default=None, description="Where it comes from (bundled or `calibrate`)")

    @model_validator(mode="before")
    @classmethod
    def _backend_from_stats(cls, values):
        """Without an explicit ``backend``, the path that decided as recorded in ``stats.backend``."""
        if isinstance(values, dict) and "backend" not in values:
            stats = values.get("stats")
            backend = (
                stats.backend if isinstance(stats, Stats) else stats.get("backend") if isinstance(stats, dict) else None
            )
            if backend is not None:
                values = {**values, "backend": backend}
        return values
