#!/usr/bin/env bash
# the shipped reader and the forty-second CPU run at half the weight each, decided before any figure of the run was
# read; 2-core Intel Xeon (family 6 model 207, Emerald Rapids), avx2 avx512f avx512bw avx512_vnni avx_vnni
# avx512_bf16 amx_int8 amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0. The shipped file's weights as a float model
# directory: ../../reader-soup-shipped-cpu29/evaluation/commands.sh (training/runs/soup29/shipped-final)
python -m training.soup --model training/runs/soup29/shipped-final=0.5 --model training/runs/cpu42/run/final=0.5 \
    --run-dir training/runs/soup42/run --pairs training/runs/cpu29/pairs
# every check, against the shipped reader's in E2 (../../reader-job-cpu37/evaluation/commands.sh):
python -m bench.reader_checks run --name soup42 --model-dir training/runs/soup42/run/model \
    --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shipped --candidate soup42 --json E2/soup42-rule.json
python -m bench.grounding_compare --ledger E2/soup42-grounding.jsonl.gz --against E2/shipped-grounding.jsonl.gz --by-length
