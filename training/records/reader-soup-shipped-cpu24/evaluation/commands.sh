#!/usr/bin/env bash
# the shipped reader and the twenty-fourth CPU run averaged with equal weights; 2-core Intel Xeon (Ice Lake server),
# avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory: as in ../../reader-soup-shipped-cpu18/evaluation/commands.sh
# (training/runs/soup18/shipped-final), then:
python -m training.soup --model training/runs/soup18/shipped-final --model training/runs/cpu24/run/final \
    --run-dir training/runs/soup24/run --pairs training/runs/cpu24/pairs
# the pair files, the contrast set, doctor and the probes as in ../../reader-job-cpu24/evaluation/commands.sh with
# NAME soup24 and MODEL training/runs/soup24/run/model; FEVER and grounding dev were stopped unread: the average
# already loses the passage and value files, and the cores went to the twenty-fifth run
