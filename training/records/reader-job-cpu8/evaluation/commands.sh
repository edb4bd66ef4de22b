#!/usr/bin/env bash
# the eighth CPU run of the reader: the sixth run's job (training/runs/cpu6/job: the fifth run's data with the value
# pairs of value_pool.py at commit 524a918 three times over; 24,693 rows, manifest in ../job_manifest.json), trained
# quantisation-aware (--quant-aware: s8 weights per channel and u8 inputs per token in every forward pass,
# straight-through gradients); 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX),
# torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by itself
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu6/job --out training/runs/cpu8/out \
    --device cpu --threads 2 --steps 1544 --seconds 2400 --deadline 4200 --epochs 1 --lr 1.5e-5 --batch-size 16 \
    --max-length 320 --quant-aware &
# the in-job scoring of the student was stopped after the weights were written (import scores the exported file)
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu8/out --job training/runs/cpu6/job \
    --run-dir training/runs/cpu8/run
# then training/runs/eval_today.sh cpu8 training/runs/cpu8/run/model training/runs/cpu8/run/pairs, which runs (MODEL,
# PAIRS as given; E this folder):
#   per-pair probes (probes.txt), for f in PAIRS/pairs_validation*.jsonl: bench/stance_pairs.py $f --model-dir MODEL
#   bench/given_evidence.py contrast --model-dir MODEL;  mermaid-verifier doctor --model-dir MODEL
#   MERMAID_STANCE_MODEL=MODEL mermaid-verifier fever ../shared/data/fever/paper_dev.jsonl --corpus \
#     ../shared/data/corpus/wiki_sentences.jsonl --split training/splits/fever_paper_dev.json --part train \
#     --part validation --part calibration --no-memory --out runs/cpu8-paper-dev
#   python scripts/evaluate_scoring.py runs/cpu8-paper-dev/results.jsonl --fit-on-train --max-risk 0.30
#   MERMAID_STANCE_MODEL=MODEL python bench/grounding.py run --data ../shared/data --out E/grounding_ledger.jsonl.gz \
#     --sets wice_deleted wice unmentioned --limit 200   (and --sets lfqa --limit 78), then bench/grounding.py score
# the shipped file's grounding with the same code: python bench/grounding.py score --ledger
#   bench/results/grounding/shipped-file/ledger.jsonl.gz
# the shipped judge's counts: the lines of Python in training/records/reader-job-cpu5/evaluation/commands.sh
