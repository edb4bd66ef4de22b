#!/usr/bin/env bash
# the sixteenth CPU run of the reader: the fifteenth run's mix with the holder pairs once (not twice) and the anchor
# pairs (what grounding reads on a cited web page, learnt from the shipped model's reading alone); 2-core AMD EPYC,
# avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen
# by itself
python -m training.anchor_pairs --shared ../shared/data --work training/runs/anchor1 --seed 13
# (at 473cc17) 10,007 pairs (2,550 reader-anchor-claim, 7,457 reader-anchor-sentence) a0c2bfa518fb779c; 10 s
mkdir -p training/runs/cpu16/pairs && cp -P training/runs/cpu15/pairs/* training/runs/cpu16/pairs/ \
    && ln -s ../../anchor1/pairs_train_anchor.jsonl training/runs/cpu16/pairs/
python -m training.reader_job prepare --pairs training/runs/cpu16/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --replay-ratio 1 --seed 17 \
    --out training/runs/cpu16/job --no-carry-model
# 59,844 rows (29,922 pair rows, 29,922 replayed); 1,650 steps of 16 (a seeded sample of 26,400)
nohup python -m training.reader_job train --job training/runs/cpu16/job --out training/runs/cpu16/out \
    --work training/runs/cpu16/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --score-limit 40 &
python -m training.reader_job import --returned training/runs/cpu16/out --job training/runs/cpu16/job \
    --run-dir training/runs/cpu16/run
# then bash training/runs/eval_today.sh cpu16 training/runs/cpu16/run/model training/runs/cpu16/pairs, and grounding
# dev read whole, extending the evaluation's ledger:
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/training/runs/cpu16/run/model python -m bench.grounding run \
    --data ../shared/data --out training/runs/fullground/cpu16.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/cpu16.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
