#!/usr/bin/env bash
# the forty-sixth CPU run of the reader: the forty-fifth run's job with the other-value pairs built again by the mended
# builder (training/other_value_pairs.py: bands and groups skipped, works only from named people who starred or
# appeared in them, at most three pairs from a page; 810 train rows, weighed three times), seed 46. What it measures:
# whether the forty-fifth run's losses (the value file, grounding across halves, LFQA AUROC) are the pairs' or the
# seed's, beside its FEVER gain. 2-core Intel Xeon (family 6 model 207, Emerald Rapids) with avx2 avx512f avx512bw
# avx512_vnni avx_vnni avx512_bf16 amx_int8 amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by the job.
# the other-value pairs, from the passage pairs and the replay of the full build
# (../../reader-job-cpu27/evaluation/commands.sh; train sha256 be427087…, 810 rows; validation b25d12fe…, 88 rows):
# the builder as it stood at commit 1e0a369 (since then a pair and its twin go to one part even when untitled; at
# 1e0a369 an untitled pair and its twin were placed apart, so 20 of the 88 validation rows share their evidence with
# a training row):
git show 1e0a369:training/other_value_pairs.py > /tmp/other_value_pairs_1e0a369.py
PYTHONPATH=. python /tmp/other_value_pairs_1e0a369.py training/runs/full/pairs/pairs_train_reader.jsonl \
    training/runs/full/pairs/pairs_train.jsonl --seed 46 --out training/runs/cpu46/other
# the pairs: ../../reader-job-cpu41/evaluation/commands.sh up to `reader_job prepare` (training/runs/cpu41/pairs),
# copied, with the other-value pairs beside them:
cp -a training/runs/cpu41/pairs training/runs/cpu46/pairs
cp training/runs/cpu46/other/pairs_train_other.jsonl training/runs/cpu46/pairs/
python -m training.reader_job prepare --pairs training/runs/cpu46/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --extra-file pairs_train_stated.jsonl --extra-file pairs_train_stated.jsonl \
    --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl \
    --extra-file pairs_train_other.jsonl --extra-file pairs_train_other.jsonl --extra-file pairs_train_other.jsonl \
    --origin-share reader-own-page-nei=0.75 --origin-share reader-topic-near-nei=0.75 \
    --replay-ratio 0.93042 --seed 27 --out training/runs/cpu46/job --no-carry-model
nohup python -m training.reader_job train --job training/runs/cpu46/job --out training/runs/cpu46/out \
    --work training/runs/cpu46/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 46 &
python -m training.reader_job import --returned training/runs/cpu46/out --job training/runs/cpu46/job \
    --run-dir training/runs/cpu46/run
# the new other-value validation pairs, read by the shipped reader, the forty-fifth run and this one (not a check of
# the shipping rule: the file is of the shape these runs were given):
for name in shipped cpu45 cpu46; do
    model=(); [ $name = shipped ] || model=(--model-dir training/runs/$name/run/model)
    python -m bench.stance_pairs training/runs/cpu46/other/pairs_validation_other.jsonl "${model[@]}" \
        --out E5/$name-other46.json --readings E5/$name-other46.readings.jsonl.gz
done
# every check of the shipping rule, against the shipped reader's in E2 (as in ../../reader-job-cpu45/evaluation/commands.sh):
python -m bench.reader_checks run --name cpu46 --model-dir training/runs/cpu46/run/model --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shippedc --candidate cpu46 --json E2/cpu46-rule.json
python -m bench.grounding_compare --ledger E2/cpu46-grounding.jsonl.gz --against E3/where-grounding.jsonl.gz --by-length
python -m bench.nei_readings --run shipped=E2/shipped-paper-dev-tuning.jsonl.gz --run cpu45=E2/cpu45-paper-dev-tuning.jsonl.gz \
    --run cpu46=E2/cpu46-paper-dev-tuning.jsonl.gz
