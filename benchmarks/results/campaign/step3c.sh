#!/bin/bash
# Issue 58's campaign, step 3c (2026-12-05, the 2-core AVX2 machine of step 3b, fp32): c3b lost to
# c2 (36-40-24) after 1,800 steps, its value head behind c2's. Step 3a's c3, which beat c2, had
# 8,000 steps. So step 3c trains c3b on, on step 3b's data, for 2,400 more steps at half the
# learning rate (4,200 in all from c2). Needs step3b.sh's files (runs/camp/s3, c3b.onnx, c2.onnx).
# Rerun the training with --resume (passed on: `step3c.sh --resume`) to go on from its last
# checkpoint; the match resumes by itself.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
# 1. Training: from c3b, batch 256, AdamW 2.5e-4 cosine, fp32, a new sampling seed (step 3b's
#    drew its batches from seed 0), step 3b's data only.
python -m trainer train --data runs/camp/s3/data --init runs/camp/c3b.onnx \
  --batch-size 256 --schedule cosine --warmup 100 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision fp32 --steps 2400 --lr 2.5e-4 --seed 1 \
  --checkpoint-every 300 --keep 2 --out runs/camp/s3c-train --export runs/camp/c3c.onnx "$@"
python -m trainer quantize runs/camp/c3c.onnx --out runs/camp/c3c-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 2. Held out, no search:
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c2.onnx runs/camp/c3c.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b \
  | tee $N/step3c-heldout.jsonl
# 3. Against c2 at 10+0.1, one game at a time, nothing else running, the engine's defaults:
python -m trainer match --weights1 runs/camp/c3c.onnx --name1 campaign-c3c \
  --weights2 runs/camp/c2.onnx --name2 c2 --tc 10+0.1 --games 100 \
  --pgn runs/camp/c3c-vs-c2.pgn --json $N/c3c-vs-c2.json --resume --no-progress
