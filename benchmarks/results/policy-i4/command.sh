#!/bin/bash
# The complement of value-i4/: i4's policy head (policy_conv, policy_out) retrained alone on
# Stockfish's MultiPV targets (the softmax of its five best moves' scores at 60 cp), trunk and
# value head frozen, so the WDL is i4's to the bit and a match against i4 measures the policy
# head alone. 2-core AMD EPYC with AVX-512 VNNI, 2026-12-01, no GPU.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/policy-i4
# 1. Data: value-i4/command.sh step 1 (runs/sfv/a, runs/sfv/b: 312,064 positions, seeds 300/301),
#    held out: its step 2 (runs/sf-heldout, seeds 900/901).
# 2. The policy head alone, from i4, and its int8 copy:
python -m trainer train --data runs/sfv/a runs/sfv/b --init nets/zerosum-6x64-i4.onnx --batch-size 256 \
  --schedule cosine --warmup 20 --q-weight 1.0 --window 1000000 --train-threads 2 \
  --steps 2000 --lr 1e-3 --out runs/ph/iP --train-only policy_ --export $N/iP.onnx
python -m trainer quantize $N/iP.onnx --out $N/iP-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 3. Held out:
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/iP.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/heldout.txt
# 4. Head to head with i4 at 10+0.1 as value-i4's (the first 50 openings with both colours):
python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn \
  --weights1 $N/iP.onnx --name1 policy-i4-iP --option1 NNThreads=1 \
  --weights2 nets/zerosum-6x64-i4.onnx --name2 zerosum-6x64-i4 --option2 NNThreads=1 \
  --tc 10+0.1 --games 100 --concurrency 2 --pgn $N/iP-vs-i4.pgn --json $N/iP-vs-i4.json \
  --resume --no-progress
