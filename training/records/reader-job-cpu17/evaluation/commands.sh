#!/usr/bin/env bash
# the seventeenth CPU run of the reader: the sixteenth run's mix (holder pairs once) with the anchor pairs twice
# (what grounding reads on a cited web page, learnt from the shipped model's reading alone); 2-core AMD EPYC,
# avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen
# by itself
cp -rP training/runs/cpu16/pairs training/runs/cpu17/pairs
python -m training.reader_job prepare --pairs training/runs/cpu17/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --replay-ratio 1 --seed 18 \
    --out training/runs/cpu17/job --no-carry-model
# 79,858 rows (39,929 pair rows, 39,929 replayed); 1,650 steps of 16 (a seeded sample of 26,400)
nohup python -m training.reader_job train --job training/runs/cpu17/job --out training/runs/cpu17/out \
    --work training/runs/cpu17/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --score-limit 40 &
python -m training.reader_job import --returned training/runs/cpu17/out --job training/runs/cpu17/job \
    --run-dir training/runs/cpu17/run
# then bash training/runs/eval_today.sh cpu17 training/runs/cpu17/run/model training/runs/cpu17/pairs, and grounding
# dev read whole, extending the evaluation's ledger:
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/training/runs/cpu17/run/model python -m bench.grounding run \
    --data ../shared/data --out training/runs/fullground/cpu17.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/cpu17.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
