#!/usr/bin/env bash
# the second CPU run (one pass, lr 1e-5): the cheap checks first; the shipped model's figures are cpu1's
set -u
cd /work/main
. .venv/bin/activate
RUN=training/runs/cpu2
E=$RUN/eval
DATA=../shared/data
W=$DATA/corpus/wiki_sentences.jsonl
export MERMAID_SOURCES=local
t() { echo "== $(date +%T) $*" | tee -a $E/steps.log; }
t import
PYTHONPATH=.:training python training/reader_job.py import --returned $RUN/out --job training/runs/cpu1/job --run-dir $RUN/run --score-limit 200 > $E/import.log 2>&1 || { echo import failed; exit 1; }
NEW=$RUN/run/model
for f in $RUN/run/pairs/pairs_validation*.jsonl; do
  b=$(basename $f .jsonl)
  t "pairs $b"
  python bench/stance_pairs.py $f --model-dir $NEW --out $E/new-$b.json > $E/new-$b.txt 2>&1
done
t contrast
python bench/given_evidence.py contrast --model-dir $NEW --out $E/new-contrast.json > $E/new-contrast.txt 2>&1
t "fever new"
MERMAID_STANCE_MODEL=$NEW mermaid-verifier fever $DATA/fever/paper_dev.jsonl --corpus $W --split training/splits/fever_paper_dev.json --part train --part validation --part calibration --no-memory --out runs/cpu2-paper-dev > $E/fever-new.log 2>&1
python scripts/evaluate_scoring.py runs/cpu2-paper-dev/results.jsonl --fit-on-train --max-risk 0.30 > $E/scoring-new.txt 2>&1
t done
