#!/usr/bin/env bash
# the shipped reader and the eighteenth CPU run averaged with equal weights; 2-core Intel Xeon (Ice Lake server),
# avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory (the job's architecture and ONNX names):
python - <<'PY'
import json
from pathlib import Path
from training import reader_job
from training.reader_model import student_from_onnx
job = Path("training/runs/cpu18/job")
names = reader_job.job_names(job, json.loads((job / "manifest.json").read_text()))
tokenizer, model, _, _ = student_from_onnx(json.loads((job / "config.json").read_text()), reader_job.SHIPPED, 320, names)
model.save_pretrained("training/runs/soup18/shipped-final"); tokenizer.save_pretrained("training/runs/soup18/shipped-final")
PY
python -m training.soup --model training/runs/soup18/shipped-final --model training/runs/cpu18/run/final \
    --run-dir training/runs/soup18/run --pairs training/runs/cpu18/pairs    # 2.5 min
# the checks as in ../../reader-job-cpu18/evaluation/commands.sh with MODEL training/runs/soup18/run/model: the pair
# files, the contrast set, doctor and the probes; FEVER and grounding were not run, the average having lost
# pairs_validation and the kinds file already
