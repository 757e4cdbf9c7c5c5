# Run g's generation 9 against the bundled net it started from (issue 10's bar): 200 games at
# 10+0.1 and 200 at 100 nodes a move, 8moves_v3 openings with both colours, fp32, one
# onnxruntime thread each, two games at a time on 2 cores. --resume continues a killed match.
python -m trainer match --weights1 benchmarks/results/run-g/gen-0009.onnx --weights2 nets/zerosum-6x64.onnx \
  --name1 run-g-gen9 --name2 zerosum-6x64 --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 \
  --tc 10+0.1 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn \
  --pgn runs/m/g9-vs-g0.pgn --json runs/m/g9-vs-g0.json --resume --no-progress

python -m trainer match --weights1 benchmarks/results/run-g/gen-0009.onnx --weights2 nets/zerosum-6x64.onnx \
  --name1 run-g-gen9 --name2 zerosum-6x64 --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 \
  --tc nodes=100 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn \
  --pgn runs/m/g9-vs-g0-nodes.pgn --json runs/m/g9-vs-g0-nodes.json --resume --no-progress
