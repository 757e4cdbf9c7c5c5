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
# 2. Here (2 cores, nothing else running): held-out figures and the matches (the first 100
#    openings of ../shared/data/openings/8moves_v3.pgn, the same as the packaged file's).
N=benchmarks/results/ema-ab
M="python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn
  --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 --resume --no-progress"
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-sp1.onnx \
  $N/E1-gen-6.onnx $N/E2-gen-6.onnx --records runs/sf-heldout/a runs/sf-heldout/b
$M --games 200 --concurrency 2 --tc 10+0.1 --weights1 $N/E1-gen-6.onnx --name1 ema-E1-gen-6 $SP1 \
  --pgn $N/E1-tc.pgn --json $N/E1-tc.json
# 3. The policy head trained alone (PH) and with the value loss off (P0), from sp1 on section
#    22's arm A records (runs/visits-ab/A/games, made by benchmarks/results/visits-ab/device.sh):
T="--data runs/visits-ab/A/games --steps 1099 --init nets/zerosum-6x64-sp1.onnx --batch-size 256
  --lr 1e-4 --schedule constant --warmup 10 --q-weight 1.0 --window 100000 --train-threads 2"
python -m trainer train $T --out runs/pol/PH --train-only policy_ --export runs/pol/PH.onnx
python -m trainer train $T --out runs/pol/P0 --value-weight 0 --export runs/pol/P0.onnx
PYTHONPATH=. python benchmarks/heldout.py --nets runs/pol/P0.onnx runs/pol/PH.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b
$M --games 200 --concurrency 2 --tc 10+0.1 --weights1 $N/PH.onnx --name1 policy-head-A $SP1 \
  --pgn $N/PH-tc.pgn --json $N/PH-tc.json
$M --games 200 --concurrency 2 --tc nodes=100 --weights1 $N/PH.onnx --name1 policy-head-A $SP1 \
  --pgn $N/PH-n100.pgn --json $N/PH-n100.json
