#!/bin/bash
# Issue 58's teacher-data campaign, step 1: fresh Stockfish labels, then the bundled iHv trained on
# them, then the figures. 2-core AMD EPYC with AVX-512 VNNI and BF16, 2026-12-03, no GPU. Each step
# resumes where it stopped (the same command). No step needs an older step's files: the data is
# labelled anew from its seed, and training starts from the net committed in nets/.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
# 1. Labels: 40 minutes on both cores, then 11 more (the same campaign goes on), 1,000 nodes a
#    position, seed 58; 10% Chess960 starts, 10% thinned endings, book lines with 0-4 random plies.
#    The test suite and the tests of new code shared the cores for about 20 of the first 40 minutes.
python -m trainer sf-campaign --dir runs/camp/s1 --workers 2 --nodes 1000 --seed 58 --minutes 40
python -m trainer sf-campaign --dir runs/camp/s1 --workers 2 --nodes 1000 --seed 58 --minutes 11
# 2. Held-out records (Stockfish at 8,000 nodes, seeds 900/901, the sets every card quotes):
python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 3. Training: from iHv, every parameter, 14,000 steps of 256, AdamW 5e-4 cosine, bf16:
python -m trainer train --data runs/camp/s1/data --init nets/zerosum-6x64-iHv.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 14000 --lr 5e-4 --checkpoint-every 1000 \
  --keep 3 --out runs/camp/s1-train --export runs/camp/c1.onnx
python -m trainer quantize runs/camp/c1.onnx --out runs/camp/c1-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search:
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-iHv.onnx runs/camp/c1.onnx \
  runs/camp/c1-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step1-heldout.jsonl
# 5. Against iHv at 10+0.1, one game at a time, the engine's defaults (int8 on this CPU):
python -m trainer match --weights1 runs/camp/c1.onnx --name1 campaign-c1 \
  --weights2 nets/zerosum-6x64-iHv.onnx --name2 iHv --tc 10+0.1 --games 100 \
  --pgn runs/camp/c1-vs-iHv.pgn --json $N/c1-vs-iHv.json --resume --no-progress
