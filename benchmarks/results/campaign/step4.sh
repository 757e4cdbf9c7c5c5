#!/bin/bash
# Issue 58's campaign, step 4: step 3a's recipe (the only step-3 recipe that beat c2), run in one
# session so that nothing is left in runs/ when the machine is renewed.
# Its first run (2026-12-05, the 2-core AVX2 machine, fp32 at 0.8 steps/s, spread over two
# sessions) labelled the data below and reached step 4,750 of 6,000 before the machine was
# renewed and runs/ went with it. This run (2026-12-05/06) is on a 2-core AMD EPYC with AVX-512
# VNNI and BF16, step 2's and 3a's kind: the same labels, remade from their seeds and batch
# counts, then 8,000 bf16 steps as in 3a. Every command resumes where it stopped: rerun the
# script (`step4.sh --resume` passes --resume to the training once it has a checkpoint).
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
mkdir -p runs/camp
git show 3696b06:nets/zerosum-6x64-c2.onnx > runs/camp/c2.onnx
git show 3696b06:nets/zerosum-6x64-c2-int8.onnx > runs/camp/c2-int8.onnx
# 1. Held-out records, if this machine lacks them (the sets every card quotes):
[ -d runs/sf-heldout/a ] || python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
[ -d runs/sf-heldout/b ] || python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 2. Labels, 3,000 nodes a position, both cores, nothing else running: seed 64's batches 0-237
#    (679,057 positions) and step 3b's seed-63 batches 0-223 (625,643), neither seen by c2. Given
#    as batch counts, so that a rerun labels nothing it has and a new machine remakes the same data.
python -m trainer sf-campaign --dir runs/camp/s4 --workers 2 --nodes 3000 --seed 64 --batches 238
python -m trainer sf-campaign --dir runs/camp/s3 --workers 2 --nodes 3000 --seed 63 --batches 224
# 3. Training: from c2, every parameter, batch 256, AdamW 5e-4 cosine to step 8,000, bf16, both
#    seeds' data (1,304,700 positions; 2,048,000 samples, 1.6 passes).
python -m trainer train --data runs/camp/s3/data runs/camp/s4/data --init runs/camp/c2.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 8000 --lr 5e-4 --seed 4 \
  --checkpoint-every 1000 --keep 2 --out runs/camp/s4-train --export runs/camp/c4.onnx "$@"
python -m trainer quantize runs/camp/c4.onnx --out runs/camp/c4-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search, and the Strategic Test Suite at 100 ms (a 2-minute screen; see README):
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c2.onnx runs/camp/c4.onnx \
  runs/camp/c4-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step4-heldout.jsonl
PYTHONPATH=. python benchmarks/sts.py --net runs/camp/c4.onnx --ms 100 --json runs/camp/c4-sts.json
# 5. Against c2 at 10+0.1, one game at a time, nothing else running, the engine's defaults:
python -m trainer match --weights1 runs/camp/c4.onnx --name1 campaign-c4 \
  --weights2 runs/camp/c2.onnx --name2 c2 --tc 10+0.1 --games 100 \
  --pgn runs/camp/c4-vs-c2.pgn --json $N/c4-vs-c2.json --resume --no-progress
