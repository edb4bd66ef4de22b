#!/usr/bin/env bash
# the twenty-ninth CPU run of the reader: the twenty-seventh run's job to the byte (the same pairs, mix and
# train.jsonl, sha256 c70e290f15fc5006…) trained with another seed (29) on another CPU kind, in bf16: 2-core Intel
# Xeon (family 6 model 207, Emerald Rapids) with avx2 avx512_vnni avx512_bf16 amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0, bf16
# chosen by the job itself. What it measures: how much of the twenty-seventh run's figures (and of the gap to the
# twenty-eighth) a seed and the machine move with the data held fixed.
# the pairs, every line of ../../reader-job-cpu27/evaluation/commands.sh up to `reader_job prepare` with cpu29 for
# cpu27 (the whole build, the reader, SciFact, value, list, holder, anchor and place pairs, the twins, the years),
# then the same prepare (sha256 of what it wrote, unpacked: train.jsonl c70e290f15fc5006…, the twenty-seventh run's):
python -m training.reader_job prepare --pairs training/runs/cpu29/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl \
    --origin-share reader-own-page-nei=0.5 --origin-share reader-topic-near-nei=0.5 \
    --replay-ratio 0.93042 --seed 27 --out training/runs/cpu29/job --no-carry-model
nohup python -m training.reader_job train --job training/runs/cpu29/job --out training/runs/cpu29/out \
    --work training/runs/cpu29/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 29 &
python -m training.reader_job import --returned training/runs/cpu29/out --job training/runs/cpu29/job \
    --run-dir training/runs/cpu29/run
# every check of the shipping rule for the shipped reader and for the run (E: a scratch folder; what is kept of it is
# in this folder): the pair files with each pair's reading, the contrast set with each claim's, doctor, FEVER's train,
# validation and calibration parts end to end with the judge refitted on the train part, grounding dev read whole.
# The shipped reader's FEVER run was made anew here (5.4 min; shipped-paper-dev-tuning.jsonl.gz, its tuning parts'
# verdicts); its grounding ledger is the kept one (training/records/grounding-full-dev/shipped-ledger.jsonl.gz,
# copied to E/shipped-grounding.jsonl.gz with an E/shipped-grounding.jsonl.gz.done beside it)
python -m bench.reader_checks run --name shipped --pairs training/runs/cpu29/pairs --out E
python -m bench.reader_checks run --name cpu29 --model-dir training/runs/cpu29/run/model --pairs training/runs/cpu29/pairs --out E
python -m bench.reader_checks table --out E --baseline shipped --candidate cpu29 --json E/cpu29-rule.json
# claims binned by length against the shipped reader (cpu29-grounding-by-length.json):
python -m bench.grounding_compare --ledger E/cpu29-grounding.jsonl.gz --against E/shipped-grounding.jsonl.gz --by-length
