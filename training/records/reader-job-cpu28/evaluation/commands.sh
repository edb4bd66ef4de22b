#!/usr/bin/env bash
# the twenty-eighth CPU run of the reader: the twenty-seventh run's mix, recipe and machine with one change: the
# replay file's SUPPORTS pairs whose claimed rank (first, 2nd) the evidence names among two or more ranks (278 pairs,
# three times) and whose claimed number other than a year it names among two or more numbers (1,379 pairs, twice),
# the replay share held at 47,519 rows; seed 28; 2-core Intel Xeon (Ice Lake server), avx2 avx512f avx512bw
# avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0, fp32 chosen by itself
# the pairs as the twenty-seventh run built them (../../reader-job-cpu27/evaluation/commands.sh, every line up to
# its pick of the years), linked into this run's pairs folder, then:
mkdir -p training/runs/cpu28/pairs && (cd training/runs/cpu28/pairs && for f in ../../cpu27/pairs/*.jsonl; do \
    ln -s "$(readlink -f $f)" .; done)
O="--origin fever-gold --origin fever --origin feverous --origin vitaminc_real --origin factcheck-bench \
    --origin climate-fever --origin synthetic"
python -m training.pick_pairs training/runs/full/pairs/pairs_train.jsonl $O --label SUPPORTS --ordinals-among 2 \
    --seed 28 --out training/runs/cpu28/pairs/pairs_train_ordinals.jsonl
# 278 pairs, sha256 26bf4f34308354c6… (VitaminC 125, FEVEROUS 74, synthetic 44, FEVER gold 14, Factcheck-Bench 14,
# Climate-FEVER 4, FEVER 3)
python -m training.pick_pairs training/runs/full/pairs/pairs_train.jsonl $O --label SUPPORTS --numbers-among 2 \
    --seed 28 --out training/runs/cpu28/pairs/pairs_train_numbers.jsonl
# 1,379 pairs, sha256 64ece8e31bfa896a… (VitaminC 814, synthetic 257, FEVEROUS 228, Climate-FEVER 28,
# Factcheck-Bench 22, FEVER gold 21, FEVER 9)
python -m training.reader_job prepare --pairs training/runs/cpu28/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl --extra-file pairs_train_years.jsonl \
    --extra-file pairs_train_ordinals.jsonl --extra-file pairs_train_ordinals.jsonl \
    --extra-file pairs_train_ordinals.jsonl --extra-file pairs_train_numbers.jsonl --extra-file pairs_train_numbers.jsonl \
    --origin-share reader-own-page-nei=0.5 --origin-share reader-topic-near-nei=0.5 \
    --replay-ratio 0.868541 --seed 28 --out training/runs/cpu28/job --no-carry-model
# 102,230 rows (54,711 pair rows, 47,519 replayed), train.jsonl sha256 7c087f720b9e6314…; 1,650 steps of 16
nohup python -m training.reader_job train --job training/runs/cpu28/job --out training/runs/cpu28/out \
    --work training/runs/cpu28/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 --seed 28 &
python -m training.reader_job import --returned training/runs/cpu28/out --job training/runs/cpu28/job \
    --run-dir training/runs/cpu28/run
# the checks, for NAME/MODEL = shipped/data/stance_model and cpu28/training/runs/cpu28/run/model (E: this folder)
for f in training/runs/cpu28/pairs/pairs_validation*.jsonl; do
    python -m bench.stance_pairs $f --model-dir MODEL --out E/NAME-$(basename $f .jsonl).json
done
python -m bench.given_evidence contrast --model-dir MODEL --out E/NAME-contrast.json
mermaid-verifier doctor --model-dir MODEL
MERMAID_STANCE_MODEL=$PWD/MODEL mermaid-verifier fever ../shared/data/fever/paper_dev.jsonl \
    --corpus ../shared/data/corpus/wiki_sentences.jsonl --split training/splits/fever_paper_dev.json --part train \
    --part validation --part calibration --no-memory --out runs/NAME-paper-dev
python -m scripts.evaluate_scoring runs/NAME-paper-dev/results.jsonl --fit-on-train --max-risk 0.30
# claim by claim on the validation and calibration parts (the rows of those parts of each run's results.jsonl)
python -m bench.compare_runs SHIPPED-VAL-CAL.jsonl CPU28-VAL-CAL.jsonl
# grounding dev read whole, against the shipped reader's kept ledger
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/MODEL python -m bench.grounding run --data ../shared/data \
    --out training/runs/fullground/cpu28.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/cpu28.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
python -m bench.grounding score --ledger training/runs/fullground/cpu28.jsonl.gz
# the shipped reader's figures from the same checks on this Xeon: ../../reader-job-cpu18/evaluation/shipped-*
# (MODEL data/stance_model); probes.txt: the probe pairs, each read under its page's title
# mean readings of the held-out VitaminC file by gold label (cpu28-vitaminc-means.json; the shipped, twenty-second
# and twenty-third runs' in ../../reader-job-cpu23/evaluation/*-vitaminc-means.json and that run's new-*.json)
python -m bench.stance_pairs training/runs/cpu28/pairs/pairs_validation_vitaminc.jsonl --model-dir MODEL \
    --out E/NAME-vitaminc-means.json
