"""The typed records that cross module boundaries: claim, triplet, evidence, trace step, verdict."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from mermaid_verifier.stance_format import Label as Label  # the verdict labels, importable without pydantic


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
        "less when only its text does or nothing does (see mermaid_verifier.weighing.topicality)",
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
        "and decided: in cascade mode 'llm' when the offline verdict abstained and the claim escalated",
    )
    llm_tool_turns: int = Field(default=0, description="LLM executor replies that made a readable tool call")
    llm_unreadable_turns: int = Field(
        default=0, description="LLM executor replies that tried to call a tool but could not be read"
    )
    stance_unavailable: str | None = Field(
        default=None,
        description="Why the stance model gave no readings in this run: it failed its self-check on this CPU, and "
        "with --backend llm and MERMAID_JUDGE_CHECK=off the LLM judge decided alone",
    )


class Verdict(BaseModel):
    """The judge's decision; abstention keeps the best label and says so."""

    label: Label
    confidence: float = Field(ge=0.0, le=1.0)
    abstained: bool
    conflict: bool = Field(default=False, description="strong trusted evidence points both ways")
    reason: str
    not_checkworthy: str | None = Field(
        default=None,
        description="Why the claim states nothing to check (an opinion, a question, ...): it was not searched",
    )
    side_strengths: dict[str, float] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("side_strengths", "label_probabilities"),  # paused reviews saved before
        description="The strongest trusted support and refutation, and 1 - the larger for NOT ENOUGH INFO: "
        "strengths the judge weighed, not probabilities",
    )
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
    llm_failure: str | None = Field(
        default=None,
        description="The LLM endpoint failure that cut this claim's search or verdict short, if any (the claim "
        "then abstains and says so)",
    )
    abstain_below: float | None = Field(default=None, description="The abstention threshold in force")
    threshold_source: str | None = Field(default=None, description="Where it comes from (bundled or `calibrate`)")
    not_checkworthy: str | None = Field(
        default=None,
        description="Why the claim states nothing to check (an opinion, a question, the speaker's own view), by "
        "the rule check leaves such a sentence of a text out by; such a claim is not searched",
    )

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


class ExtractedClaim(BaseModel):
    """One atomic, self-contained claim taken from a text, with the sentence it came from."""

    text: str = Field(description="The claim as checked: references resolved, one fact")
    sentence: str = Field(description="The sentence of the text it came from, as written")
    start: int = Field(ge=0, description="Character offset of that sentence in the text")
    end: int = Field(ge=0, description="Character offset just past that sentence")
    resolved: dict[str, str] = Field(
        default_factory=dict, description="Words of the sentence replaced to make the claim stand alone"
    )
    unresolved: list[str] = Field(
        default_factory=list,
        description="References kept as written because nothing, or more than one thing, in the text fits them",
    )
    context: str | None = Field(
        default=None,
        description="The sentences before it, when a reference was kept as written: for retrieval and reading",
    )


class DroppedSentence(BaseModel):
    """A sentence of a text with nothing to check, and why."""

    sentence: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    reason: str


class TextClaims(BaseModel):
    """What claim extraction made of a text."""

    claims: list[ExtractedClaim]
    dropped: list[DroppedSentence] = Field(default_factory=list)
    extractor: Literal["offline", "llm"] = "offline"
    fallback: str | None = Field(
        default=None, description="Why the LLM extraction was not used and the offline one was, if so"
    )


class CheckedClaim(BaseModel):
    """One claim of a text and its verification."""

    index: int = Field(ge=0, description="The claim's place among the text's claims")
    claim: ExtractedClaim
    result: VerificationResult


class TextSummary(BaseModel):
    """A text's claims counted by verdict; abstentions apart from the decided ones."""

    claims: int
    supported: int
    refuted: int
    not_enough_info: int
    abstained: int
    supported_share: float | None = Field(
        description="Supported among the decided (not abstained) claims: FActScore's measure; None when none was decided"
    )
    sentences_without_claims: int = Field(description="Sentences dropped as holding nothing to check")

    @classmethod
    def of(cls, checked: list[CheckedClaim], dropped: int) -> TextSummary:
        """The text-level counts of its checked claims."""
        decided = [c.result for c in checked if not c.result.abstained]
        supported = sum(r.verdict == Label.SUPPORTS for r in decided)
        return cls(
            claims=len(checked),
            supported=supported,
            refuted=sum(r.verdict == Label.REFUTES for r in decided),
            not_enough_info=sum(r.verdict == Label.NOT_ENOUGH_INFO for r in decided),
            abstained=len(checked) - len(decided),
            supported_share=round(supported / len(decided), 4) if decided else None,
            sentences_without_claims=dropped,
        )


