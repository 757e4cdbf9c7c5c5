#!/bin/bash
# Steps 2-3 of command.sh, run one after the other once the ladder is done (nothing else running).
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/bundle-iH
date
python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900 2>/dev/null &
python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901 2>/dev/null &
wait
date
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx nets/zerosum-6x64-i4-int8.onnx \
  nets/zerosum-6x64-iH.onnx nets/zerosum-6x64-iH-int8.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/heldout.txt
date
PYTHONPATH=. python benchmarks/sts.py --net nets/zerosum-6x64-iH.onnx --net nets/zerosum-6x64-i4.onnx \
  --option Precision=fp32 --ms 100 --json $N/sts-iH-vs-i4-100ms.json
date
