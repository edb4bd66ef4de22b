#!/usr/bin/env bash
# the shipped reader at half the weight and the twenty-ninth and thirty-third CPU runs (the same job, seeds 29 and
# 33) at a quarter each, decided before any figure of the thirty-third run was read; 2-core Intel Xeon (family 6
# model 207, Emerald Rapids), avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 amx_int8 amx_bf16, torch
# 2.13.0+cpu, onnxruntime 1.32.0. The shipped file's weights as a float model directory:
# ../../reader-soup-shipped-cpu29/evaluation/commands.sh (training/runs/soup29/shipped-final)
python -m training.soup --model training/runs/soup29/shipped-final=0.5 --model training/runs/cpu29/run/final=0.25 \
    --model training/runs/cpu33/run/final=0.25 --run-dir training/runs/soup33/run --pairs training/runs/cpu29/pairs
# every check, against the shipped reader's (../../reader-job-cpu29/evaluation/commands.sh for the shipped side):
python -m bench.reader_checks run --name soup33 --model-dir training/runs/soup33/run/model \
    --pairs training/runs/cpu29/pairs --out E
python -m bench.reader_checks table --out E --baseline shipped --candidate soup33 --json E/soup33-rule.json
python -m bench.grounding_compare --ledger E/soup33-grounding.jsonl.gz --against E/shipped-grounding.jsonl.gz --by-length
# FEVER's gold sentences read alone: ../../reader-job-cpu33/evaluation/gold_readings.json
