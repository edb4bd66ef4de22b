#!/usr/bin/env bash
# the twenty-seventh CPU run of the reader: the twenty-fifth run's mix, recipe and machine with one change: the
# replay file's SUPPORTS pairs whose claimed year the evidence names among two or more year mentions (FEVER gold,
# FEVER, FEVEROUS, VitaminC, Factcheck-Bench, Climate-FEVER, synthetic: 1,162 pairs) added three times, the replay
# share held at the twenty-fifth run's 47,519 rows; seed 27; 2-core Intel Xeon (Ice Lake server), avx2 avx512f
# avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, fp32 chosen by itself
python -m training.build_pairs --shared ../shared/data --work training/runs/full/pairs --seed 13   # the whole build: 3.8 minutes here
python -m training.reader_pairs --shared ../shared/data --work training/runs/full/pairs --seed 13
python -m training.scifact_passages --shared ../shared/data --work training/runs/full/pairs --seed 13
python -m training.value_pool --shared ../shared/data --work training/runs/value3 --seed 13
python -m training.list_pairs --shared ../shared/data --work training/runs/list --seed 13
python -m training.holder_pairs --shared ../shared/data --work training/runs/holder4 --seed 13
python -m training.anchor_pairs --shared ../shared/data --work training/runs/anchor1 --seed 13
python -m training.place_pairs --shared ../shared/data --work training/runs/place1 --seed 13
# every file as the job manifest's sources record it (pairs_train.jsonl 6073a5b4…, 96,983 rows; the rest the
# nineteenth and twentieth runs' bytes); the pairs folder holds no pairs_replay.jsonl, so the job replays pairs_train.jsonl
mkdir -p training/runs/cpu27/pairs && (cd training/runs/cpu27/pairs && ln -s ../../full/pairs/*.jsonl \
    ../../value3/pairs_*_value.jsonl ../../list/pairs_*_list.jsonl ../../holder4/pairs_*_holder.jsonl \
    ../../anchor1/pairs_train_anchor.jsonl ../../place1/pairs_*_place.jsonl . && rm -f pairs_replay.jsonl)
python -m training.pick_pairs training/runs/full/pairs/pairs_train.jsonl --origin scifact --origin fool_me_twice_dev \
    --origin vitaminc_real --origin feverous --origin factcheck-bench --origin contrast-paraphrase --label SUPPORTS \
    --per-origin 1000 --seed 23 --out training/runs/cpu27/pairs_train_worded.jsonl   # 3,954 pairs, sha256 8282a381…
python -m training.unstated_twins training/runs/cpu27/pairs_train_worded.jsonl \
    --pool training/runs/full/pairs/pairs_train.jsonl --seed 24 --out training/runs/cpu27/pairs/pairs_train_twins.jsonl
# 3,006 twins (948 pairs without a partner), sha256 74b28cdc…: the twenty-fourth run's bytes (remade, the same);
# the worded pairs stay outside the pairs folder and out of the mix
python -m training.pick_pairs training/runs/full/pairs/pairs_train.jsonl --origin fever-gold --origin fever \
    --origin feverous --origin vitaminc_real --origin factcheck-bench --origin climate-fever --origin synthetic \
    --label SUPPORTS --years-among 2 --seed 27 --out training/runs/cpu27/pairs/pairs_train_years.jsonl
# 1,162 pairs, sha256 513e5cb726b7b6f0… (VitaminC 481, FEVEROUS 402, synthetic 137, FEVER gold 51,
# Factcheck-Bench 48, Climate-FEVER 24, FEVER 19)
python -m training.reader_job prepare --pairs training/runs/cpu27/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl \
    --origin-share reader-own-page-nei=0.5 --origin-share reader-topic-near-nei=0.5 \
    --replay-ratio 0.93042 --seed 27 --out training/runs/cpu27/job --no-carry-model
# 98,592 rows (51,073 pair rows, 47,519 replayed: the twenty-fifth run's replay count), train.jsonl sha256
# c70e290f15fc5006…; 1,650 steps of 16 (a seeded sample of 26,400)
nohup python -m training.reader_job train --job training/runs/cpu27/job --out training/runs/cpu27/out \
    --work training/runs/cpu27/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 &
# (ran to the end: shipped readings at 45.8 pairs/s, 10.1 min; 1,650 steps in 62 min at 7.1 pairs/s, light work beside it)
python -m training.reader_job import --returned training/runs/cpu27/out --job training/runs/cpu27/job \
    --run-dir training/runs/cpu27/run
# the checks, for NAME/MODEL = shipped/data/stance_model and cpu27/training/runs/cpu27/run/model (E: this folder)
for f in training/runs/cpu27/pairs/pairs_validation*.jsonl; do
    python -m bench.stance_pairs $f --model-dir MODEL --out E/NAME-$(basename $f .jsonl).json
done
python -m bench.given_evidence contrast --model-dir MODEL --out E/NAME-contrast.json
mermaid-verifier doctor --model-dir MODEL
MERMAID_STANCE_MODEL=$PWD/MODEL mermaid-verifier fever ../shared/data/fever/paper_dev.jsonl \
    --corpus ../shared/data/corpus/wiki_sentences.jsonl --split training/splits/fever_paper_dev.json --part train \
    --part validation --part calibration --no-memory --out runs/NAME-paper-dev
python -m scripts.evaluate_scoring runs/NAME-paper-dev/results.jsonl --fit-on-train --max-risk 0.30
# claim by claim on the validation and calibration parts (the rows of those parts of each run's results.jsonl)
python -m bench.compare_runs SHIPPED-VAL-CAL.jsonl CPU27-VAL-CAL.jsonl
# grounding dev read whole, against the shipped reader's kept ledger
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/MODEL python -m bench.grounding run --data ../shared/data \
    --out training/runs/fullground/cpu27.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/cpu27.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
python -m bench.grounding score --ledger training/runs/fullground/cpu27.jsonl.gz
# the shipped reader's figures from the same checks on this Xeon: ../../reader-job-cpu18/evaluation/shipped-*
# (MODEL data/stance_model); probes.txt: the probe pairs, each read under its page's title
# mean readings of the held-out VitaminC file by gold label (cpu27-vitaminc-means.json; the shipped, twenty-second
# and twenty-third runs' in ../../reader-job-cpu23/evaluation/*-vitaminc-means.json and that run's new-*.json)
python -m bench.stance_pairs training/runs/cpu27/pairs/pairs_validation_vitaminc.jsonl --model-dir MODEL \
    --out E/NAME-vitaminc-means.json
