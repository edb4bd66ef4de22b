#!/usr/bin/env bash
# the shipped reader averaged with the tenth, eleventh and twelfth CPU runs, the shipped one holding half the weight
# (3:1:1:1; soup10's average held the shipped reader and the tenth run alone); 2-core AMD EPYC, avx2 avx512f
# avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0; 3.5 min
# training/runs/soup10/shipped-final: the shipped file's weights as a float model (training/records/reader-soup-shipped-cpu10)
PYTHONPATH=.:training python training/soup.py --model training/runs/soup10/shipped-final=3 \
    --model training/runs/cpu10/run/final=1 --model training/runs/cpu11/run/final=1 --model training/runs/cpu12/run/final=1 \
    --run-dir training/runs/soup13/run --pairs training/runs/cpu12/run/pairs
bash training/runs/eval_today.sh soup13 training/runs/soup13/run/model training/runs/cpu12/run/pairs
