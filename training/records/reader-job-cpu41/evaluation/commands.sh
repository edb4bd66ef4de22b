#!/usr/bin/env bash
# the forty-first CPU run of the reader: the twenty-ninth run's job (the same pairs, mix, options and replay) with one
# extra file, the stated twins (training/stated_twins.py: each SUPPORTS pair of the passage pairs and of the worded
# pairs whose evidence holds more than one sentence, its claim joined with "and" to another sentence the evidence
# states, labelled SUPPORTS), weighed as the unstated twins are (twice), and seed 41. What it measures: whether long
# claims stop reading as unsupported for their length alone (LFQA's ranking, lost by every run of that job) when a
# long joined claim is as often supported as not. 2-core Intel Xeon (family 6 model 207, Emerald Rapids) with avx2
# avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 amx_int8 amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0, bf16
# chosen by the job itself.
# the pairs: ../../reader-job-cpu29/evaluation/commands.sh up to `reader_job prepare` (training/runs/cpu29/pairs and
# training/runs/cpu29/pairs_train_worded.jsonl), copied, and the stated twins beside them (3,384 twins of 8,667
# SUPPORTS pairs; sha256 955b3893…):
cp -a training/runs/cpu29/pairs training/runs/cpu41/pairs
python -m training.stated_twins training/runs/cpu41/pairs/pairs_train_reader.jsonl \
    training/runs/cpu29/pairs_train_worded.jsonl --seed 41 --out training/runs/cpu41/pairs/pairs_train_stated.jsonl
python -m training.reader_job prepare --pairs training/runs/cpu41/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --extra-file pairs_train_stated.jsonl --extra-file pairs_train_stated.jsonl \
    --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl \
    --origin-share reader-own-page-nei=0.5 --origin-share reader-topic-near-nei=0.5 \
    --replay-ratio 0.93042 --seed 27 --out training/runs/cpu41/job --no-carry-model
nohup python -m training.reader_job train --job training/runs/cpu41/job --out training/runs/cpu41/out \
    --work training/runs/cpu41/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 41 &
python -m training.reader_job import --returned training/runs/cpu41/out --job training/runs/cpu41/job \
    --run-dir training/runs/cpu41/run
# every check of the shipping rule, against the shipped reader's in E2 (../../reader-job-cpu37/evaluation/commands.sh):
python -m bench.reader_checks run --name cpu41 --model-dir training/runs/cpu41/run/model --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shipped --candidate cpu41 --json E2/cpu41-rule.json
python -m bench.grounding_compare --ledger E2/cpu41-grounding.jsonl.gz --against E2/shipped-grounding.jsonl.gz --by-length
