#!/bin/bash
# Issue 58's campaign, step 4 (begun 2026-12-05 on the 2-core AVX2 machine of steps 3b and 3c,
# no GPU lent): step 3a's recipe, the only step-3 recipe that beat c2, spread over two sessions.
# Fresh 3,000-node labels (seed 64), plus step 3b's (seed 63), which c2 never saw. Then training
# from c2 at 5e-4 cosine for 6,000 steps (3a: 8,000). This CPU trains at about 0.66 steps/s in
# fp32, so the training runs about 2.5 hours and resumes from its checkpoints across sessions.
# Every command resumes where it stopped: rerun the script (`step4.sh --resume` passes --resume
# to the training once it has a checkpoint).
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
mkdir -p runs/camp
git show 3696b06:nets/zerosum-6x64-c2.onnx > runs/camp/c2.onnx
# 1. Labels, 3,000 nodes a position: seed 64's batches 0-237 (679,057 positions, 50 minutes on both
#    cores, run first as --minutes 50), and step 3b's seed-63 batches 0-223 (625,643). Given as
#    batch counts, so that a rerun labels nothing it has and a new machine remakes the same data
#    (the training resumes exactly only on the same data).
python -m trainer sf-campaign --dir runs/camp/s4 --workers 2 --nodes 3000 --seed 64 --batches 238
python -m trainer sf-campaign --dir runs/camp/s3 --workers 2 --nodes 3000 --seed 63 --batches 224
# 2. Training: from c2, every parameter, batch 256, AdamW 5e-4 cosine to step 6,000, fp32, both
#    steps' data. A checkpoint every 250 steps (about 6 minutes here).
python -m trainer train --data runs/camp/s3/data runs/camp/s4/data --init runs/camp/c2.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision fp32 --steps 6000 --lr 5e-4 --seed 4 \
  --checkpoint-every 250 --keep 2 --out runs/camp/s4-train --export runs/camp/c4.onnx "$@"
# 3. Held out, no search, and the Strategic Test Suite at 100 ms (a 2-minute screen; see README):
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c2.onnx runs/camp/c4.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step4-heldout.jsonl
PYTHONPATH=. python benchmarks/sts.py --net runs/camp/c4.onnx --ms 100 --json runs/camp/c4-sts.json
# 4. Against c2 at 10+0.1, one game at a time, nothing else running, the engine's defaults:
python -m trainer match --weights1 runs/camp/c4.onnx --name1 campaign-c4 \
  --weights2 runs/camp/c2.onnx --name2 c2 --tc 10+0.1 --games 100 \
  --pgn runs/camp/c4-vs-c2.pgn --json $N/c4-vs-c2.json --resume --no-progress
