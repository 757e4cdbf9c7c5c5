#!/bin/bash
# Issue 58's campaign, step 3a (2026-12-04, written for the 2-core AMD EPYC with AVX-512 VNNI and
# BF16 of step 2): fresh 3,000-node labels (a new seed, 63), trained on from c2, the net step 2
# bundled.
# Each command resumes where it stopped. Its first labelling run (about 1.2 million positions) was
# lost with its machine before training. The second ran every step below (labels for 50 minutes)
# in the session of stop 66, which ended before committing: its held-out figures
# (step3a-heldout.jsonl) and its match against c2 (c3a-vs-c2.json, 46-21-33, +88.7 +/- 57.2) were
# left in the working tree, and the net c3 was lost with runs/ when the machine was renewed.
# step3b.sh is step 3 again on the next machine.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
mkdir -p runs/camp
# c2, the net this step trains on from (in nets/ while it is the default; its commit otherwise):
git show 3696b06:nets/zerosum-6x64-c2.onnx > runs/camp/c2.onnx
git show 3696b06:nets/zerosum-6x64-c2-int8.onnx > runs/camp/c2-int8.onnx
# 1. Labels: 50 minutes on both cores, nothing else running, 3,000 nodes a position, seed 63.
python -m trainer sf-campaign --dir runs/camp/s3 --workers 2 --nodes 3000 --seed 63 --minutes 50
# 2. Held-out records, if this machine lacks them (the sets every card quotes):
[ -d runs/sf-heldout/a ] || python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
[ -d runs/sf-heldout/b ] || python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 3. Training: from c2, every parameter, batch 256, AdamW 5e-4 cosine, bf16, this step's data only:
python -m trainer train --data runs/camp/s3/data --init runs/camp/c2.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 8000 --lr 5e-4 --checkpoint-every 1000 \
  --keep 2 --out runs/camp/s3-train --export runs/camp/c3.onnx
python -m trainer quantize runs/camp/c3.onnx --out runs/camp/c3-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search:
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c2.onnx runs/camp/c3.onnx \
  runs/camp/c3-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step3a-heldout.jsonl
# 5. Against c2 at 10+0.1, one game at a time, nothing else running, the engine's defaults:
python -m trainer match --weights1 runs/camp/c3.onnx --name1 campaign-c3 \
  --weights2 runs/camp/c2.onnx --name2 c2 --tc 10+0.1 --games 100 \
  --pgn runs/camp/c3-vs-c2.pgn --json $N/c3a-vs-c2.json --resume --no-progress
