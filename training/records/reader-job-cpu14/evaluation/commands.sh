#!/usr/bin/env bash
# the fourteenth CPU run of the reader: the eleventh run's recipe and mix (from the shipped model, quantisation-aware,
# --keep-shipped agreeing, lr 1.5e-5) with the holder pairs twice: a single-valued slot given to one subject and
# claimed of another; 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX),
# torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by itself
python -m training.holder_pairs --shared ../shared/data --work training/runs/holder --seed 13
# (at d2f6fc5) 1,998 training pairs f470099d7c1d17be, 359 validation pairs 7785e9fe8a2d92df; 11 s
mkdir -p training/runs/cpu14/pairs && cp -P training/runs/cpu11/pairs/* training/runs/cpu14/pairs/ \
    && ln -s ../../holder/pairs_train_holder.jsonl ../../holder/pairs_validation_holder.jsonl training/runs/cpu14/pairs/
python -m training.reader_job prepare --pairs training/runs/cpu14/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_holder.jsonl --replay-ratio 1 --seed 15 \
    --out training/runs/cpu14/job --no-carry-model
# 42,710 rows; 1,650 steps of 16 (a seeded sample of 26,400)
nohup python -m training.reader_job train --job training/runs/cpu14/job --out training/runs/cpu14/out \
    --work training/runs/cpu14/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --score-limit 40 &
python -m training.reader_job import --returned training/runs/cpu14/out --job training/runs/cpu14/job \
    --run-dir training/runs/cpu14/run
# then bash training/runs/eval_today.sh cpu14 training/runs/cpu14/run/model training/runs/cpu14/pairs (the steps listed
# in training/records/reader-job-cpu8/evaluation/commands.sh, with python -m), and grounding dev read whole:
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/training/runs/cpu14/run/model python -m bench.grounding run \
    --data ../shared/data --out training/runs/fullground/cpu14.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/cpu14.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
# FEVER tuning parts claim by claim against the shipped reader (both runs' results.jsonl cut to the 1,287
# validation + calibration claims of training/splits/fever_paper_dev.json):
python -m bench.compare_runs shipped-valcal.jsonl cpu14-valcal.jsonl