class TextCheckResult(BaseModel):
    """What ``check`` gives for a whole text (also its --json object)."""

    text: str
    claims: list[CheckedClaim]
    dropped: list[DroppedSentence]
    summary: TextSummary
    extractor: Literal["offline", "llm"] = "offline"
    extraction_fallback: str | None = None


class GivenDocument(BaseModel):
    """A document a text is checked against (grounding): trusted as given, read only for what it says."""

    name: str = Field(min_length=1, description="How the document is named in the result: its file name, or a label")
    title: str = Field(default="", description="Its title, shown to the reader beside each passage")
    text: str
    file_offsets: list[tuple[int, int, int]] | None = Field(
        default=None,
        exclude=True,
        description="For text read out of a file with markup (.md, .html): where stretches of `text` lie in that "
        "file, as (offset in text, offset in the file, length); the result's spans are then the file's",
    )
    extracted: bool = Field(
        default=False,
        exclude=True,
        description="`text` was extracted from a file no span can index (a PDF): the result's spans index this "
        "text, which the result carries in `extracted_texts`",
    )


class GroundingPassage(BaseModel):
    """A passage of a given document as the reader saw it, with its character span in that document."""

    document: int = Field(ge=0, description="The document's place among those given")
    name: str
    title: str
    text: str
    start: int = Field(ge=0, description="Character offset of the passage in the document's text")
    end: int = Field(ge=0, description="Character offset just past it")
    supports: float = Field(description="P(the passage states the claim), the stance model's reading")
    refutes: float = Field(description="P(the passage contradicts the claim)")


class DecidingSentence(BaseModel):
    """A sentence of the passage that decided a claim, with its own character span in the document."""

    text: str
    start: int = Field(ge=0, description="Character offset of the sentence in the document's text")
    end: int = Field(ge=0, description="Character offset just past it")


GroundingLabel = Literal[
    "supported", "partially supported", "contradicted", "not stated", "undecided", "nothing to check"
]
ClaimStatus = Literal["supported", "contradicted", "not stated", "undecided"]


class GroundedClaim(BaseModel):
    """One claim of the text, read against the given documents' passages: **supported** (a passage states it),
    **contradicted** (a passage states another value for the same subject and relation), **not stated**, or
    **undecided** (the reader's best reading of support is where it is right about as often as not; why in
    ``reason``)."""

    index: int = Field(ge=0, description="The claim's place among the text's claims")
    claim: ExtractedClaim
    status: ClaimStatus = Field(
        description="supported, contradicted (a passage states something else for its subject and relation), "
        "not stated (the documents do not say it, nor its opposite) or undecided (the reader cannot tell; see "
        "`reason`)"
    )
    supported: bool = Field(description="A passage of the documents states it (support at or above the threshold)")
    support: float = Field(description="The highest P(supports) over the passages read (see `read`)")
    contradicted: bool = Field(
        default=False,
        description="Not supported, and a passage that speaks to its subject and relation contradicts it",
    )
    passage: GroundingPassage | None = Field(
        default=None,
        description="The passage that supports it (contradicted: the one that contradicts it; else the closest)",
    )
    deciding: list[DecidingSentence] = Field(
        default_factory=list,
        description="The sentence(s) of that passage that decide: for a passage of several sentences, the one that "
        "states the claim's values (supported), the one that states its slot otherwise (contradicted), the closest "
        "(not stated); all of them where only together they state it",
    )
    read: int = Field(
        default=0, description="How many passages were read for it, best first, up to the first that supports it"
    )
    missing: list[str] = Field(
        default_factory=list,
        description="Numbers, dates or names of the claim missing from a passage read as supporting it (so it is "
        "not support)",
    )
    reason: str | None = Field(
        default=None,
        description="Why a claim a passage reads as contradicting is not stated (the passage does not speak to its "
        "subject and relation), what makes the contradiction, or why the claim is undecided",
    )

    @model_validator(mode="before")
    @classmethod
    def _status_of_older_records(cls, data: Any) -> Any:
        """Records written before ``status`` existed: it follows from ``supported`` and ``contradicted``."""
        if isinstance(data, dict) and "status" not in data:
            status = (
                "supported" if data.get("supported") else "contradicted" if data.get("contradicted") else "not stated"
            )
            return {**data, "status": status}
        return data


