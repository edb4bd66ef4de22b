#!/usr/bin/env bash
# the thirteenth CPU run of the reader: a second pass from the eleventh run's reader (its int8 file as the starting
# weights and as the kept reading), on a fresh seeded sample of the eleventh run's mix with the value pairs three
# times (not once), at a lower learning rate (1e-5); 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni
# avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by itself
mkdir -p training/runs/cpu13 && cp -rP training/runs/cpu11/pairs training/runs/cpu13/pairs
PYTHONPATH=.:training python training/reader_job.py prepare --pairs training/runs/cpu13/pairs \
    --extra-file pairs_train_scifact.jsonl --extra-file pairs_train_value.jsonl --extra-file pairs_train_value.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --replay-ratio 1 --model-dir training/runs/cpu11/run/model --seed 14 --out training/runs/cpu13/job --no-carry-model
# 36,330 rows; 1,650 steps of 16 (a seeded sample of 26,400); 3,421 of them read otherwise than their label by the
# eleventh run's file learn from the label alone; 26,400 readings at 36-45 pairs/s (other work beside it), 26,400
# pairs trained at 13.2 pairs/s (33 min)
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu13/job --out training/runs/cpu13/out \
    --work training/runs/cpu13/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --score-limit 40 &
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu13/out --job training/runs/cpu13/job \
    --run-dir training/runs/cpu13/run
# then training/runs/eval_today.sh cpu13 training/runs/cpu13/run/model training/runs/cpu12/run/pairs: the steps listed
# in training/records/reader-job-cpu8/evaluation/commands.sh (since training/, bench/ and scripts/ became packages,
# each is python -m training.NAME / bench.NAME / scripts.NAME from the repository root, without PYTHONPATH)
