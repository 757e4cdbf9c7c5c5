#!/bin/bash
# Issue 58's campaign, step 2 (2026-12-04, a 2-core AMD EPYC with AVX-512 VNNI and BF16): the first
# step labelled at 3,000 nodes. teacher_gap.py showed that Stockfish at 1,000 nodes agrees with the
# held-out labels (8,000 nodes) on only 38.8% of best moves, so steps 1 and 1b's labels could not
# teach the 40% the issue asks for; at 3,000 nodes the teacher agrees on 48.3%.
# Each command resumes where it stopped.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
# iHv, the net this step trains on from, left nets/ when c2 replaced it (run with nets/'s path):
mkdir -p runs/camp
git show 3d4f6ef:nets/zerosum-6x64-iHv.onnx > runs/camp/iHv.onnx
git show 3d4f6ef:nets/zerosum-6x64-iHv-int8.onnx > runs/camp/iHv-int8.onnx
# 1. Labels: 65 minutes on both cores, 3,000 nodes a position, a new seed (62). The held-out
#    records (2) shared the cores for their first minutes.
python -m trainer sf-campaign --dir runs/camp/s2 --workers 2 --nodes 3000 --seed 62 --minutes 65
# 2. Held-out records (Stockfish at 8,000 nodes, seeds 900/901, the sets every card quotes):
python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 3. Training: from iHv (the bundled net), every parameter, batch 256, AdamW 5e-4 cosine, bf16:
python -m trainer train --data runs/camp/s2/data --init runs/camp/iHv.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 8000 --lr 5e-4 --checkpoint-every 1000 \
  --keep 2 --out runs/camp/s2-train --export runs/camp/c2.onnx
python -m trainer quantize runs/camp/c2.onnx --out runs/camp/c2-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search:
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/iHv.onnx runs/camp/c2.onnx \
  runs/camp/c2-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step2-heldout.jsonl
# 5. Against iHv at 10+0.1, one game at a time, the engine's defaults (int8 on this CPU):
python -m trainer match --weights1 runs/camp/c2.onnx --name1 campaign-c2 \
  --weights2 runs/camp/iHv.onnx --name2 iHv --tc 10+0.1 --games 100 \
  --pgn runs/camp/c2-vs-iHv.pgn --json $N/c2-vs-iHv.json --resume --no-progress
# 6. c2 ships (it beat iHv and is better held out on both heads):
cp runs/camp/c2.onnx nets/zerosum-6x64-c2.onnx
cp runs/camp/c2-int8.onnx nets/zerosum-6x64-c2-int8.onnx
