#!/usr/bin/env bash
# the forty-third CPU run of the reader: the forty-second run's job (the twenty-ninth run's pairs and the stated
# twins, the same replay and options, the stated twins weighed twice) with the own-page and topic-near NOT ENOUGH
# INFO pairs of the passage pairs at three quarters of their share (the forty-first run took half, the forty-second
# all), seed 43. What it measures: whether a share between the two keeps the forty-second run's FEVER (its NOT
# ENOUGH INFO claims read REFUTES less often) and the forty-first run's LFQA ranking at once. 2-core Intel Xeon
# (family 6 model 207, Emerald Rapids) with avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 amx_int8
# amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0, bf16 chosen by the job itself.
# the pairs: ../../reader-job-cpu41/evaluation/commands.sh up to `reader_job prepare` (training/runs/cpu41/pairs:
# the twenty-ninth run's pairs and the stated twins, sha256 955b3893…), copied:
cp -a training/runs/cpu41/pairs training/runs/cpu43/pairs
python -m training.reader_job prepare --pairs training/runs/cpu43/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --extra-file pairs_train_stated.jsonl --extra-file pairs_train_stated.jsonl \
    --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl \
    --origin-share reader-own-page-nei=0.75 --origin-share reader-topic-near-nei=0.75 \
    --replay-ratio 0.93042 --seed 27 --out training/runs/cpu43/job --no-carry-model
nohup python -m training.reader_job train --job training/runs/cpu43/job --out training/runs/cpu43/out \
    --work training/runs/cpu43/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 43 &
python -m training.reader_job import --returned training/runs/cpu43/out --job training/runs/cpu43/job \
    --run-dir training/runs/cpu43/run
# every check of the shipping rule, against the shipped reader's in E2 (../../reader-job-cpu37/evaluation/commands.sh),
# with its grounding ledger made with today's claim extraction (E3/conj2-grounding.jsonl.gz: the shipped reader's
# ledger with the texts whose claims changed graded again, docs/evaluation.md "Conjunctions, relative clauses and
# misread sentences", and two more for the order of relative clauses: the ledger without their rows, then
# `MERMAID_SOURCES=local python -m bench.grounding run --data ../shared/data --out E3/conj2-grounding.jsonl.gz
# --sets wice lfqa` and `python -m bench.grounding score --ledger E3/conj2-grounding.jsonl.gz`), linked in as
# E2/shippedc-grounding* beside the shipped reader's other checks (E2/shippedc-* -> E2/shipped-*):
python -m bench.reader_checks run --name cpu43 --model-dir training/runs/cpu43/run/model --pairs training/runs/cpu29/pairs --out E2
python -m bench.reader_checks table --out E2 --baseline shippedc --candidate cpu43 --json E2/cpu43-rule.json
python -m bench.grounding_compare --ledger E2/cpu43-grounding.jsonl.gz --against E3/conj2-grounding.jsonl.gz --by-length
