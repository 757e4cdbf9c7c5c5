# The mean of run g's generations 11-16 (python -m trainer average) against the bundled net
# zerosum-6x64-sp1 (the mean of generations 4-10): does the run still move the default on?
# 200 games at 10+0.1 with 8moves_v3 openings, both colours; --resume plays only the games missing.
python -m trainer average runs/rl-gumbel-g/nets/gen-00{11,12,13,14,15,16}.onnx --out runs/avg/avg-11-16.onnx
python -m trainer match --weights1 runs/avg/avg-11-16.onnx --weights2 nets/zerosum-6x64-sp1.onnx \
  --name1 run-g-avg-11-16 --name2 zerosum-6x64-sp1 --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 \
  --tc 10+0.1 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn \
  --pgn runs/m/avg11-16-vs-sp1.pgn --json runs/m/avg11-16-vs-sp1.json --resume --no-progress
