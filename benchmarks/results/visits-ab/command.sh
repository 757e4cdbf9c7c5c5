# The visits A/B (device.sh made the records and the nets A, B and B2 on the GPU machine; the
# records are not in git). B4: sp1 trained here on all the 128-visit records
# (B's and a second batch of 16 workers x 200 s, seeds 300-315, worker ids 8-23) at the same
# 3.4 samples per new position. A.onnx, B.onnx and B4.onnx are beside this file.
set -e
cd "$(dirname "$0")/../../.."
R=runs/visits-ab
python -m trainer train --data $R/B/games $R/B3/games --out $R/B4/train --init nets/zerosum-6x64-sp1.onnx \
  --steps 712 --batch-size 256 --lr 1e-4 --schedule constant --warmup 10 --q-weight 1.0 --window 100000 \
  --device cpu --log-every 100 --export $R/B4.onnx
PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-sp1.onnx $R/A.onnx $R/B.onnx $R/B2.onnx $R/B4.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b
# Matches: 200 games, 8moves_v3 openings with both colours, fp32, two games at a time, one
# onnxruntime thread per engine, nothing else on the 2-core machine; --resume plays what is missing.
N=benchmarks/results/visits-ab
M="python -m trainer match --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn
  --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 --resume --no-progress"
$M --tc 10+0.1 --weights1 $N/B.onnx --name1 visits-128 --weights2 $N/A.onnx --name2 visits-32 \
  --pgn $R/B-vs-A.pgn --json $R/B-vs-A.json
$M --tc 10+0.1 --weights1 $N/B4.onnx --name1 visits-128-all --weights2 nets/zerosum-6x64-sp1.onnx \
  --name2 zerosum-6x64-sp1 --pgn $R/B4-vs-sp1.pgn --json $R/B4-vs-sp1.json
python -m trainer average nets/zerosum-6x64-sp1.onnx $N/B4.onnx --out $R/avg-sp1-B4.onnx
$M --tc 10+0.1 --weights1 $R/avg-sp1-B4.onnx --name1 mean-sp1-B4 --weights2 nets/zerosum-6x64-sp1.onnx \
  --name2 zerosum-6x64-sp1 --pgn $R/avg-vs-sp1.pgn --json $R/avg-vs-sp1.json
