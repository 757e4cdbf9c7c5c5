#!/bin/bash
# Issue 58's size A/B on two CPU cores (started 2026-12-07 11:09): 6x64 against 10x128,
# each from the same knowledge and trained on the same data. The 10x128 is c11 grown
# (`trainer grow`: more blocks and filters, computing exactly what c11 computes), then trained as
# step 12 trained c12 from c11: 8,000 bf16 steps of 256 on step 12's labels alone. c12 is the
# 6x64 side. Then held-out figures, nodes/s of both at the engine's defaults (int8 where the CPU
# has int8 dot products), and 100 games at 10+0.1, one at a time, nothing else running.
# Needs step 12's labels (runs/camp/s12) and net (runs/camp/c12.onnx, its int8 copy beside it).
# About 2 h 15 min: training about 70 min (10x128 trains at 1.9 steps/s here, 6x64 at 6.25),
# the match about 60. `size-ab.sh --resume` continues the training from its checkpoints (the
# session ended at step 4,347; resumed from step 4,000 at 12:10).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
R=benchmarks/results/campaign
G=runs/camp/g12-10x128
[ -f runs/camp/c12.onnx ] && [ -d runs/camp/s12/data ] \
  || { echo "run step12.sh first" >&2; exit 2; }
[ -f runs/camp/c11.onnx ] || git show 35b6ff1:nets/zerosum-6x64-c11.onnx > runs/camp/c11.onnx
# 1. c11 grown to 10x128 (a few seconds; the same function, checked on random positions).
[ -f runs/camp/c11-10x128.onnx ] || python -m trainer grow runs/camp/c11.onnx --blocks 10 \
  --filters 128 --out runs/camp/c11-10x128.onnx
# 2. Step 12's training, from the grown net.
python -m trainer train --data runs/camp/s12/data --init runs/camp/c11-10x128.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 8000 --lr 5e-4 --seed 7 \
  --checkpoint-every 500 --keep 2 --out "$G-train" --export "$G.onnx" "$@"
python -m trainer quantize "$G.onnx" --out "$G-int8.onnx" \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 3. Held out, no search.
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c11.onnx runs/camp/c12.onnx \
  "$G.onnx" "$G-int8.onnx" --records runs/sf-heldout/a runs/sf-heldout/b \
  | tee "$R/size-ab-heldout.jsonl"
# 4. Speed at the engine's defaults (one search thread, two onnxruntime threads, Precision auto),
#    over the bench positions at 2 s each.
for net in runs/camp/c12.onnx "$G.onnx"; do
  python -m engine bench --weights "$net" --movetime 2000
done | tee "$R/size-ab-speed.txt"
# 5. At the clock.
python -m trainer match --weights1 "$G.onnx" --name1 campaign-g12-10x128 \
  --weights2 runs/camp/c12.onnx --name2 c12 --tc 10+0.1 --games 100 \
  --pgn runs/camp/g12-vs-c12.pgn --json "$R/g12-vs-c12.json" --resume --no-progress
