#!/usr/bin/env bash
# the forty-third and forty-fourth CPU runs at half the weight each (one job, seeds 43 and 44), decided before any
# figure of the forty-fourth run was read: two seeds of one job averaged, so that what one seed's draw and order put
# into the weights counts half; 2-core Intel Xeon (family 6 model 207, Emerald Rapids), avx2 avx512f avx512bw
# avx512_vnni avx_vnni avx512_bf16 amx_int8 amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0. The runs:
# ../../reader-job-cpu43/ and ../../reader-job-cpu44/ evaluation/commands.sh
python -m training.soup --model training/runs/cpu43/run/final=1 --model training/runs/cpu44/run/final=1 \
    --run-dir training/runs/soup4344/run --pairs training/runs/cpu29/pairs
# every check, against the shipped reader's in E2 with today's claim extraction (../../reader-job-cpu43/evaluation/commands.sh):
python -m bench.reader_checks run --name soup4344 --model-dir training/runs/soup4344/run/model \
    --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shippedc --candidate soup4344 --json E2/soup4344-rule.json
python -m bench.grounding_compare --ledger E2/soup4344-grounding.jsonl.gz --against E3/conj2-grounding.jsonl.gz --by-length
