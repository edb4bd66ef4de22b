#!/usr/bin/env bash
# the forty-first, forty-second and forty-third CPU runs at a third of the weight each (one job's stated twins with
# the own-page and topic-near NOT ENOUGH INFO pairs at half, all and three quarters of their share; seeds 41, 42,
# 43), decided before any figure of the forty-third run was read; 2-core Intel Xeon (family 6 model 207, Emerald
# Rapids), avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 amx_int8 amx_bf16, torch 2.13.0+cpu, onnxruntime
# 1.32.0. The runs: ../../reader-job-cpu41/, ../../reader-job-cpu42/ and ../../reader-job-cpu43/ evaluation/commands.sh
python -m training.soup --model training/runs/cpu41/run/final=1 --model training/runs/cpu42/run/final=1 \
    --model training/runs/cpu43/run/final=1 --run-dir training/runs/soup414243/run --pairs training/runs/cpu29/pairs
# every check, against the shipped reader's in E2 with today's claim extraction (../../reader-job-cpu43/evaluation/commands.sh):
python -m bench.reader_checks run --name soup414243 --model-dir training/runs/soup414243/run/model \
    --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shippedc --candidate soup414243 --json E2/soup414243-rule.json
python -m bench.grounding_compare --ledger E2/soup414243-grounding.jsonl.gz --against E3/conj2-grounding.jsonl.gz --by-length
