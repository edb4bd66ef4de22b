#!/usr/bin/env bash
# the shipped reader and the twentieth CPU run averaged, 0.3 the shipped reader and 0.7 the run; 2-core Intel Xeon (Ice Lake server),
# avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory: as in ../../reader-soup-shipped-cpu18/evaluation/commands.sh
# (training/runs/soup18/shipped-final), then:
python -m training.soup --model training/runs/soup18/shipped-final=0.3 --model training/runs/cpu20/run/final=0.7 \
    --run-dir training/runs/soup20w/run --pairs training/runs/cpu20/pairs    # 2.5 min
# every check as in ../../reader-job-cpu20/evaluation/commands.sh with NAME soup20w and MODEL
# training/runs/soup20w/run/model: the pair files, the contrast set, doctor, the probes, FEVER's three parts with
# the judge refitted (scoring-new.txt), claim by claim on the validation and calibration parts, grounding dev
# read whole against the shipped reader's ledger
