#!/bin/bash
# iG (../data-1m/) trained longer at a lower learning rate on the same Stockfish-labelled data.
# 2-core AMD EPYC with AVX-512 VNNI and BF16, 2026-12-02, no GPU.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/long-iG
# 1. Data: ../data-1m/command.sh step 1 (runs/sfv/*: 1,306,880 positions, 1,104,656 after --dedup).
# 2. From iG, every parameter, 14,000 steps of 256 (3.58 million samples), AdamW 5e-4 cosine, bf16;
#    the int8 copy:
python -m trainer train --data runs/sfv/a runs/sfv/b runs/sfv/s302 runs/sfv/s303 runs/sfv/s304 \
  runs/sfv/s305 runs/sfv/n3k-s306 runs/sfv/n3k-s307 --dedup \
  --init benchmarks/results/data-1m/iG.onnx --batch-size 256 --schedule cosine --warmup 200 \
  --q-weight 1.0 --window 3000000 --train-threads 2 --train-precision bf16 --steps 14000 --lr 5e-4 \
  --checkpoint-every 1000 --keep 4 --out runs/fh/iH --export $N/iH.onnx
python -m trainer quantize $N/iH.onnx --out $N/iH-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 3. Held out (the same 4,708 positions at 8,000 nodes, seeds 900/901):
PYTHONPATH=. python benchmarks/heldout.py --nets benchmarks/results/data-1m/iG.onnx $N/iH.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/heldout.txt
# 4. Issue 11's match, as ../sf1800/command.sh step 2 with iH (one game at a time, the defaults):
python -m trainer match --weights1 $N/iH.onnx --name1 long-iG-iH --stockfish-elo 1800 \
  --tc 10+0.1 --games 100 --pgn $N/iH-vs-sf1800.pgn --json $N/iH-vs-sf1800.json --resume --no-progress
