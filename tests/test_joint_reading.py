"""Joint reading (bench/joint_reading.py, measured and not kept in the pipeline): which sentences are read together, in what order, and what the reader is asked."""

import asyncio

from bench import joint_reading
from mermaid_verifier.models import Evidence

is_joint, joint_candidates, joint_readings = (
    joint_reading.is_joint,
    joint_reading.joint_candidates,
    joint_reading.joint_readings,
)


def item(page: str, line: int, text: str, score: float, source: str = "local-corpus") -> Evidence:
    return Evidence(
        id=f"{page}:{line}",
        source=source,
        title=page.replace("_", " "),
        text=text,
        page=page,
        line=line,
        retrieval_score=score,
        stance_probabilities={"supports": 0.1, "refutes": 0.1, "neutral": 0.8},
    )


class ScriptedReader:
    """Answers every pair with the same probabilities and remembers what it was asked."""

    def __init__(self, answer: dict[str, float]):
        self.answer = answer
        self.asked: list[tuple[str, list[tuple[str, str]]]] = []

    async def aprobabilities(self, claim, evidence):
        self.asked.append((claim, evidence))
        return [dict(self.answer) for _ in evidence]


def test_two_sentences_of_one_page_are_read_together_in_page_order():
    evidence = [
        item("Ada_Lovelace", 4, "She studied with De Morgan.", 9.0),
        item("Charles_Babbage", 0, "Babbage was a mathematician.", 8.0),
        item("Ada_Lovelace", 0, "Ada Lovelace was born in London.", 7.0),
    ]
    reader = ScriptedReader({"supports": 0.9, "refutes": 0.02, "neutral": 0.08})
    joint = asyncio.run(joint_readings("Ada Lovelace was born in London and studied with De Morgan.", evidence, reader))
    assert len(joint) == 1
    (one,) = joint
    assert is_joint(one) and one.id == "joint:Ada_Lovelace:0+Ada_Lovelace:4"
    assert one.text == "Ada Lovelace was born in London. She studied with De Morgan."
    assert one.title == "Ada Lovelace" and one.page == "Ada_Lovelace" and one.line is None
    assert one.stance_probabilities == {"supports": 0.9, "refutes": 0.02, "neutral": 0.08}
    assert reader.asked == [
        (
            "Ada Lovelace was born in London and studied with De Morgan.",
            [("Ada Lovelace", "Ada Lovelace was born in London. She studied with De Morgan.")],
        )
    ]


def test_pages_with_one_sentence_are_not_read_again():
    evidence = [item("A", 0, "One.", 3.0), item("B", 0, "Two.", 2.0), item("A", 1, "Three.", 1.0, source="wikipedia")]
    reader = ScriptedReader({"supports": 0.5, "refutes": 0.0, "neutral": 0.5})
    assert asyncio.run(joint_readings("claim", evidence, reader)) == []
    assert reader.asked == []  # the model is not called when there is nothing to join


def test_at_most_three_sentences_the_best_ranked_ones():
    evidence = [item("P", line, f"Sentence {line}.", score) for line, score in [(0, 1.0), (1, 5.0), (2, 2.0), (3, 4.0)]]
    (joint,) = joint_candidates(evidence)
    assert joint.text == "Sentence 1. Sentence 2. Sentence 3."  # line 0 ranked last; page order kept
    assert joint.retrieval_score == 5.0 and joint.stance_probabilities is None


def test_joint_items_are_not_joined_again():
    evidence = [item("P", 0, "One.", 2.0), item("P", 1, "Two.", 1.0)]
    (joint,) = joint_candidates(evidence)
    again = joint_candidates(evidence + [joint])
    assert [e.id for e in again] == [joint.id]
