#!/usr/bin/env bash
# the shipped reader (half the weight) averaged with the nineteenth to twenty-second CPU runs (an eighth each);
# 2-core Intel Xeon (Ice Lake server), avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu,
# onnxruntime 1.32.0. The runs' float models as their records' commands.sh make them (training/runs/cpuNN/run/final);
# the shipped file's weights as a float model directory: as in ../../reader-soup-shipped-cpu18/evaluation/commands.sh
# (training/runs/soup18/shipped-final), then:
python -m training.soup --model training/runs/soup18/shipped-final=0.5 --model training/runs/cpu19/run/final=0.125 \
    --model training/runs/cpu20/run/final=0.125 --model training/runs/cpu21/run/final=0.125 \
    --model training/runs/cpu22/run/final=0.125 --run-dir training/runs/soupwide/run \
    --pairs training/runs/cpu22/pairs    # 6.0 min, beside another model's checks
# every check as in ../../reader-job-cpu22/evaluation/commands.sh with NAME soupwide and MODEL
# training/runs/soupwide/run/model: the pair files, the contrast set, doctor, the probes, FEVER's three parts with
# the judge refitted (scoring-new.txt), claim by claim on the validation and calibration parts, grounding dev
# read whole against the shipped reader's ledger
