#!/usr/bin/env bash
# the twelfth CPU run of the reader: the eleventh run's mix with the grounding-shaped pairs twice, the shipped reading
# kept at 0.7 of the loss (--distill-weight 0.7) where the shipped file names the gold label; 2-core AMD EPYC, avx2
# avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by itself
# the grounding-shaped pairs: 177 training pairs 406b648a477a02a1, 23 validation pairs 2930a21be5a55445
python training/wice_rest_pairs.py --shared ../shared/data --work training/runs/wicerest --seed 13
mkdir -p training/runs/cpu12/pairs && ln -s ../../cpu11/pairs/*.jsonl ../../wicerest/pairs_*_wice_rest.jsonl \
    training/runs/cpu12/pairs/
python training/reader_job.py prepare --pairs training/runs/cpu12/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_wice_rest.jsonl --extra-file pairs_train_wice_rest.jsonl --replay-ratio 1 \
    --out training/runs/cpu12/job --no-carry-model
# 35,426 rows; 1,650 steps of 16 (a seeded sample of 26,400); 3,937 of them read otherwise by the shipped file learn
# from the label alone
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu12/job --out training/runs/cpu12/out \
    --work training/runs/cpu12/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 \
    --score-limit 40 &
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu12/out --job training/runs/cpu12/job \
    --run-dir training/runs/cpu12/run
# the shipped model on the grounding-shaped file
python bench/stance_pairs.py training/runs/wicerest/pairs_validation_wice_rest.jsonl --model-dir data/stance_model \
    --out shipped-pairs_validation_wice_rest.json
# then training/runs/eval_today.sh cpu12 training/runs/cpu12/run/model training/runs/cpu12/run/pairs: the steps listed
# in training/records/reader-job-cpu8/evaluation/commands.sh
