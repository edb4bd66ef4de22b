#!/usr/bin/env bash
# the ninth CPU run of the reader: quantisation-aware (--quant-aware), the value pairs with their SUPPORTS twins
# three times over, the whole replay at a ratio of 1; 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni
# avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by itself
# the value pairs (commit b1d229d): 403 training pairs 71f271eb1a5a76ff, 54 validation pairs 6b762c51d2fb052f
python training/value_pool.py --shared ../shared/data --work training/runs/value3 --seed 13
mkdir -p training/runs/cpu9/pairs && ln -s ../../full/pairs/*.jsonl ../../value3/pairs_*_value.jsonl training/runs/cpu9/pairs/
python training/reader_job.py prepare --pairs training/runs/cpu9/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_value.jsonl --extra-file pairs_train_value.jsonl \
    --replay-ratio 1 --out training/runs/cpu9/job --no-carry-model
# 33,710 rows; 1,650 steps of 16 (a seeded sample of 26,400 of them); the in-job scoring on the first 40 rows of each
# file only (--score-limit 40: the figures below are the exported file's, read by eval_today.sh)
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu9/job --out training/runs/cpu9/out \
    --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4500 --epochs 1 --lr 1.5e-5 --batch-size 16 \
    --max-length 320 --quant-aware --score-limit 40 &
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu9/out --job training/runs/cpu9/job \
    --run-dir training/runs/cpu9/run
# the shipped model on the new value file
python bench/stance_pairs.py training/runs/cpu9/run/pairs/pairs_validation_value.jsonl --model-dir data/stance_model \
    --out shipped-pairs_validation_value.json
# then training/runs/eval_today.sh cpu9 training/runs/cpu9/run/model training/runs/cpu9/run/pairs: the steps listed in
# training/records/reader-job-cpu8/evaluation/commands.sh
