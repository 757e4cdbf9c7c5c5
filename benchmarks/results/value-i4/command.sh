#!/bin/bash
# i4's value head retrained alone on Stockfish's win/draw/loss estimates (trunk and policy frozen),
# the recipe of value-anchor/ (sp1 -> V1, +50.7 ± 42.9 at 10+0.1), now on the bundled net.
# 2-core AMD EPYC with AVX-512 VNNI, 2026-12-01, no GPU.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/value-i4
# 1. Stockfish-labelled records (not in git), new seeds 300/301: Stockfish 15.1 games from the
#    packaged openings at 8,000 nodes, MultiPV 5, every position labelled with UCI_ShowWDL.
#    Stopped by hand after the time given to them (sf-games keeps every finished 256-position file).
python -m trainer sf-games --out runs/sfv/a --games 3000 --seed 300 &
python -m trainer sf-games --out runs/sfv/b --games 3000 --seed 301 &
wait
# 2. Held out (seeds no training set uses, as mix-ab/data.sh):
python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900 &
python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901 &
wait
# 3. The value head alone (value_conv, value_fc1, value_fc2), from i4, and its int8 copy:
python -m trainer train --data runs/sfv/a runs/sfv/b --init nets/zerosum-6x64-i4.onnx --batch-size 256 \
  --schedule cosine --warmup 20 --q-weight 1.0 --window 1000000 --train-threads 2 \
  --steps 2000 --lr 1e-3 --out runs/vh/iV --train-only value_ --export $N/iV.onnx
python -m trainer quantize $N/iV.onnx --out $N/iV-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out:
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/iV.onnx \
  nets/zerosum-6x64-sp1v.onnx ../shared/data/lc0/maia-1900.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/heldout.txt
# 5. Head to head with i4 at 10+0.1: the first 100 openings of 8moves_v3 with both colours, the
#    engines' defaults (Precision auto: the int8 copies on this CPU) but one onnxruntime thread
#    each, two games at a time, nothing else on the machine:
python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn \
  --weights1 $N/iV.onnx --name1 value-i4-iV --option1 NNThreads=1 \
  --weights2 nets/zerosum-6x64-i4.onnx --name2 zerosum-6x64-i4 --option2 NNThreads=1 \
  --tc 10+0.1 --games 200 --concurrency 2 --pgn $N/iV-vs-i4.pgn --json $N/iV-vs-i4.json \
  --resume --no-progress
