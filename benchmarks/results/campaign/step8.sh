#!/bin/bash
# Issue 58's campaign, step 8: step 7's recipe (fresh labels with side positions, 8,000 bf16
# steps, the fresh data only) from c7, the shipped net, on a fresh seed, 68, with the side share
# raised from 0.2 to 0.3: a second round at 0.2 (step 7) kept step 6's off-path gain but did not
# add to it, and the search reads mostly positions off the teacher's path.
# Run on the 2-core AVX-512 BF16 machine (2026-12-06). Every command resumes where it stopped:
# rerun the script (`step8.sh --resume` passes --resume to the training).
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
mkdir -p runs/camp
# c7 and its int8 copy (the match plays it, as the engine does on a CPU with int8 dot products)
# as shipped at 29c76a0; c6 for the held-out and off-path tables.
for f in c7.onnx c7-int8.onnx; do
  [ -f runs/camp/$f ] || git show 29c76a0:nets/zerosum-6x64-$f > runs/camp/$f
done
[ -f runs/camp/c6.onnx ] || git show 6a5cfcc:nets/zerosum-6x64-c6.onnx > runs/camp/c6.onnx
# 1. Held-out records, if this machine lacks them (the sets every card quotes):
[ -d runs/sf-heldout/a ] || python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
[ -d runs/sf-heldout/b ] || python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 2. Labels, 3,000 nodes a position, both cores, nothing else running: a fresh seed, 68, with
#    side positions at 0.3, as many batches as steps 6 and 7: batches 0-377, 1,320,702 positions
#    in 42 minutes (09:06-09:48).
python -m trainer sf-campaign --dir runs/camp/s8 --workers 2 --nodes 3000 --seed 68 --side-p 0.3 \
  --batches 378
# 3. Training: from c7, every parameter, batch 256, AdamW 5e-4 cosine to step 8,000, bf16, the
#    fresh data only.
python -m trainer train --data runs/camp/s8/data --init runs/camp/c7.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 8000 --lr 5e-4 --seed 7 \
  --checkpoint-every 1000 --keep 2 --out runs/camp/s8-train --export runs/camp/c8.onnx "$@"
python -m trainer quantize runs/camp/c8.onnx --out runs/camp/c8-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search; then off the teacher's path (1,000 held-out positions and a random
#    move's child of each, labelled at 8,000 nodes):
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c7.onnx runs/camp/c8.onnx \
  runs/camp/c8-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step8-heldout.jsonl
PYTHONPATH=. python benchmarks/offpath_value.py --records runs/sf-heldout/a runs/sf-heldout/b \
  --max 1000 --nets runs/camp/c6.onnx runs/camp/c7.onnx runs/camp/c8.onnx \
  | tee $N/step8-offpath.jsonl
# 5. Against c7 at 10+0.1, one game at a time, nothing else running, the engine's defaults:
python -m trainer match --weights1 runs/camp/c8.onnx --name1 campaign-c8 \
  --weights2 runs/camp/c7.onnx --name2 c7 --tc 10+0.1 --games 100 \
  --pgn runs/camp/c8-vs-c7.pgn --json $N/c8-vs-c7.json --resume --no-progress
