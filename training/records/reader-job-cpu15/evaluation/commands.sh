#!/usr/bin/env bash
# the fifteenth CPU run of the reader: the fourteenth run's recipe with the fourth version of the holder pairs (the
# holder's slot of another place, the cast's loose claim, two named subjects in every form), twice; 2-core AMD EPYC,
# avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen
# by itself
python -m training.holder_pairs --shared ../shared/data --work training/runs/holder4 --seed 13
# (at eefe47b) 2,556 training pairs f682d16f99659e51, 462 validation pairs 16a57e2ae8ea277b; 12 s
mkdir -p training/runs/cpu15/pairs && cp -P training/runs/cpu11/pairs/* training/runs/cpu15/pairs/ \
    && ln -s ../../holder4/pairs_train_holder.jsonl ../../holder4/pairs_validation_holder.jsonl training/runs/cpu15/pairs/
python -m training.reader_job prepare --pairs training/runs/cpu15/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_holder.jsonl --replay-ratio 1 --seed 16 \
    --out training/runs/cpu15/job --no-carry-model
# 44,942 rows; 1,650 steps of 16 (a seeded sample of 26,400)
nohup python -m training.reader_job train --job training/runs/cpu15/job --out training/runs/cpu15/out \
    --work training/runs/cpu15/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --score-limit 40 &
python -m training.reader_job import --returned training/runs/cpu15/out --job training/runs/cpu15/job \
    --run-dir training/runs/cpu15/run
# then bash training/runs/eval_today.sh cpu15 training/runs/cpu15/run/model training/runs/cpu15/pairs, and grounding
# dev read whole, extending the evaluation's ledger:
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/training/runs/cpu15/run/model python -m bench.grounding run \
    --data ../shared/data --out training/runs/fullground/cpu15.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/cpu15.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
# each holder validation version read by the shipped reader and both runs:
python -m bench.stance_pairs training/runs/holder4/pairs_validation_holder.jsonl --model-dir MODEL --out OUT.json
