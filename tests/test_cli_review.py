"""`verify --review` and `mermaid-verifier review`: answer at once, or queue and resume later."""

import json

from typer.testing import CliRunner

from mermaid_verifier.cli import app
from mermaid_verifier.cli import review as cli_review

from .conftest import WIKI_MINI

CLAIM = "Stanley Kubrick directed 2001: A Space Odyssey."


def run(args, cache, input=None):
    result = CliRunner().invoke(app, [*args, "--cache-dir", str(cache)], input=input)
    assert result.exit_code == 0, result.output
    return result


def json_lines(output):
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def test_without_a_reviewer_the_claim_is_queued_then_reviewed_later(always_uncertain, monkeypatch):
    monkeypatch.setattr(cli_review, "reviewer_is_present", lambda: False)
    first = run(["verify", "--review", "--json", "--no-memory", "--corpus", str(WIKI_MINI), CLAIM], always_uncertain)
    [paused] = json_lines(first.stdout)
    assert paused["abstained"] is True and "queued for review" in first.output

    later = run(["review", "--json", "--corpus", str(WIKI_MINI)], always_uncertain, input="o\nr\nchecked the film\n")
    [reviewed] = json_lines(later.stdout)
    assert reviewed["verdict"] == "REFUTES" and reviewed["abstained"] is False
    assert "by a reviewer (checked the film)" in reviewed["reason"]
    assert "the review queue is empty" in run(["review", "--corpus", str(WIKI_MINI)], always_uncertain).output


def test_with_a_reviewer_present_the_answer_is_asked_at_once(always_uncertain, monkeypatch):
    monkeypatch.setattr(cli_review, "reviewer_is_present", lambda: True)
    result = run(
        ["verify", "--review", "--json", "--no-memory", "--corpus", str(WIKI_MINI), CLAIM],
        always_uncertain,
        input="a\n",
    )
    [answered] = json_lines(result.stdout)
    assert answered["abstained"] is False and "accepted by a reviewer" in answered["reason"]
    assert "review needed" in result.output


def test_paused_state_loads_our_records_even_where_unregistered_types_are_blocked():
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from mermaid_verifier.models import Decomposition, Label, Stats, Triplet, Verdict

    state = {
        "verdict": Verdict(label=Label.REFUTES, confidence=0.4, abstained=True, reason="unsure"),
        "decomposition": Decomposition(triplets=[Triplet(subject="Kubrick", relation="directed", object="2001")]),
        "stats": Stats(tool_calls=3),
    }
    ours = cli_review.checkpoint_serializer()
    assert ours.loads_typed(ours.dumps_typed(state)) == state
    strict = JsonPlusSerializer(allowed_msgpack_modules=None)  # what LangGraph will do by default
    assert strict.loads_typed(strict.dumps_typed(state)) != state  # so the allowlist is what keeps them
