#!/usr/bin/env bash
# the reader job's second lent GPU (one NVIDIA H200, torch 2.11.0+cu130, transformers 5.17.0, Python 3.12.3): the
# twenty-fifth CPU run's mix (the same train.jsonl bytes, sha256 e6b4687b…), two students from the shipped model at lr
# 7.5e-6, each in one call: A over the whole mix (5,786 of 5,940 planned steps of 16 before the hard stop), B over
# run 25's seeded 1,650-step sample. Everything after the calls was read on a 2-core Intel Xeon (Ice Lake server),
# avx2 avx512f avx512bw avx512_vnni (no avx512_bf16, no AMX), onnxruntime 1.32.0.
# the pairs folder: ../reader-job-cpu25/commands.sh, up to its prepare; then the job carries the shipped model
python -m training.reader_job prepare --pairs training/runs/cpu25/pairs --extra-file pairs_train_scifact.jsonl \
    --extra-file pairs_train_value.jsonl --extra-file pairs_train_list.jsonl --extra-file pairs_train_list.jsonl \
    --extra-file pairs_train_holder.jsonl --extra-file pairs_train_anchor.jsonl --extra-file pairs_train_anchor.jsonl \
    --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl --extra-file pairs_train_place.jsonl \
    --extra-file pairs_train_twins.jsonl --extra-file pairs_train_twins.jsonl \
    --origin-share reader-own-page-nei=0.5 --origin-share reader-topic-near-nei=0.5 \
    --replay-ratio 1 --seed 25 --out training/runs/gpu26/job
# 95,038 rows, train.jsonl and every validation file the same SHA-256 as reader-job-cpu25's job; 51.7 MiB with
# model.onnx.xz; the tree 8.7 MiB once the tracked model is out of it
rm data/stance_model/model.onnx
# device call A (timeout_s 470; the machine's start, transfers and the job: 477 s of device time)
#   PYTHONUNBUFFERED=1 timeout -k 15 440 python3 -m training.reader_job train --job training/runs/gpu26/job --out $OUT \
#     --seconds 290 --deadline 420 --steps 5940 --epochs 1 --lr 7.5e-6 --batch-size 16 --max-length 320 --quant-aware \
#     --keep-shipped agreeing --distill-weight 0.7 --average-from 0.5 --average-every 10 --log-every 250
# (shipped readings in torch on the GPU at the int8 roundings, bf16: 95,038 pairs at 2,412 pairs/s; 15.6 steps/s
# probed, 310 pairs/s trained; the hard stop after 5,786 steps, 334 s; the mean of 282 weights from step 2,970)
# device call B, on the warm machine at once (timeout_s 235; 141 s more of device time)
#   PYTHONUNBUFFERED=1 timeout -k 10 215 python3 -m training.reader_job train --job training/runs/gpu26/job --out $OUT \
#     --seconds 120 --deadline 200 --steps 1650 --epochs 1 --lr 7.5e-6 --batch-size 16 --max-length 320 --quant-aware \
#     --keep-shipped agreeing --distill-weight 0.7 --average-from 0.5 --average-every 10 --log-every 250
# (26,400 pairs labelled at 2,779 pairs/s; 1,650 steps at 330 pairs/s; the mean of 83 weights from step 825)
git checkout -- data/stance_model/model.onnx
# each call's $OUT (log.txt, metrics.json: here device_log.txt, device_metrics.json; three student files) into
# training/runs/gpu26/outA and outB, then for V in A B:
python -m training.reader_job import --returned training/runs/gpu26/outV --job training/runs/gpu26/job \
    --run-dir training/runs/gpu26V/run
# the checks, each as in ../reader-job-cpu25/commands.sh, with NAME/MODEL = gpu26V/training/runs/gpu26V/run/model
# (the shipped reader's figures: ../reader-job-cpu18/evaluation/shipped-* and the twenty-fifth run's table);
# the FEVER run read with the bundled judge of this commit (other_relation_refutes 0)
# B was checked without grounding (it had lost the pair files); its claim-by-claim comparison was read from the
# validation and calibration rows of runs/gpu26B-paper-dev/results.jsonl against the shipped reader's
