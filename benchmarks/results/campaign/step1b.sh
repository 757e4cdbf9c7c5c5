#!/bin/bash
# Issue 58's campaign, step 1b: step 1 again on a slower machine (2-core AMD EPYC, AVX2 only: no
# VNNI, no AVX-512 BF16), 2026-12-03. Step 1's net was never committed and its machine was
# renewed, so this step labels a prefix of the same campaign (seed 58) and, since this CPU trains
# at 1.5 steps/s in fp32 (bf16 is emulated here and slower), trains 3,000 steps instead of 14,000.
# Each command resumes where it stopped.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
# 1. Labels: 45 minutes on both cores, 1,000 nodes a position, seed 58 (step 1's campaign). The
#    held-out records and a test-suite run shared the cores for part of it.
python -m trainer sf-campaign --dir runs/camp/s1 --workers 2 --nodes 1000 --seed 58 --minutes 45
# 2. Held-out records (Stockfish at 8,000 nodes, seeds 900/901, the sets every card quotes):
python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 3. Training: from iHv, every parameter, 3,000 steps of 256, AdamW 5e-4 cosine, fp32:
python -m trainer train --data runs/camp/s1/data --init nets/zerosum-6x64-iHv.onnx \
  --batch-size 256 --schedule cosine --warmup 100 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision fp32 --steps 3000 --lr 5e-4 --checkpoint-every 500 \
  --keep 2 --out runs/camp/s1b-train --export runs/camp/c1b.onnx
python -m trainer quantize runs/camp/c1b.onnx --out runs/camp/c1b-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search:
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-iHv.onnx runs/camp/c1b.onnx \
  runs/camp/c1b-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step1b-heldout.jsonl
# 5. Against iHv at 10+0.1, one game at a time, the engine's defaults (fp32 on this CPU: no VNNI):
python -m trainer match --weights1 runs/camp/c1b.onnx --name1 campaign-c1b \
  --weights2 nets/zerosum-6x64-iHv.onnx --name2 iHv --tc 10+0.1 --games 100 \
  --pgn runs/camp/c1b-vs-iHv.pgn --json $N/c1b-vs-iHv.json --resume --no-progress
