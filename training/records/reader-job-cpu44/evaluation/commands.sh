#!/usr/bin/env bash
# the forty-fourth CPU run of the reader: the forty-third run's job to the byte (the stated twins, the own-page and
# topic-near NOT ENOUGH INFO pairs at three quarters of their share, the same replay and options) with one change,
# seed 44, so a different draw of 26,400 pairs and a different order. What it measures: how far a second seed of the
# one job that kept every pair file and the contrast set moves the checks it lost (FEVER end to end, WiCE across
# halves, LFQA's AUROC). 2-core Intel Xeon (family 6 model 207, Emerald Rapids) with avx2 avx512f avx512bw
# avx512_vnni avx_vnni avx512_bf16 amx_int8 amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by the job.
# the job: ../../reader-job-cpu43/evaluation/commands.sh up to `reader_job prepare` (training/runs/cpu43/job), copied:
cp -a training/runs/cpu43/job training/runs/cpu44/job
nohup python -m training.reader_job train --job training/runs/cpu44/job --out training/runs/cpu44/out \
    --work training/runs/cpu44/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 44 &
python -m training.reader_job import --returned training/runs/cpu44/out --job training/runs/cpu44/job \
    --run-dir training/runs/cpu44/run
# every check of the shipping rule, against the shipped reader's in E2 with today's claim extraction
# (../../reader-job-cpu43/evaluation/commands.sh says how E2/shippedc-* and E3/conj2-grounding.jsonl.gz are made):
python -m bench.reader_checks run --name cpu44 --model-dir training/runs/cpu44/run/model --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shippedc --candidate cpu44 --json E2/cpu44-rule.json
python -m bench.grounding_compare --ledger E2/cpu44-grounding.jsonl.gz --against E3/conj2-grounding.jsonl.gz --by-length
