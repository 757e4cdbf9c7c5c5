python -m trainer match --weights1 runs/rl-gumbel-g/nets/gen-0004.onnx --weights2 nets/zerosum-6x64.onnx \
  --name1 run-g-gen4 --name2 zerosum-6x64 --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 \
  --tc 10+0.1 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn \
  --pgn runs/m/g4-vs-g0.pgn --json runs/m/g4-vs-g0.json --resume --no-progress

python -m trainer match --weights1 runs/rl-gumbel-g/nets/gen-0004.onnx --weights2 nets/zerosum-6x64.onnx \
  --name1 run-g-gen4 --name2 zerosum-6x64 --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 \
  --tc nodes=100 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn \
  --pgn runs/m/g4-vs-g0-nodes.pgn --json runs/m/g4-vs-g0-nodes.json --resume --no-progress
