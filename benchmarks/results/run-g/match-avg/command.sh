# The mean of run g's generations 4-10 (weight averaging, python -m trainer average) against the
# bundled net the run started from: the same two matches as match-gen9/command.sh.
python -m trainer average runs/rl-gumbel-g/nets/gen-00{04,05,06,07,08,09,10}.onnx --out runs/avg/avg-4-10.onnx
python -m trainer match --weights1 benchmarks/results/run-g/match-avg/avg-4-10.onnx --weights2 nets/zerosum-6x64.onnx \
  --name1 run-g-avg-4-10 --name2 zerosum-6x64 --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 \
  --tc 10+0.1 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn \
  --pgn runs/m/avg-vs-g0.pgn --json runs/m/avg-vs-g0.json --resume --no-progress

python -m trainer match --weights1 benchmarks/results/run-g/match-avg/avg-4-10.onnx --weights2 nets/zerosum-6x64.onnx \
  --name1 run-g-avg-4-10 --name2 zerosum-6x64 --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 \
  --tc nodes=100 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn \
  --pgn runs/m/avg-vs-g0-nodes.pgn --json runs/m/avg-vs-g0-nodes.json --resume --no-progress
