#!/bin/bash
# After value-i4/ (value head alone: +12.2 ± 40.0) and policy-i4/ (policy head alone: +38.4 ± 59.8),
# i4 retrained with every parameter free on all the Stockfish-labelled records, so the trunk can
# learn too. 2-core AMD EPYC with AVX-512 VNNI, 2026-12-01, no GPU.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/full-i4
# 1. Data: value-i4/command.sh steps 1-2 (runs/sfv/a, runs/sfv/b, seeds 300/301; held out
#    runs/sf-heldout, seeds 900/901), and two more processes with new seeds, stopped by hand after
#    the time given to them (sf-games keeps every finished 256-position file):
python -m trainer sf-games --out runs/sfv/s302 --games 3000 --seed 302 &
python -m trainer sf-games --out runs/sfv/s303 --games 3000 --seed 303 &
wait
# 2. Every parameter, from i4, and the int8 copy:
python -m trainer train --data runs/sfv/a runs/sfv/b runs/sfv/s302 runs/sfv/s303 \
  --init nets/zerosum-6x64-i4.onnx --batch-size 256 --schedule cosine --warmup 50 --q-weight 1.0 \
  --window 2000000 --train-threads 2 --steps 3000 --lr 1e-3 --out runs/fh/iF --export $N/iF.onnx
python -m trainer quantize $N/iF.onnx --out $N/iF-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 3. Held out:
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx \
  benchmarks/results/policy-i4/iP.onnx $N/iF.onnx ../shared/data/lc0/maia-1900.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/heldout.txt
# 4. Head to head with i4 at 10+0.1 as value-i4's (first 50 openings of 8moves_v3, both colours):
python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn \
  --weights1 $N/iF.onnx --name1 full-i4-iF --option1 NNThreads=1 \
  --weights2 nets/zerosum-6x64-i4.onnx --name2 zerosum-6x64-i4 --option2 NNThreads=1 \
  --tc 10+0.1 --games 100 --concurrency 2 --pgn $N/iF-vs-i4.pgn --json $N/iF-vs-i4.json \
  --resume --no-progress
# 5. Issue 11's match, as ../sf1800/command.sh step 2 with iF (one game at a time, the defaults):
python -m trainer match --weights1 $N/iF.onnx --name1 full-i4-iF --stockfish-elo 1800 \
  --tc 10+0.1 --games 100 --pgn $N/iF-vs-sf1800.pgn --json $N/iF-vs-sf1800.json --resume --no-progress
# 6. Aside, stopped after 37 games (the PGN kept as iF-pt1.0-vs-iF-37-games.pgn): a sharper prior at
#    search time, PolicyTemperature 1.0 against the default 1.359, as step 4:
python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn \
  --weights1 $N/iF.onnx --name1 full-i4-iF-pt1.0 --option1 NNThreads=1 PolicyTemperature=1.0 \
  --weights2 $N/iF.onnx --name2 full-i4-iF --option2 NNThreads=1 \
  --tc 10+0.1 --games 100 --concurrency 2 --pgn $N/iF-pt1-vs-iF.pgn --json $N/iF-pt1-vs-iF.json \
  --resume --no-progress
# 7. Step 4 on openings 51-100:
python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn --opening-offset 50 \
  --weights1 $N/iF.onnx --name1 full-i4-iF --option1 NNThreads=1 \
  --weights2 nets/zerosum-6x64-i4.onnx --name2 zerosum-6x64-i4 --option2 NNThreads=1 \
  --tc 10+0.1 --games 100 --concurrency 2 --pgn $N/iF-vs-i4-b.pgn --json $N/iF-vs-i4-b.json \
  --resume --no-progress