class GroundedSentence(BaseModel):
    """One sentence of the text, from its claims: **supported** (all are), **contradicted** (one is, whatever
    the others), **partially supported** (some are, the rest not stated), **not stated** (none is supported or
    contradicted), **undecided** (none is contradicted or not stated, and one or more is undecided), or
    **nothing to check** (no claim in it, with why)."""

    sentence: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    label: GroundingLabel
    claims: list[int] = Field(default_factory=list, description="Indices of its claims among the text's claims")
    unsupported: list[str] = Field(default_factory=list, description="Its claims no passage states")
    contradicted: list[str] = Field(
        default_factory=list, description="Those of its unsupported claims a passage contradicts"
    )
    not_stated: list[str] = Field(
        default_factory=list, description="Those of its unsupported claims the documents do not state either way"
    )
    undecided: list[str] = Field(
        default_factory=list, description="Those of its unsupported claims the reader cannot decide"
    )
    passage: GroundingPassage | None = Field(
        default=None, description="The passage that supports it best (contradicted: the one that contradicts it)"
    )
    deciding: list[DecidingSentence] = Field(
        default_factory=list, description="The sentence(s) of that passage that decide (its claim's `deciding`)"
    )
    reason: str | None = Field(default=None, description="Why there was nothing to check, for such a sentence")

    @model_validator(mode="before")
    @classmethod
    def _label_of_older_records(cls, data: Any) -> Any:
        """Records written with the older label "not supported": contradicted when a claim was, else not stated."""
        if isinstance(data, dict) and data.get("label") == "not supported":
            label = "contradicted" if data.get("contradicted") else "not stated"
            return {**data, "label": label}
        return data


class GroundingSummary(BaseModel):
    """A text's sentences and claims counted by how the documents back them."""

    sentences: int
    supported: int
    partially_supported: int
    contradicted: int = 0
    not_stated: int = 0
    undecided: int = 0
    not_supported: int = Field(description="Sentences neither supported nor partially: contradicted + not stated")
    nothing_to_check: int
    claims: int
    claims_supported: int
    claims_contradicted: int = 0
    claims_not_stated: int = 0
    claims_undecided: int = 0
    supported_share: float | None = Field(
        description="Supported sentences among those with something to check; None when none had"
    )

    @classmethod
    def of(cls, sentences: list[GroundedSentence], claims: list[GroundedClaim]) -> GroundingSummary:
        count = {label: sum(s.label == label for s in sentences) for label in GroundingLabel.__args__}  # type: ignore[attr-defined]
        checkable = len(sentences) - count["nothing to check"]
        return cls(
            sentences=len(sentences),
            supported=count["supported"],
            partially_supported=count["partially supported"],
            contradicted=count["contradicted"],
            not_stated=count["not stated"],
            undecided=count["undecided"],
            not_supported=count["contradicted"] + count["not stated"],
            nothing_to_check=count["nothing to check"],
            claims=len(claims),
            claims_supported=sum(c.status == "supported" for c in claims),
            claims_contradicted=sum(c.status == "contradicted" for c in claims),
            claims_not_stated=sum(c.status == "not stated" for c in claims),
            claims_undecided=sum(c.status == "undecided" for c in claims),
            supported_share=round(count["supported"] / checkable, 4) if checkable else None,
        )


class GroundingResult(BaseModel):
    """What a grounding check gives: each sentence of the text, its claims, and the passages that back them."""

    text: str
    documents: list[str] = Field(description="The documents' names, in the order their indices refer to")
    sentences: list[GroundedSentence]
    claims: list[GroundedClaim]
    summary: GroundingSummary
    threshold: float = Field(
        description="The support at or above which a passage states a claim (with an undecided band, a claim is "
        "supported only at the band's upper end)"
    )
    undecided_band: tuple[float, float] | None = Field(
        default=None,
        description="Best readings of support in [lo, hi), not contradicted, leave a claim undecided (None: no band)",
    )
    extractor: Literal["offline", "llm"] = "offline"
    extraction_fallback: str | None = None
    spans: dict[str, str] = Field(
        default_factory=dict,
        description="For each document read out of a file with markup or a PDF, by name, what its spans index: "
        "'file' (the characters of the file as written, markup included) or 'extracted text' (the text read from "
        "the PDF, in `extracted_texts`); every other document's spans index its text as given",
    )
    extracted_texts: dict[str, str] = Field(
        default_factory=dict, description="The text read from each PDF document, by name: what its spans index"
    )


def result_from_output(claim: str, output: dict) -> VerificationResult:
    """Graph output as a :class:`VerificationResult` (the command line shows it with :mod:`mermaid_verifier.cli.render`)."""
    verdict = output["verdict"]
    return VerificationResult(
        claim=claim,
        verdict=verdict.label,
        abstained=verdict.abstained,
        conflict=verdict.conflict,
        confidence=verdict.confidence,
        reason=verdict.reason,
        not_checkworthy=verdict.not_checkworthy,
        abstain_below=verdict.abstain_below,
        threshold_source=verdict.threshold_source,
        triplets=output["decomposition"].triplets,
        keywords=output["decomposition"].keywords,
        entities=output["decomposition"].entities,
        evidence=output["evidence"],
        trace=output["trace"],
        stats=output["stats"],
        backend=output["stats"].backend,
        llm_failure=output.get("llm_failure"),
    )
