# Run g's final net after 1,000,000 self-play positions: the mean of generations 21-27 (python -m
# trainer average; weight averaging of the last generations, as for zerosum-6x64-sp1) against the
# net the run started from (zerosum-6x64) at fixed nodes and at 10+0.1, and against the bundled
# default (zerosum-6x64-sp1) at fixed nodes. 200 games each with 8moves_v3 openings, both colours;
# --resume plays only the games missing.
set -e
cd "$(dirname "$0")/../../../.."
mkdir -p runs/avg runs/m
[ -e runs/avg/avg-21-27.onnx ] || python -m trainer average runs/rl-gumbel-g/nets/gen-00{21,22,23,24,25,26,27}.onnx --out runs/avg/avg-21-27.onnx
M="python -m trainer match --games 200 --concurrency 2
  --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1
  --openings ../shared/data/openings/8moves_v3.pgn --resume --no-progress"
AVG="--weights1 runs/avg/avg-21-27.onnx --name1 run-g-avg-21-27"
$M $AVG --weights2 nets/zerosum-6x64.onnx --name2 zerosum-6x64 --tc nodes=100 \
  --pgn runs/m/avg21-27-vs-g0-nodes.pgn --json runs/m/avg21-27-vs-g0-nodes.json
$M $AVG --weights2 nets/zerosum-6x64-sp1.onnx --name2 zerosum-6x64-sp1 --tc nodes=100 \
  --pgn runs/m/avg21-27-vs-sp1-nodes.pgn --json runs/m/avg21-27-vs-sp1-nodes.json
$M $AVG --weights2 nets/zerosum-6x64.onnx --name2 zerosum-6x64 --tc 10+0.1 \
  --pgn runs/m/avg21-27-vs-g0.pgn --json runs/m/avg21-27-vs-g0.json
# Generation 27 alone (the loop's last net) against the start at 10+0.1: the mean of 21-27 fell
# short there, is it the averaging or the run's late nets?
$M --weights1 runs/rl-gumbel-g/nets/gen-0027.onnx --name1 run-g-gen-27 \
  --weights2 nets/zerosum-6x64.onnx --name2 zerosum-6x64 --tc 10+0.1 \
  --pgn runs/m/gen27-vs-g0.pgn --json runs/m/gen27-vs-g0.json
