#!/usr/bin/env bash
# the fifth CPU run of the reader: the third run's data (passage pairs + SciFact passages) with the replay drawn
# from the whole build_pairs.py output at a replay ratio of 0.5; 2-core AMD EPYC, avx2 avx512f avx512bw
# avx512_vnni avx_vnni avx512_bf16 (no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# (training/runs/full/pairs: build_pairs.py --seed 13 whole (pairs_train.jsonl 6073a5b4...), reader_pairs.py --seed 13,
#  scifact_passages.py --seed 13, as for the fourth run)
python training/reader_job.py prepare --pairs training/runs/full/pairs --extra-file pairs_train_scifact.jsonl \
    --replay-ratio 0.5 --out training/runs/cpu5/job --no-carry-model
PYTHONPATH=.:training nohup python training/reader_job.py train --job training/runs/cpu5/job --out training/runs/cpu5/out \
    --device cpu --threads 2 --seconds 1800 --epochs 1 --lr 1.5e-5 --batch-size 16 --max-length 320 &
PYTHONPATH=.:training python training/reader_job.py import --returned training/runs/cpu5/out --job training/runs/cpu5/job \
    --run-dir training/runs/cpu5/run
# then the evaluation below (eval_model.sh cpu5 training/runs/cpu5/run/model training/runs/cpu5/run/pairs); the
# shipped model's figures are those of training/records/reader-job-cpu1/evaluation (same CPU flags; FEVER with
# today's code in reader-job-cpu3/evaluation/scoring-shipped.txt). The shipped judge's figures (macro-F1, NOT ENOUGH
# INFO read REFUTES, REFUTES read NOT ENOUGH INFO) over the validation and calibration parts of a fever run:
#   python - runs/shipped-paper-dev runs/cpu5-paper-dev <<'PY'
#   import json, sys; from collections import Counter
#   part = json.load(open("training/splits/fever_paper_dev.json"))["assignment"]; L = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
#   for run in sys.argv[1:]:
#       c = Counter((r["gold"], r["verdict"]) for r in map(json.loads, open(run + "/results.jsonl"))
#                   if part.get(str(r["id"])) in ("validation", "calibration"))
#       f1 = [2 * c[l, l] / (2 * c[l, l] + sum(c[g, l] + c[l, g] for g in L if g != l)) for l in L]
#       print(run, round(sum(f1) / 3, 3), c["NOT ENOUGH INFO", "REFUTES"], c["REFUTES", "NOT ENOUGH INFO"])
#   PY
# evaluate one reader as the runtime reads it: eval_model.sh NAME MODEL_DIR PAIRS_DIR
# (pair files, contrast set, canaries, FEVER tuning parts end to end with the judge refitted, grounding with the
# code the committed shipped ledger was read with: worktree /tmp/wtb3 at b3d9d6f)
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
(cd /tmp/wtb3 && MERMAID_STANCE_MODEL=$M PYTHONPATH=/tmp/wtb3 python bench/grounding.py run --data /work/shared/data --out $ABS/$E/grounding_ledger.jsonl.gz --sets wice_deleted wice unmentioned --limit 200 > $ABS/$E/grounding-run.log 2>&1
 MERMAID_STANCE_MODEL=$M PYTHONPATH=/tmp/wtb3 python bench/grounding.py run --data /work/shared/data --out $ABS/$E/grounding_ledger.jsonl.gz --sets lfqa --limit 78 >> $ABS/$E/grounding-run.log 2>&1
 PYTHONPATH=/tmp/wtb3 python bench/grounding.py score --ledger $ABS/$E/grounding_ledger.jsonl.gz > $ABS/$E/grounding-new.txt 2>&1)
t done
