#!/usr/bin/env bash
# the thirty-third CPU run of the reader: the twenty-seventh and twenty-ninth runs' job to the byte (the same pairs,
# mix and train.jsonl, sha256 c70e290f15fc5006…) trained with a third seed (33), in bf16 on the same CPU kind as the
# twenty-ninth: 2-core Intel Xeon (family 6 model 207, Emerald Rapids) with avx2 avx512_vnni avx512_bf16 amx_bf16,
# torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by the job itself. What it measures: a third draw of what a seed
# moves with the data held fixed, and (../../reader-soup-shipped-cpu29-33/) whether averaging two seeds' runs with
# the shipped reader holds what one seed's run gains.
# the pairs and the job folder: ../../reader-job-cpu29/evaluation/commands.sh up to `reader_job prepare` (the same
# training/runs/cpu29/job is trained again here)
nohup python -m training.reader_job train --job training/runs/cpu29/job --out training/runs/cpu33/out \
    --work training/runs/cpu33/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 33 &
python -m training.reader_job import --returned training/runs/cpu33/out --job training/runs/cpu29/job \
    --run-dir training/runs/cpu33/run
# every check of the shipping rule (E: the scratch folder of ../../reader-job-cpu29/evaluation/commands.sh, which
# holds the shipped reader's checks):
python -m bench.reader_checks run --name cpu33 --model-dir training/runs/cpu33/run/model --pairs training/runs/cpu29/pairs --out E
python -m bench.reader_checks table --out E --baseline shipped --candidate cpu33 --json E/cpu33-rule.json
# the grounding ledgers' claims binned by length against the shipped reader's (bench.grounding_compare --by-length):
python -m bench.grounding_compare --ledger E/cpu33-grounding.jsonl.gz --against E/shipped-grounding.jsonl.gz --by-length
# FEVER's gold sentences read alone (gold_readings.json):
python -m bench.gold_readings --model-dir data/stance_model --model-dir training/runs/cpu33/run/model \
    --model-dir training/runs/soup33/run/model --out gold_readings.json
