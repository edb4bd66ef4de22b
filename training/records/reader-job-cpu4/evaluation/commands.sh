#!/usr/bin/env bash
# evaluation of the fourth CPU-trained reader (the third's data, replayed from the whole build_pairs.py pairs); the shipped model's figures on this CPU
# kind are those of training/records/reader-job-cpu1/evaluation (same flags: avx2 avx512f avx512bw avx512_vnni
# avx_vnni avx512_bf16), read with the same commands
set -u
cd /work/main
. .venv/bin/activate
RUN=training/runs/cpu4
E=$RUN/eval
DATA=../shared/data
W=$DATA/corpus/wiki_sentences.jsonl
export MERMAID_SOURCES=local
t() { echo "== $(date +%T) $*" | tee -a $E/steps.log; }
t import
PYTHONPATH=.:training python training/reader_job.py import --returned $RUN/out --job $RUN/job --run-dir $RUN/run > $E/import.log 2>&1 || { echo import failed; exit 1; }
NEW=$RUN/run/model
t probes
python - > $E/probes.txt 2>&1 <<'PY'
from mermaid_verifier.stance import StanceModel
pairs = [
 ("Toronto is the capital of Canada.", "Canada", "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."),
 ("Ottawa is the capital of Canada.", "Canada", "Its capital is Ottawa and its three largest metropolitan areas are Toronto, Montreal, and Vancouver."),
 ("Albert Einstein was born in 1879.", "Albert Einstein", "He received the 1921 Nobel Prize in Physics."),
 ("Albert Einstein was born in 1921.", "Albert Einstein", "He received the 1921 Nobel Prize in Physics."),
 ("Albert Einstein was born in 1921.", "Albert Einstein", "Albert Einstein was born on 14 March 1879 in Ulm. He received the 1921 Nobel Prize in Physics."),
]
for name, d in (("shipped", None), ("new", "training/runs/cpu4/run/model")):
    m = StanceModel(d) if d else StanceModel()
    for c, t, e in pairs:
        p = m.probabilities(c, [(t, e)])[0]
        print(name, c, "|", e[:60], {k: round(v, 3) for k, v in p.items()})
PY
for f in $RUN/run/pairs/pairs_validation*.jsonl; do
  b=$(basename $f .jsonl)
  t "pairs $b"
  python bench/stance_pairs.py $f --model-dir $NEW --out $E/new-$b.json > $E/new-$b.txt 2>&1
done
t contrast
python bench/given_evidence.py contrast --model-dir $NEW --out $E/new-contrast.json > $E/new-contrast.txt 2>&1
t doctor
mermaid-verifier doctor --model-dir $NEW > $E/doctor.txt 2>&1
t "fever new"
MERMAID_STANCE_MODEL=$NEW mermaid-verifier fever $DATA/fever/paper_dev.jsonl --corpus $W --split training/splits/fever_paper_dev.json --part train --part validation --part calibration --no-memory --out runs/cpu4-paper-dev > $E/fever-new.log 2>&1
python scripts/evaluate_scoring.py runs/cpu4-paper-dev/results.jsonl --fit-on-train --max-risk 0.30 > $E/scoring-new.txt 2>&1
t done
