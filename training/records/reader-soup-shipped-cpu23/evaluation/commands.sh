#!/usr/bin/env bash
# the shipped reader and the twenty-third CPU run averaged with equal weights; 2-core Intel Xeon (Ice Lake server),
# avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), torch 2.13.0+cpu, onnxruntime 1.32.0
# the shipped file's weights as a float model directory: as in ../../reader-soup-shipped-cpu18/evaluation/commands.sh
# (training/runs/soup18/shipped-final), then:
python -m training.soup --model training/runs/soup18/shipped-final --model training/runs/cpu23/run/final \
    --run-dir training/runs/soup23/run --pairs training/runs/cpu23/pairs
# the pair files, the contrast set, doctor and the probes as in ../../reader-job-cpu23/evaluation/commands.sh with
# NAME soup23 and MODEL training/runs/soup23/run/model; FEVER and grounding dev were not run: the average already
# loses the passage file and the contrast set, and the cores went to the twenty-fourth run
