#!/bin/bash
# Issue 58's campaign, step 7: step 6's recipe (fresh labels with side positions at 0.2, 8,000
# bf16 steps, the fresh data only) from c6, the shipped net, on a fresh seed, 67.
# Run in one session on the 2-core AVX-512 BF16 machine (2026-12-06). Every command resumes where
# it stopped: rerun the script (`step7.sh --resume` passes --resume to the training).
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
mkdir -p runs/camp
# c6 and its int8 copy (the match plays it, as the engine does on a CPU with int8 dot products)
# as shipped at 6a5cfcc; c4 for the off-path table.
for f in c6.onnx c6-int8.onnx; do
  [ -f runs/camp/$f ] || git show 6a5cfcc:nets/zerosum-6x64-$f > runs/camp/$f
done
[ -f runs/camp/c4.onnx ] || git show cb6ab95:nets/zerosum-6x64-c4.onnx > runs/camp/c4.onnx
# 1. Held-out records, if this machine lacks them (the sets every card quotes):
[ -d runs/sf-heldout/a ] || python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
[ -d runs/sf-heldout/b ] || python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 2. Labels, 3,000 nodes a position, both cores, nothing else running: a fresh seed, 67, with
#    side positions at 0.2, as many batches as step 6: batches 0-377, 1,231,608 positions in 37
#    minutes (05:57-06:34).
python -m trainer sf-campaign --dir runs/camp/s7 --workers 2 --nodes 3000 --seed 67 --side-p 0.2 \
  --batches 378
# 3. Training: from c6, every parameter, batch 256, AdamW 5e-4 cosine to step 8,000, bf16, the
#    fresh data only (as steps 3a and 4, the two that won).
python -m trainer train --data runs/camp/s7/data --init runs/camp/c6.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 8000 --lr 5e-4 --seed 7 \
  --checkpoint-every 1000 --keep 2 --out runs/camp/s7-train --export runs/camp/c7.onnx "$@"
python -m trainer quantize runs/camp/c7.onnx --out runs/camp/c7-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search; then off the teacher's path (1,000 held-out positions and a random
#    move's child of each, labelled at 8,000 nodes):
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c6.onnx runs/camp/c7.onnx \
  runs/camp/c7-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step7-heldout.jsonl
PYTHONPATH=. python benchmarks/offpath_value.py --records runs/sf-heldout/a runs/sf-heldout/b \
  --max 1000 --nets runs/camp/c4.onnx runs/camp/c6.onnx runs/camp/c7.onnx \
  | tee $N/step7-offpath.jsonl
# 5. Against c6 at 10+0.1, one game at a time, nothing else running, the engine's defaults:
python -m trainer match --weights1 runs/camp/c7.onnx --name1 campaign-c7 \
  --weights2 runs/camp/c6.onnx --name2 c6 --tc 10+0.1 --games 100 \
  --pgn runs/camp/c7-vs-c6.pgn --json $N/c7-vs-c6.json --resume --no-progress
