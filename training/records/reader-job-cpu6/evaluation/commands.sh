#!/usr/bin/env bash
# the sixth CPU run of the reader: the fifth run's data (passage pairs + SciFact passages, replay from the whole
# build_pairs.py output at a ratio of 0.5) with value_pool.py's value-elsewhere pairs three times over; 2-core AMD
# EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# (training/runs/full/pairs as for the fifth run; the value pairs built with training/value_pool.py at commit
#  524a918, before the guard on values written right after the slot's word: 272 train / 37 validation pairs)
python training/value_pool.py --shared ../shared/data --work training/runs/value --seed 13
mkdir -p training/runs/cpu6/pairs && ln -s ../../full/pairs/*.jsonl ../../value/pairs_*_value.jsonl training/runs/cpu6/pairs/
python training/reader_job.py prepare --pairs training/runs/cpu6/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_value.jsonl --extra-file pairs_train_value.jsonl \
    --replay-ratio 0.5 --out training/runs/cpu6/job --no-carry-model
# a first start planned only 1,044 steps: tests ran beside its probe and halved the measured rate; restarted with
# the whole pass fixed (1,544 steps of 16 = every row once)
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu6/job --out training/runs/cpu6/out \
    --device cpu --threads 2 --steps 1544 --seconds 2400 --deadline 4200 --epochs 1 --lr 1.5e-5 --batch-size 16 --max-length 320 &
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu6/out --job training/runs/cpu6/job \
    --run-dir training/runs/cpu6/run
# the shipped model on the new validation file (the others: training/records/reader-job-cpu1/evaluation)
python bench/stance_pairs.py training/runs/cpu6/run/pairs/pairs_validation_value.jsonl --model-dir data/stance_model
# then the evaluation below (eval_today.sh cpu6 training/runs/cpu6/run/model training/runs/cpu6/run/pairs), the
# fifth run's with grounding read by today's code, so that it compares with bench/results/grounding/shipped-file/;
# the shipped judge's counts with the lines of Python in training/records/reader-job-cpu5/evaluation/commands.sh
#!/usr/bin/env bash
# evaluate one reader as the runtime reads it: eval_model.sh NAME MODEL_DIR PAIRS_DIR
# (pair files, contrast set, canaries, FEVER tuning parts end to end with the judge refitted, grounding with
# today's code, as bench/results/grounding/shipped-file/ was read)
set -u
cd /work/main
. .venv/bin/activate
NAME=$1; NEW=$2; PAIRS=$3
E=training/runs/$NAME/eval
mkdir -p $E
DATA=../shared/data
W=$DATA/corpus/wiki_sentences.jsonl
export MERMAID_SOURCES=local
t() { echo "== $(date +%T) $*" | tee -a $E/steps.log; }
t probes
python - "$NEW" > $E/probes.txt 2>&1 <<'PY'
import sys
from mermaid_verifier.stance import StanceModel
pairs = [
 ("Toronto is the capital of Canada.", "Canada", "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."),
 ("Ottawa is the capital of Canada.", "Canada", "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."),
 ("Albert Einstein was born in 1879.", "Albert Einstein", "He received the 1921 Nobel Prize in Physics."),
 ("Albert Einstein was born in 1921.", "Albert Einstein", "He received the 1921 Nobel Prize in Physics."),
 ("Albert Einstein was born in 1921.", "Albert Einstein", "Albert Einstein was born on 14 March 1879 in Ulm. He received the 1921 Nobel Prize in Physics."),
]
m = StanceModel(sys.argv[1])
for c, t, e in pairs:
    p = m.probabilities(c, [(t, e)])[0]
    print("new", c, "|", e[:60], {k: round(v, 3) for k, v in p.items()})
PY
for f in $PAIRS/pairs_validation*.jsonl; do
  b=$(basename $f .jsonl)
  t "pairs $b"
  python bench/stance_pairs.py $f --model-dir $NEW --out $E/new-$b.json > $E/new-$b.txt 2>&1
done
t contrast
python bench/given_evidence.py contrast --model-dir $NEW --out $E/new-contrast.json > $E/new-contrast.txt 2>&1
t doctor
mermaid-verifier doctor --model-dir $NEW > $E/doctor.txt 2>&1
t "fever new"
MERMAID_STANCE_MODEL=$NEW mermaid-verifier fever $DATA/fever/paper_dev.jsonl --corpus $W --split training/splits/fever_paper_dev.json --part train --part validation --part calibration --no-memory --out runs/$NAME-paper-dev > $E/fever-new.log 2>&1
python scripts/evaluate_scoring.py runs/$NAME-paper-dev/results.jsonl --fit-on-train --max-risk 0.30 > $E/scoring-new.txt 2>&1
t "grounding new"
ABS=/work/main
case $NEW in /*) M=$NEW;; *) M=$ABS/$NEW;; esac
(MERMAID_STANCE_MODEL=$M python bench/grounding.py run --data /work/shared/data --out $ABS/$E/grounding_ledger.jsonl.gz --sets wice_deleted wice unmentioned --limit 200 > $ABS/$E/grounding-run.log 2>&1
 MERMAID_STANCE_MODEL=$M python bench/grounding.py run --data /work/shared/data --out $ABS/$E/grounding_ledger.jsonl.gz --sets lfqa --limit 78 >> $ABS/$E/grounding-run.log 2>&1
 python bench/grounding.py score --ledger $ABS/$E/grounding_ledger.jsonl.gz > $ABS/$E/grounding-new.txt 2>&1)
t done
