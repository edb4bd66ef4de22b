#!/usr/bin/env bash
# the weight average of the third and fourth CPU runs (each a run's float final/, equal weights), exported as the
# runtime reads it, then read as every CPU run is (the fifth run's evaluation/commands.sh, eval_model.sh part);
# 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0
PYTHONPATH=.:training python training/soup.py --model training/runs/cpu3/run/final --model training/runs/cpu4/run/final \
    --run-dir training/runs/soup34/run --pairs training/runs/full/pairs
bash training/runs/eval_model.sh soup34 training/runs/soup34/run/model training/runs/full/pairs   # as in reader-job-cpu5
