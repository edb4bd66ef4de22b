#!/usr/bin/env bash
# the eleventh CPU run of the reader: the tenth run's recipe (quantisation-aware, --keep-shipped agreeing) on a new
# mix: the value pairs once (not three times) and the list pairs twice; 2-core AMD EPYC, avx2 avx512f avx512bw
# avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by itself
# the list pairs: 655 training pairs a973198ebc38bcf3, 60 validation pairs 40b1a760ef9b038b
python training/list_pairs.py --shared ../shared/data --work training/runs/list --seed 13
mkdir -p training/runs/cpu11/pairs && ln -s ../../full/pairs/*.jsonl ../../value3/pairs_*_value.jsonl \
    ../../list/pairs_*_list.jsonl training/runs/cpu11/pairs/
python training/reader_job.py prepare --pairs training/runs/cpu11/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --replay-ratio 1 --out training/runs/cpu11/job --no-carry-model
# 34,718 rows; 1,650 steps of 16 (a seeded sample of 26,400); 3,992 of them read otherwise than their label by the
# shipped file learn from the label alone
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu11/job --out training/runs/cpu11/out \
    --work training/runs/cpu11/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --score-limit 40 &
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu11/out --job training/runs/cpu11/job \
    --run-dir training/runs/cpu11/run
# the shipped model on the list file
python bench/stance_pairs.py training/runs/list/pairs_validation_list.jsonl --model-dir data/stance_model \
    --out shipped-pairs_validation_list.json
# then training/runs/eval_today.sh cpu11 training/runs/cpu11/run/model training/runs/cpu11/run/pairs: the steps listed
# in training/records/reader-job-cpu8/evaluation/commands.sh
