#!/usr/bin/env bash
# the shipped reader and the seventeenth CPU run averaged with equal weights; 2-core AMD EPYC, avx2 avx512f avx512bw
# avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory: as in training/records/reader-soup-shipped-cpu10/evaluation/commands.sh
PYTHONPATH=.:training python training/soup.py --model training/runs/soup10/shipped-final --model training/runs/cpu17/run/final \
    --run-dir training/runs/soup17/run --pairs training/runs/cpu17/pairs
bash training/runs/eval_today.sh soup17 training/runs/soup17/run/model training/runs/cpu17/pairs
cp training/runs/soup17/eval/grounding_ledger.jsonl.gz training/runs/fullground/soup17.jsonl.gz
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/training/runs/soup17/run/model python -m bench.grounding run \
    --data ../shared/data --out training/runs/fullground/soup17.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/soup17.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
