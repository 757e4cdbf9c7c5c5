#!/bin/bash
# The value head of sp1 retrained alone on Stockfish's win/draw/loss estimates (selfplay-runs.md
# section 24): the "anchor on the value only" that mix-ab/README.md left untried. The trunk and
# the policy head are frozen, so the new net's policy is sp1's to the bit and a match against sp1
# measures the value head alone. 2-core AMD EPYC machine, no GPU.
cd "$(dirname "$0")/../../.."
N=benchmarks/results/value-anchor
# 1. Stockfish-labelled records (not in git; seeds 200/201 as mix-ab's): games from the packaged
#    openings, Stockfish 15.1 at 8,000 nodes, MultiPV 5, every position labelled with
#    UCI_ShowWDL. 1,000 games a side were planned; V1's set was stopped after 22 minutes at 360
#    files of 256 positions a side (184,320 positions; sf-games keeps every finished file), so
#    the files past the 360th of a side, written in order, are not V1's data.
python -m trainer sf-games --out runs/sfmix/a --games 1000 --seed 200 &
python -m trainer sf-games --out runs/sfmix/b --games 1000 --seed 201 &
wait
for d in runs/sfmix/a runs/sfmix/b; do ls $d/sf-*.npz | sort | tail -n +361 | xargs -r rm; done
# 2. The held-out positions (seeds no training set uses): as mix-ab/data.sh.
# 3. The value head alone (value_conv, value_fc1, value_fc2), from sp1:
T="--data runs/sfmix/a runs/sfmix/b --init nets/zerosum-6x64-sp1.onnx --batch-size 256
  --schedule cosine --warmup 20 --q-weight 1.0 --window 1000000 --train-threads 2"
python -m trainer train $T --steps 1500 --lr 1e-3 --out runs/vh/V1 --train-only value_ \
  --export runs/vh/V1.onnx                                      # 3 min 39 s, 6.85 steps/s
cp runs/vh/V1.onnx $N/V1.onnx
# 4. Held out (heldout.txt):
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-sp1.onnx $N/V1.onnx \
  nets/zerosum-6x64.onnx --records runs/sf-heldout/a runs/sf-heldout/b
# 5. Against sp1 (the first 100 openings of 8moves_v3, both colours; fp32, two games at a time,
#    one onnxruntime thread per engine, nothing else on the machine for the 10+0.1 match):
M="python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn
  --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 --resume --no-progress"
SP1="--weights2 nets/zerosum-6x64-sp1.onnx --name2 zerosum-6x64-sp1"
$M --games 200 --concurrency 2 --tc 10+0.1 --weights1 $N/V1.onnx --name1 value-anchor-V1 $SP1 \
  --pgn $N/V1-tc.pgn --json $N/V1-tc.json
$M --games 200 --concurrency 2 --tc nodes=100 --weights1 $N/V1.onnx --name1 value-anchor-V1 $SP1 \
  --pgn $N/V1-n100.pgn --json $N/V1-n100.json
# 6. PV: V1's value head under the policy head PH learned alone from sp1's 32-visit self-play
#    games (selfplay-runs.md section 23), combined exactly (combine.py), against V1 at 100 nodes:
python benchmarks/results/value-anchor/combine.py
python -m trainer export runs/vh/PV.pt runs/vh/PV.onnx --meta name=PV
cp runs/vh/PV.onnx $N/PV.onnx
$M --games 200 --concurrency 2 --tc nodes=100 --weights1 $N/PV.onnx --name1 value-anchor-PV \
  --weights2 $N/V1.onnx --name2 value-anchor-V1 --pgn $N/PV-vs-V1-n100.pgn --json $N/PV-vs-V1-n100.json
# 7. PV against V1 at 10+0.1 (alone on the machine; --resume continues a stopped match from its
#    .pgn.partial):
$M --games 200 --concurrency 2 --tc 10+0.1 --weights1 $N/PV.onnx --name1 value-anchor-PV \
  --weights2 $N/V1.onnx --name2 value-anchor-V1 --pgn $N/PV-vs-V1-tc.pgn --json $N/PV-vs-V1-tc.json
