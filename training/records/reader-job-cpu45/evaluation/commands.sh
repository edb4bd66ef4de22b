#!/usr/bin/env bash
# the forty-fifth CPU run of the reader: the forty-third run's job with one more pair file, the other-value pairs
# (training/other_value_pairs.py: an occupation of another kind, or another work, that the evidence does not give ->
# NOT ENOUGH INFO, each beside its supported twin; 886 train rows, weighed three times), seed 45. What it measures:
# whether pairs of that shape lower the FEVER NOT ENOUGH INFO claims read REFUTES whose passage does not settle them
# (bench/nei_readings.py) without losing the pair files, the contrast set or grounding. 2-core Intel Xeon (family 6
# model 207, Emerald Rapids) with avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 amx_int8 amx_bf16, torch
# 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by the job itself.
# the other-value pairs, from the passage pairs and the replay of the full build
# (../../reader-job-cpu27/evaluation/commands.sh; train sha256 b65e1c1d…, validation 94829219…, 124 rows):
# the builder as it stood at commit 90195e3 (it has since been mended: groups skipped, works from named subjects only,
# a cap per page, a pair and its twin in one part, so today's builder writes other bytes; at 90195e3 an untitled pair
# and its twin were placed apart, so 22 of the 124 validation rows share their evidence with a training row):
git show 90195e3:training/other_value_pairs.py > /tmp/other_value_pairs_90195e3.py
PYTHONPATH=. python /tmp/other_value_pairs_90195e3.py training/runs/full/pairs/pairs_train_reader.jsonl \
    training/runs/full/pairs/pairs_train.jsonl --seed 45 --out training/runs/cpu45/other
# the pairs: ../../reader-job-cpu41/evaluation/commands.sh up to `reader_job prepare` (training/runs/cpu41/pairs),
# copied, with the other-value pairs beside them:
cp -a training/runs/cpu41/pairs training/runs/cpu45/pairs
cp training/runs/cpu45/other/pairs_train_other.jsonl training/runs/cpu45/pairs/
python -m training.reader_job prepare --pairs training/runs/cpu45/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --extra-file pairs_train_stated.jsonl --extra-file pairs_train_stated.jsonl \
    --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl \
    --extra-file pairs_train_other.jsonl --extra-file pairs_train_other.jsonl --extra-file pairs_train_other.jsonl \
    --origin-share reader-own-page-nei=0.75 --origin-share reader-topic-near-nei=0.75 \
    --replay-ratio 0.93042 --seed 27 --out training/runs/cpu45/job --no-carry-model
nohup python -m training.reader_job train --job training/runs/cpu45/job --out training/runs/cpu45/out \
    --work training/runs/cpu45/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 45 &
python -m training.reader_job import --returned training/runs/cpu45/out --job training/runs/cpu45/job \
    --run-dir training/runs/cpu45/run
# the other-value validation pairs, read by the shipped reader and by this one (not a check of the shipping rule:
# the file is of the shape this run was given):
python -m bench.stance_pairs training/runs/cpu45/other/pairs_validation_other.jsonl --out E5/shipped-other.json \
    --readings E5/shipped-other.readings.jsonl.gz
python -m bench.stance_pairs training/runs/cpu45/other/pairs_validation_other.jsonl --model-dir training/runs/cpu45/run/model \
    --out E5/cpu45-other.json --readings E5/cpu45-other.readings.jsonl.gz
# every check of the shipping rule, against the shipped reader's in E2 (E2/shippedc-* -> E2/shipped-*), its grounding
# ledger made with today's claim extraction (E3/where-grounding.jsonl.gz, docs/evaluation.md; scored with
# `python -m bench.grounding score --ledger E3/where-grounding.jsonl.gz`) linked in as E2/shippedc-grounding*:
python -m bench.reader_checks run --name cpu45 --model-dir training/runs/cpu45/run/model --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shippedc --candidate cpu45 --json E2/cpu45-rule.json
python -m bench.grounding_compare --ledger E2/cpu45-grounding.jsonl.gz --against E3/where-grounding.jsonl.gz --by-length
python -m bench.nei_readings --run shipped=E2/shipped-paper-dev-tuning.jsonl.gz --run cpu45=E2/cpu45-paper-dev-tuning.jsonl.gz
