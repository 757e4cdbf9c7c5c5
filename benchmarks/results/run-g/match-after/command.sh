# After run g: generation 27 with the engine's PolicyTemperature raised to 2.5 (default 1.359),
# and generation 16 at the default, each against the net the run started from at 10+0.1.
# 200 games each, 8moves_v3 openings with both colours, fp32, two games at a time, one
# onnxruntime thread per engine; --resume plays only the games missing.
set -e
cd "$(dirname "$0")/../../../.."
mkdir -p runs/m
M="python -m trainer match --games 200 --concurrency 2 --tc 10+0.1
  --option2 Precision=fp32 NNThreads=1 --weights2 nets/zerosum-6x64.onnx --name2 zerosum-6x64
  --openings ../shared/data/openings/8moves_v3.pgn --resume --no-progress"
$M --option1 Precision=fp32 NNThreads=1 PolicyTemperature=2.5 \
  --weights1 runs/rl-gumbel-g/nets/gen-0027.onnx --name1 run-g-gen-27-pt2.5 \
  --pgn runs/m/gen27pt25-vs-g0.pgn --json runs/m/gen27pt25-vs-g0.json
$M --option1 Precision=fp32 NNThreads=1 \
  --weights1 runs/rl-gumbel-g/nets/gen-0016.onnx --name1 run-g-gen-16 \
  --pgn runs/m/gen16-vs-g0.pgn --json runs/m/gen16-vs-g0.json
