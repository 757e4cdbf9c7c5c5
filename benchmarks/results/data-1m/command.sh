#!/bin/bash
# iF (../full-i4/) trained further on twice the Stockfish-labelled positions, in bf16, after
# sf-games got 2.6x faster (the pipe reader, trainer/sfuci.py, and 3,000 nodes instead of 8,000).
# 2-core AMD EPYC with AVX-512 VNNI and BF16, 2026-12-02, no GPU.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/data-1m
# 1. Data: ../full-i4/command.sh step 1 (runs/sfv/a, b, s302, s303: 509,696 positions at 8,000
#    nodes), then, each pair stopped by hand after the time given to it (sf-games keeps every
#    finished 256-position file):
#    a. seeds 304/305 at 8,000 nodes with python-chess's parser (the code before 0d27af1), 26 min;
python -m trainer sf-games --out runs/sfv/s304 --games 3000 --seed 304 &
python -m trainer sf-games --out runs/sfv/s305 --games 3000 --seed 305 &
wait
#    b. seeds 306/307 at 3,000 nodes with the pipe reader:
python -m trainer sf-games --out runs/sfv/n3k-s306 --games 20000 --nodes 3000 --seed 306 &
python -m trainer sf-games --out runs/sfv/n3k-s307 --games 20000 --nodes 3000 --seed 307 &
wait
# 2. From iF, every parameter, bf16, repeated positions (the book lines' own) dropped; the int8 copy:
python -m trainer train --data runs/sfv/a runs/sfv/b runs/sfv/s302 runs/sfv/s303 runs/sfv/s304 \
  runs/sfv/s305 runs/sfv/n3k-s306 runs/sfv/n3k-s307 --dedup \
  --init benchmarks/results/full-i4/iF.onnx --batch-size 256 --schedule cosine --warmup 100 \
  --q-weight 1.0 --window 3000000 --train-threads 2 --train-precision bf16 --steps 8000 --lr 1e-3 \
  --out runs/fh/iG --export $N/iG.onnx
python -m trainer quantize $N/iG.onnx --out $N/iG-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 3. Held out (the same 4,708 positions at 8,000 nodes, seeds 900/901):
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx \
  benchmarks/results/full-i4/iF.onnx $N/iG.onnx ../shared/data/lc0/maia-1900.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/heldout.txt
# 4. Issue 11's match, as ../sf1800/command.sh step 2 with iG (one game at a time, the defaults):
python -m trainer match --weights1 $N/iG.onnx --name1 data-1m-iG --stockfish-elo 1800 \
  --tc 10+0.1 --games 100 --pgn $N/iG-vs-sf1800.pgn --json $N/iG-vs-sf1800.json --resume --no-progress
