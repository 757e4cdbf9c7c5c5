#!/bin/bash
# How ema-ab's figures were made (selfplay-runs.md section 23).
# 1. On the GPU machine (H200, 16 cores; python-chess carried in .dev/site, the extension built
#    there with `python3 setup.py build_ext --inplace -j 16`): two self-play arms from sp1 side by
#    side, 8 cores each, 370 s of loop (6 generations of 256 games each), nets and histories back:
#      bash benchmarks/results/ema-ab/device.sh $OUT 8 370     (output: device-output.txt)
#    then, on the same machine, 100- and 400-node matches against sp1 (node counts do not depend
#    on the machine; the packaged 2,000 openings of 8moves_v3 are its first 2,000):
R=${R:-/tmp/ema-ab}; OUT=${OUT:-runs/ema-ab}
M="python3 -m trainer match --openings trainer/data/openings-8moves_v3-2000.pgn
  --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 --resume --no-progress"
SP1="--weights2 nets/zerosum-6x64-sp1.onnx --name2 zerosum-6x64-sp1"
if [ "${DEVICE:-0}" = 1 ]; then
  for a in E1 E2; do
    $M --games 200 --concurrency 8 --tc nodes=100 --weights1 $R/$a/nets/gen-0006.onnx \
      --name1 ema-$a-gen-6 $SP1 --pgn $OUT/$a-n100.pgn --json $OUT/$a-n100.json &
  done; wait
  $M --games 64 --concurrency 16 --tc nodes=400 --weights1 $R/E2/nets/gen-0006.onnx \
    --name1 ema-E2-gen-6 $SP1 --pgn $OUT/E2-n400.pgn --json $OUT/E2-n400.json
  exit
fi
# 2. Here (2 cores, nothing else running): held-out figures and the 10+0.1 match.
N=benchmarks/results/ema-ab
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-sp1.onnx \
  $N/E1-gen-6.onnx $N/E2-gen-6.onnx --records runs/sf-heldout/a runs/sf-heldout/b
$M --games 200 --concurrency 2 --tc 10+0.1 --weights1 $N/E1-gen-6.onnx --name1 ema-E1-gen-6 $SP1 \
  --pgn $N/E1-tc.pgn --json $N/E1-tc.json
