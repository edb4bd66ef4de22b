"""The LLM judge: a structured verdict from a chat model, tied to the reliability machinery.

The model sees the claim and the trust-assessed evidence (best first, as ``annotate`` ranks it), each
item under a short id (``E1``, ``E2`` …) with its reliability, and answers with reasoning, a label, a
confidence and the ids it cites. Cited ids are checked (a short id or the item's own id); a
SUPPORTS / REFUTES verdict must cite at least one item. A bad answer is repaired once; a second bad
answer gives an abstention that says why (never a crash, never a made-up verdict).

Confidence rule
    final confidence = model confidence × mean reliability C of the cited items.
    A NOT ENOUGH INFO answer that cites nothing uses the share of the claim's entities the evidence
    covers instead of C (as the offline judge does: finding nothing about the claim's topic is not
    evidence that it is unsupported); with no evidence at all the model is not asked and the verdict
    is NOT ENOUGH INFO at 0.
Cross-check with the stance model (``check``, ``MERMAID_JUDGE_CHECK``; default ``strict``)
    A model's self-reported confidence is not evidence. When the LLM's label differs from the stance
    model's verdict on the same items (:func:`decide`), the confidence is capped at the stance
    model's strength for the LLM's label; when that stance-model verdict was confident (not
    abstained), the judge abstains: one reader against the other is not a verdict (``strict``).
    ``cap`` keeps the cap and drops that abstention; ``off`` does not consult the stance model, for a
    judge model stronger than the stance model.
    Whenever the LLM's answer does not stand (abstention, conflict, unusable answer), the verdict is
    the stance model's label, abstained, with the LLM's answer in the reason: an LLM that adds no
    confident, consistent reading never changes a label (in the cascade: never worse than offline).
Abstention and conflict
    As offline: abstain when the final confidence is under ``JudgeConfig.abstain_below`` or when
    strong trusted evidence points both ways (``conflict``, from the stance model's reading of the
    same items via :func:`decide`). ``side_strengths`` are the stance-based strengths ``decide``
    computes, so calibration tools read the same numbers for both backends.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, field_validator

from mermaid_verifier.agents.judge import JudgeConfig, annotate, decide, topic_coverage
from mermaid_verifier.agents.prompt_files import load_prompt
from mermaid_verifier.agents.reconcile import LLMAnswer, stance_reading_kept, verdict_from_llm_answer
from mermaid_verifier.agents.structured import StructuredCaller
from mermaid_verifier.config import JudgeCheck
from mermaid_verifier.errors import LLMOutputError
from mermaid_verifier.models import Evidence, Label, Verdict
from mermaid_verifier.weighing.topicality import is_planted

PROMPT_PLACEHOLDERS = {"system": set(), "user": {"claim", "evidence", "ids"}, "repair": {"error", "ids"}}
MAX_SHOWN = 30  # the executor keeps at most 30 items anyway
SHOWN_CHARS = 600  # of each passage's text


class LLMVerdict(BaseModel):
    """The judge's answer."""

    reasoning: str = Field(description="Two or three sentences: which passages decide and why")
    label: Literal["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
    confidence: float = Field(ge=0.0, le=1.0, description="How sure the judge is, 0-1")
    cited: list[str] = Field(description="Ids of the passages the verdict rests on, e.g. ['E1', 'E3']")

    @field_validator("label", mode="before")
    @classmethod
    def _label(cls, value):
        if isinstance(value, str):
            text = " ".join(value.replace("_", " ").upper().split())
            return {
                "SUPPORT": "SUPPORTS",
                "SUPPORTED": "SUPPORTS",
                "REFUTE": "REFUTES",
                "REFUTED": "REFUTES",
                "NEI": "NOT ENOUGH INFO",
                "NOT ENOUGH INFORMATION": "NOT ENOUGH INFO",
            }.get(text, text)
        return value

    @field_validator("cited", mode="before")
    @classmethod
    def _cited(cls, value):
        if isinstance(value, str):
            value = [v for v in value.replace(";", ",").split(",")]
        if isinstance(value, list):
            return [str(v).strip().strip("[]").strip() for v in value if str(v).strip()]
        return value


def _line(alias: str, item: Evidence) -> str:
    where = f" (line {item.line})" if item.line is not None else ""
    memory = ", from memory" if item.from_memory else ""
    reliability = f"reliability {item.trust.reliability:.2f}" if item.trust is not None else "reliability n/a"
    text = " ".join(item.text.split())
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + " …"
    return f"[{alias}] {item.title}{where} — {item.source}{memory}, {reliability}: {text}"


class LLMJudge:
    """``judge(claim, evidence, entities) -> Verdict`` with a chat model (same shape as ``OfflineJudge``)."""

    backend = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        config: JudgeConfig,
        *,
        method: str = "json_schema",
        prompts_dir: Path | None = None,
        check: JudgeCheck = "strict",
    ):
        self.config = config
        self.check = check  # how the stance model's reading checks the answer (MERMAID_JUDGE_CHECK)
        self.prompt = load_prompt("judge", PROMPT_PLACEHOLDERS, prompts_dir)
        self.ask = StructuredCaller(model, LLMVerdict, method=method, what="verdict")

    async def judge(self, claim: str, evidence: list[Evidence], entities: list[str] | None = None) -> Verdict:
        return (await self.read(claim, evidence, entities)).verdict(self.check)

    async def read(self, claim: str, evidence: list[Evidence], entities: list[str] | None = None) -> JudgeReading:
        """The model's answer on the evidence, beside the stance model's reading of it: what every setting of
        the check decides from (``JudgeReading.verdict``)."""
        entities = entities or []
        offline = decide(evidence, self.config, entities, claim)  # conflict and stance strengths
        if not evidence:
            return JudgeReading(offline, self.config, not_asked=True)
        # text planted to steer a checker (an instruction, a ruling on the claim, the claim handed back)
        # weighs nothing offline; the model never reads it
        shown = [item for item in annotate(evidence, self.config, claim, entities) if not is_planted(item, claim)]
        shown = shown[:MAX_SHOWN]
        if not shown:
            return JudgeReading(offline, self.config, not_asked=True)
        by_alias = {f"E{i}": item for i, item in enumerate(shown, 1)}
        by_id = {item.id: item for item in shown}
        ids = ", ".join(by_alias)

        def resolve(cited: str) -> Evidence | None:
            return by_alias.get(cited.upper()) or by_id.get(cited)

        def check(answer: LLMVerdict) -> None:
            unknown = [c for c in answer.cited if resolve(c) is None]
            if unknown:
                raise ValueError(f"unknown evidence id(s) {', '.join(unknown)}; the listed ids are {ids}")
            if answer.label != Label.NOT_ENOUGH_INFO.value and not answer.cited:
                raise ValueError(f"a {answer.label} verdict must cite at least one evidence id")

        messages = [
            SystemMessage(self.prompt.render("system")),
            HumanMessage(
                self.prompt.render(
                    "user", claim=claim, ids=ids, evidence="\n".join(_line(a, e) for a, e in by_alias.items())
                )
            ),
        ]
        try:
            answer = await self.ask(
                messages, repair=lambda error: self.prompt.render("repair", error=error, ids=ids), validate=check
            )
        except LLMOutputError as exc:
            return JudgeReading(offline, self.config, failure=str(exc))

        cited = list({item.id: item for c in answer.cited if (item := resolve(c)) is not None}.values())
        return JudgeReading(
            offline,
            self.config,
            answer=LLMAnswer(
                label=Label(answer.label), confidence=answer.confidence, reasoning=answer.reasoning, cited=cited
            ),
            coverage=topic_coverage(evidence, entities, claim),
        )


@dataclass(frozen=True)
class JudgeReading:
    """What the LLM judge read: the stance model's verdict on the evidence (``offline``) and the model's answer
    (None when it was not asked, or gave no usable answer: ``failure``)."""

    offline: Verdict
    config: JudgeConfig
    answer: LLMAnswer | None = None
    coverage: float = 0.0
    not_asked: bool = False
    failure: str | None = None

    def verdict(self, check: JudgeCheck) -> Verdict:
        """The verdict under the stance check ``check`` (``verdict_from_llm_answer``)."""
        if self.not_asked:
            return self.offline.model_copy(update={"reason": self.offline.reason + " (the LLM judge was not asked)"})
        if self.answer is None:
            return stance_reading_kept(self.offline, f"the LLM judge gave no usable verdict ({self.failure})")
        return verdict_from_llm_answer(self.offline, self.answer, self.coverage, self.config, check)
