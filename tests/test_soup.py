"""Weight averaging of stance models (training/soup.py; needs the ``training`` extra, skipped without torch)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
pytest.importorskip("transformers", reason="the training extra (transformers) is not installed")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "training"))

import soup  # noqa: E402


def test_weighted_mean_of_float_tensors_and_integer_buffers_kept():
    a = {"w": torch.tensor([1.0, 2.0]), "ids": torch.tensor([0, 1, 2])}
    b = {"w": torch.tensor([3.0, 6.0]), "ids": torch.tensor([0, 1, 2])}
    out = soup.average_states([a, b], [1.0, 3.0])
    assert torch.allclose(out["w"], torch.tensor([2.5, 5.0]))
    assert out["w"].dtype == torch.float32
    assert torch.equal(out["ids"], a["ids"])
    assert out["ids"] is not a["ids"]


def test_equal_weights_give_the_plain_mean_in_the_models_dtype():
    a = {"w": torch.tensor([1.0, 0.0], dtype=torch.bfloat16)}
    b = {"w": torch.tensor([0.0, 1.0], dtype=torch.bfloat16)}
    out = soup.average_states([a, b], [1.0, 1.0])
    assert out["w"].dtype == torch.bfloat16
    assert out["w"].tolist() == [0.5, 0.5]


@pytest.mark.parametrize(
    ("b", "message"),
    [
        ({"w": torch.zeros(2), "extra": torch.zeros(1)}, "other parameters"),
        ({"w": torch.zeros(3), "ids": torch.tensor([0, 1, 2])}, "shapes differ"),
        ({"w": torch.zeros(2), "ids": torch.tensor([0, 1, 3])}, "integer tensors differ"),
    ],
)
def test_models_of_different_make_are_refused(b, message):
    a = {"w": torch.zeros(2), "ids": torch.tensor([0, 1, 2])}
    with pytest.raises(ValueError, match=message):
        soup.average_states([a, b], [1.0, 1.0])


@pytest.mark.parametrize("text", ["run/final=abc", "run/final=0", "run/final=-1"])
def test_a_weight_must_be_a_positive_number(text):
    with pytest.raises(SystemExit, match="--model"):
        soup.parse_model(text)


def test_a_model_without_weight_counts_once():
    assert soup.parse_model("run/final") == (Path("run/final"), 1.0)
    assert soup.parse_model("run/final=2.5") == (Path("run/final"), 2.5)
