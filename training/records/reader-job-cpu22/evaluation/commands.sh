#!/usr/bin/env bash
# the twenty-second CPU run of the reader: the twenty-first run's mix, replay and recipe (its own average from half
# the planned steps on) with one change: half the passage file's own-page and topic-near NOT ENOUGH INFO pairs
# (prepare --origin-share reader-own-page-nei=0.5 --origin-share reader-topic-near-nei=0.5: 2,558 pairs fewer);
# seed 22; 2-core Intel Xeon (Ice Lake server), avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX),
# torch 2.13.0+cpu, onnxruntime 1.32.0, fp32 chosen by itself
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
mkdir -p training/runs/cpu22/pairs && (cd training/runs/cpu22/pairs && ln -s ../../full/pairs/*.jsonl \
    ../../value3/pairs_*_value.jsonl ../../list/pairs_*_list.jsonl ../../holder4/pairs_*_holder.jsonl \
    ../../anchor1/pairs_train_anchor.jsonl ../../place1/pairs_*_place.jsonl . && rm -f pairs_replay.jsonl)
python -m training.reader_job prepare --pairs training/runs/cpu22/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --origin-share reader-own-page-nei=0.5 --origin-share reader-topic-near-nei=0.5 \
    --replay-ratio 1 --seed 22 --out training/runs/cpu22/job --no-carry-model
# 82,992 rows (41,496 pair rows of 44,054 before the shares, 41,496 replayed); 1,650 steps of 16 (a seeded sample of 26,400)
nohup python -m training.reader_job train --job training/runs/cpu22/job --out training/runs/cpu22/out \
    --work training/runs/cpu22/out-work --device cpu --threads 2 --steps 1650 --seconds 5400 --deadline 7200 --epochs 1 \
    --lr 1.5e-5 --batch-size 16 --max-length 320 --quant-aware --keep-shipped agreeing --distill-weight 0.7 --score-limit 40 \
    --average-from 0.5 --average-every 10 &
# (stopped with SIGTERM at step 815 for a CI run on idle cores; the same command with --resume finished it from the
# checkpoint in training/runs/cpu22/out-work, the shipped readings read again)
python -m training.reader_job import --returned training/runs/cpu22/out --job training/runs/cpu22/job \
    --run-dir training/runs/cpu22/run
# the checks, for NAME/MODEL = shipped/data/stance_model and cpu22/training/runs/cpu22/run/model (E: this folder)
for f in training/runs/cpu22/pairs/pairs_validation*.jsonl; do
    python -m bench.stance_pairs $f --model-dir MODEL --out E/NAME-$(basename $f .jsonl).json
done
python -m bench.given_evidence contrast --model-dir MODEL --out E/NAME-contrast.json
mermaid-verifier doctor --model-dir MODEL
MERMAID_STANCE_MODEL=$PWD/MODEL mermaid-verifier fever ../shared/data/fever/paper_dev.jsonl \
    --corpus ../shared/data/corpus/wiki_sentences.jsonl --split training/splits/fever_paper_dev.json --part train \
    --part validation --part calibration --no-memory --out runs/NAME-paper-dev
python -m scripts.evaluate_scoring runs/NAME-paper-dev/results.jsonl --fit-on-train --max-risk 0.30
# claim by claim on the validation and calibration parts (the rows of those parts of each run's results.jsonl)
python -m bench.compare_runs SHIPPED-VAL-CAL.jsonl CPU22-VAL-CAL.jsonl
# grounding dev read whole, against the shipped reader's kept ledger
MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$PWD/MODEL python -m bench.grounding run --data ../shared/data \
    --out training/runs/fullground/cpu22.jsonl.gz --sets wice lfqa
python -m bench.grounding_compare --ledger training/runs/fullground/cpu22.jsonl.gz \
    --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz
python -m bench.grounding score --ledger training/runs/fullground/cpu22.jsonl.gz
# shipped-*.json, shipped-probes.txt, shipped-scoring.txt: the same checks for the shipped reader on this Xeon
# (MODEL data/stance_model); probes.txt / shipped-probes.txt: the probe pairs, each read under its page's title
# readings by origin and gold label on the replay file (training/runs/full/pairs/pairs_train.jsonl, 60 pairs a
# group, seed 13: 3,939 pairs), for NAME/MODEL = shipped/data/stance_model, cpu21, cpu22 and soup22 (their run/model):
python -m bench.stance_pairs training/runs/full/pairs/pairs_train.jsonl --per-group 60 --model-dir MODEL \
    --out E/replay-by-origin-NAME.json
