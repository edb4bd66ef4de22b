#!/usr/bin/env bash
# the shipped reader and the twenty-second CPU run averaged with equal weights; 2-core Intel Xeon (Ice Lake server),
# avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory: as in ../../reader-soup-shipped-cpu18/evaluation/commands.sh
# (training/runs/soup18/shipped-final), then:
python -m training.soup --model training/runs/soup18/shipped-final --model training/runs/cpu22/run/final \
    --run-dir training/runs/soup22/run --pairs training/runs/cpu22/pairs    # 6.6 min, beside the run's checks
# every check as in ../../reader-job-cpu22/evaluation/commands.sh with NAME soup22 and MODEL
# training/runs/soup22/run/model: the pair files, the contrast set, doctor, the probes, FEVER's three parts with
# the judge refitted (scoring-new.txt), claim by claim on the validation and calibration parts, grounding dev
# read whole against the shipped reader's ledger
