#!/usr/bin/env bash
# the shipped reader and the twenty-first CPU run averaged with equal weights; 2-core Intel Xeon (Ice Lake server),
# avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory: as in ../../reader-soup-shipped-cpu18/evaluation/commands.sh
# (training/runs/soup18/shipped-final), then:
python -m training.soup --model training/runs/soup18/shipped-final --model training/runs/cpu21/run/final \
    --run-dir training/runs/soup21/run --pairs training/runs/cpu21/pairs    # 2.6 min
# every check as in ../../reader-job-cpu21/evaluation/commands.sh with NAME soup21 and MODEL
# training/runs/soup21/run/model: the pair files, the contrast set, doctor, the probes, FEVER's three parts with
# the judge refitted (scoring-new.txt), claim by claim on the validation and calibration parts, grounding dev
# read whole against the shipped reader's ledger
