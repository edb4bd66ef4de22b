#!/usr/bin/env bash
# the seventh CPU run of the reader: the sixth run's job with value_pool.py's pairs (built after the near_cue guard:
# 249 train / 34 validation pairs) ten times over; 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni
# avx512_bf16 (no AMX), torch 2.13.0+cpu. A test suite and a CI run shared the cores for part of it (log.txt).
python training/value_pool.py --shared ../shared/data --work training/runs/value2 --seed 13
mkdir -p training/runs/cpu7/pairs && ln -s ../../full/pairs/*.jsonl ../../value2/pairs_*_value.jsonl training/runs/cpu7/pairs/
python training/reader_job.py prepare --pairs training/runs/cpu7/pairs --extra-file pairs_train_scifact.jsonl \
    $(for i in $(seq 10); do echo --extra-file pairs_train_value.jsonl; done) --replay-ratio 0.5 --out training/runs/cpu7/job --no-carry-model
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu7/job --out training/runs/cpu7/out \
    --device cpu --threads 2 --steps 1701 --seconds 2700 --deadline 4500 --epochs 1 --lr 1.5e-5 --batch-size 16 --max-length 320 &
# not done: the import (the int8 export) ran out of the time left; the figures are the float student's (log.txt)
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu7/out --job training/runs/cpu7/job \
    --run-dir training/runs/cpu7/run
