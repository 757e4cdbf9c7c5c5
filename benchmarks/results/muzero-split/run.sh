#!/usr/bin/env bash
# Issue 60: MuZero with h = c2's stem only, f = c2's 6 blocks and heads, g (4 blocks) taught by
# consistency alone. Each stage resumes; run from the repository root.
set -euo pipefail
R=benchmarks/results/muzero-split
export PYTHONPATH=.
# 1. g alone, consistency and reward losses (about 50 min on 2 AVX2 cores)
[ -f runs/mz/s0.onnx ] || python -m trainer muzero-train --data runs/mz/train150 --out runs/mz/s0 \
  --init nets/zerosum-6x64-c2.onnx --init-repr-blocks 0 --dyn-blocks 4 --policy-weight 0 \
  --value-weight 0 --consistency-weight 1 --train-only dyn_ reward_ --steps 1200 \
  --total-steps 1200 --batch-size 128 --lr 2e-3 --warmup 50 --unroll 5 --q-weight 1.0 \
  --train-threads 2 --log-every 50 --checkpoint-every 200 --keep 2 --export runs/mz/s0.onnx \
  --resume
cp runs/mz/s0/train_log.jsonl $R/train_log.jsonl
# 2. consistency on held-out records (the last 8 files of step 3b's data)
[ -f $R/consistency-s0.jsonl ] || python benchmarks/muzero_consistency.py --net runs/mz/s0.onnx \
  --records runs/mz/held --max 300 --threads 2 > $R/consistency-s0.jsonl
# 3. 40 games against sunfish at 10+0.1, one at a time
python -m trainer match --weights1 runs/mz/s0.onnx --name1 muzero-s0 --sunfish --tc 10+0.1 \
  --games 40 --pgn $R/s0-vs-sunfish.pgn --json $R/s0-vs-sunfish.json --resume --no-progress
# 4. 400 nodes a move against c2 (the AlphaZero net whose h and f it is), both in fp32; a node
#    budget makes the result independent of the clock, so two games run at once
python -m trainer match --weights1 runs/mz/s0.onnx --name1 muzero-s0 \
  --weights2 nets/zerosum-6x64-c2.onnx --name2 c2-fp32 --option1 NNThreads=1 \
  --option2 NNThreads=1 Precision=fp32 --tc nodes=400 --games 200 --concurrency 2 \
  --pgn runs/mz/s0-vs-c2-400.pgn --json $R/s0-vs-c2-400.json --resume --no-progress
