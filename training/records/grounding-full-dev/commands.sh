#!/usr/bin/env bash
# grounding dev read whole (every WiCE dev claim, 349, and every LFQA dev answer, 200: 1,262 sentences), as the
# shipping rule's `bench.grounding run` reads it without --limit, for the shipped reader and five candidates; each
# ledger extended from the one its evaluation wrote on the first 200 WiCE claims and 78 LFQA answers (texts already
# read are not read again); 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX),
# onnxruntime 1.32.0; 3-6 min a reader
for pair in shipped=data/stance_model cpu10=training/runs/cpu10/run/model cpu11=training/runs/cpu11/run/model \
    cpu12=training/runs/cpu12/run/model cpu13=training/runs/cpu13/run/model soup10=training/runs/soup10/run/model; do
  name=${pair%%=*}; model=$PWD/${pair#*=}
  MERMAID_SOURCES=local MERMAID_STANCE_MODEL=$model python -m bench.grounding run --data ../shared/data \
      --out training/runs/fullground/$name.jsonl.gz --sets wice lfqa
  python -m bench.grounding score --ledger training/runs/fullground/$name.jsonl.gz > $name.score.json
  python -m bench.grounding_compare --ledger training/runs/fullground/$name.jsonl.gz \
      --against training/records/grounding-full-dev/shipped-ledger.jsonl.gz > $name.compare.json
done
# the across-halves figure's own spread (not kept as a script): 20 draws of the texts within each half, both ledgers
# on the same draw, bench.grounding.halves on each: run 10 against the shipped reader, LFQA difference 5-95 %
# -0.036 … +0.030, WiCE -0.087 … +0.016
# the shipped reader's ledger read again whole by one build (every text of both sets in one run, on a 2-core Intel
# Xeon, avx2 avx512f avx512bw avx512_vnni, no avx512_bf16; 549 texts in 529 s): the ledger kept before had its first
# 200 WiCE claims and 78 LFQA answers read by an earlier build and the rest extended later, and differed from this
# read on 83 of those WiCE claims and 3 of those answers (AUROC WiCE 0.756 -> 0.757, LFQA 0.862 -> 0.866; the
# comparison of the two ledgers is shipped-reread.compare.json). shipped-ledger.jsonl.gz, its run file and
# shipped.score.json are now this read: a candidate read whole by the same build is compared with it alone.
MERMAID_SOURCES=local python -m bench.grounding run --data ../shared/data --out shipped-ledger.jsonl.gz --sets wice lfqa
python -m bench.grounding score --ledger shipped-ledger.jsonl.gz > shipped.score.json
python -m bench.grounding_compare --ledger shipped-ledger.jsonl.gz --against OLD-shipped-ledger.jsonl.gz > shipped-reread.compare.json
