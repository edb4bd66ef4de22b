#!/usr/bin/env bash
# the shipped reader and the twenty-ninth CPU run averaged with equal weights, decided before any figure of the
# run was read; 2-core Intel Xeon (family 6 model 207, Emerald Rapids), avx2 avx512f avx512bw avx512_vnni avx_vnni
# avx512_bf16 amx_int8 amx_bf16, torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory (the job's architecture and ONNX names):
python - <<'PY'
import json
from pathlib import Path
from training import reader_job
from training.reader_model import student_from_onnx
job = Path("training/runs/cpu29/job")
names = reader_job.job_names(job, json.loads((job / "manifest.json").read_text()))
tokenizer, model, _, _ = student_from_onnx(json.loads((job / "config.json").read_text()), reader_job.SHIPPED, 320, names)
model.save_pretrained("training/runs/soup29/shipped-final"); tokenizer.save_pretrained("training/runs/soup29/shipped-final")
PY
python -m training.soup --model training/runs/soup29/shipped-final --model training/runs/cpu29/run/final \
    --run-dir training/runs/soup29/run --pairs training/runs/cpu29/pairs
# every check, against the shipped reader's (../../reader-job-cpu29/evaluation/commands.sh for the shipped side):
python -m bench.reader_checks run --name soup29 --model-dir training/runs/soup29/run/model \
    --pairs training/runs/cpu29/pairs --out E
python -m bench.reader_checks table --out E --baseline shipped --candidate soup29 --json E/soup29-rule.json
# claims binned by length against the shipped reader (soup29-grounding-by-length.json):
python -m bench.grounding_compare --ledger E/soup29-grounding.jsonl.gz --against E/shipped-grounding.jsonl.gz --by-length
