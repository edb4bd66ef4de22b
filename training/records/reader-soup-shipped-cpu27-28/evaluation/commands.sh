#!/usr/bin/env bash
# the shipped reader (half) averaged with the twenty-seventh and twenty-eighth CPU runs (a quarter each), decided
# before any figure of the twenty-eighth run was read; 2-core Intel Xeon (Ice Lake server), avx2 avx512f avx512bw
# avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory: as in ../../reader-soup-shipped-cpu18/evaluation/commands.sh
# (training/runs/soup18/shipped-final); the runs' float weights from their imports
# (../../reader-job-cpu27/evaluation/commands.sh, ../../reader-job-cpu28/evaluation/commands.sh), then:
python -m training.soup --model training/runs/soup18/shipped-final=0.5 --model training/runs/cpu27/run/final=0.25 \
    --model training/runs/cpu28/run/final=0.25 --run-dir training/runs/soup28/run --pairs training/runs/cpu28/pairs
# (2.5 min, nothing beside it)
# every check as in ../../reader-job-cpu28/evaluation/commands.sh with NAME soup28 and MODEL
# training/runs/soup28/run/model: the pair files, the contrast set, doctor, the probes, FEVER's three parts with
# the judge refitted (scoring-new.txt), claim by claim on the validation and calibration parts, grounding dev
# read whole against the shipped reader's ledger, the VitaminC means
