#!/usr/bin/env bash
# the thirty-seventh CPU run of the reader: the twenty-seventh, twenty-ninth and thirty-third runs' job to the byte (the
# same pairs, mix and train.jsonl, sha256 c70e290f15fc5006…) trained with a fourth seed (37), in bf16 on the same CPU
# kind: 2-core Intel Xeon (family 6 model 207, Emerald Rapids) with avx2 avx512_vnni avx512_bf16 amx_bf16, torch
# 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by the job itself. What it measures: a fourth draw of what a seed
# moves with the data held fixed.
# the pairs and the job folder: ../../reader-job-cpu29/evaluation/commands.sh up to `reader_job prepare` (the same
# training/runs/cpu29/job is trained again here)
nohup python -m training.reader_job train --job training/runs/cpu29/job --out training/runs/cpu37/out \
    --work training/runs/cpu37/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 37 &
python -m training.reader_job import --returned training/runs/cpu37/out --job training/runs/cpu29/job \
    --run-dir training/runs/cpu37/run
# every check of the shipping rule (E: the scratch folder of ../../reader-job-cpu29/evaluation/commands.sh, which
# holds the shipped reader's checks; here copied into E2, whose shipped grounding was first read with the claim
# splitting of commit 72852f4, not kept: bench/results/grounding/claim-splitting-not-kept.json):
mkdir -p E2 && cp -a E/shipped-* E2/
python -m bench.reader_checks run --name cpu37 --model-dir training/runs/cpu37/run/model --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shipped --candidate cpu37 --json E2/cpu37-rule.json
# the grounding ledgers' claims binned by length against the shipped reader's (bench.grounding_compare --by-length):
python -m bench.grounding_compare --ledger E2/cpu37-grounding.jsonl.gz --against E2/shipped-grounding.jsonl.gz --by-length
