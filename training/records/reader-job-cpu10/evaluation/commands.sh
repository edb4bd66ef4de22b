#!/usr/bin/env bash
# the tenth CPU run of the reader: the ninth run's job (quantisation-aware, the value pairs with their SUPPORTS twins
# three times over, the whole replay at a ratio of 1) with --keep-shipped agreeing: each training pair the shipped
# int8 file reads as its gold label keeps that reading (half the loss), the rest learn from the label alone;
# 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu,
# onnxruntime 1.32.0, bf16 chosen by itself
mkdir -p training/runs/cpu10
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu9/job --out training/runs/cpu10/out \
    --work training/runs/cpu10/out-work --device cpu --threads 2 --steps 1650 --seconds 2700 --deadline 4800 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --score-limit 40 &
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu10/out --job training/runs/cpu9/job \
    --run-dir training/runs/cpu10/run
# then training/runs/eval_today.sh cpu10 training/runs/cpu10/run/model training/runs/cpu10/run/pairs (the steps listed
# in training/records/reader-job-cpu8/evaluation/commands.sh)
# the contrast set with a judge refitted to each reader (as it would ship), the shipped reader's refitted on its run of
# today (runs/shipped-today-paper-dev: the eval_today.sh FEVER command with the bundled model):
#   python scripts/evaluate_scoring.py runs/NAME-paper-dev/results.jsonl --fit-on-train --decider "fitted + confidence model" \
#       --max-risk 0.20 --write-judge-config JUDGE/judge_config.json
#   then bench/given_evidence.py's contrast() with GivenEvidenceJudge(stance=StanceModel(MODEL), judge_config=<JUDGE's three
#   files, read as JudgeConfig.bundled reads data/>) -> evaluation/contrast-judge-refitted.json
