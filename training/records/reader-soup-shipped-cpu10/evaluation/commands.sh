#!/usr/bin/env bash
# the shipped reader and the tenth CPU run averaged with equal weights (a "WiSE-FT" average of a model and its own
# fine-tuned copy); 2-core AMD EPYC, avx2 avx512f avx512bw avx512_vnni avx_vnni avx512_bf16 (no AMX), torch
# 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory (the job's architecture and ONNX names):
cd training && python - <<'PY'
import json, sys
sys.path[:0] = [".", ".."]
from pathlib import Path
import reader_job
from reader_model import student_from_onnx
job = Path("runs/cpu9/job")
names = reader_job.job_names(job, json.loads((job / "manifest.json").read_text()))
tokenizer, model, _, _ = student_from_onnx(json.loads((job / "config.json").read_text()), reader_job.SHIPPED, 320, names)
model.save_pretrained("runs/soup10/shipped-final"); tokenizer.save_pretrained("runs/soup10/shipped-final")
PY
cd ..
PYTHONPATH=.:training python training/soup.py --model training/runs/soup10/shipped-final --model training/runs/cpu10/run/final \
    --run-dir training/runs/soup10/run --pairs training/runs/cpu10/run/pairs
bash training/runs/eval_today.sh soup10 training/runs/soup10/run/model training/runs/cpu10/run/pairs
# the average read in float: its final/ exported with train_stance.export_fp32 into training/runs/soup10/float-model
# (tokenizer.json and stance_config.json copied from its int8 model/), then the grounding steps of eval_today.sh with
# MERMAID_STANCE_MODEL=training/runs/soup10/float-model -> evaluation/grounding-float.txt
