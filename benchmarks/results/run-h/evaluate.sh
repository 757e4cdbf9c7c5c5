#!/bin/bash
# Run h's nets against generation 0 (zerosum-6x64-sp1v), first openings of 8moves_v3 with both
# colours, fp32, one onnxruntime thread per engine, two games at a time; the 10+0.1 match alone on
# the 2-core machine. --resume continues a stopped match from its .pgn.partial.
#   [TC_GENS="G ..."] bash benchmarks/results/run-h/evaluate.sh FINAL_GEN [GEN ...]
cd "$(dirname "$0")/../../.."
N=benchmarks/results/run-h
F=${1:?final generation}; shift
mkdir -p $N/matches
M="python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn
  --option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 --resume --no-progress
  --concurrency 2 --weights2 nets/zerosum-6x64-sp1v.onnx --name2 zerosum-6x64-sp1v"
# the committed copy where there is one (gen-0010, gen-0019), else the run's own
net() { f=$(printf "$N/gen-%04d.onnx" "$1"); [ -f "$f" ] || f=$(printf "runs/h/nets/gen-%04d.onnx" "$1"); echo "$f"; }
name() { printf "run-h-gen-%d" "$1"; }
# 1. The final net, 200 games at 10+0.1 and at 100 nodes a move:
$M --games 200 --tc 10+0.1 --weights1 "$(net "$F")" --name1 "$(name "$F")" \
  --pgn $N/final-tc.pgn --json $N/final-tc.json
$M --games 200 --tc nodes=100 --weights1 "$(net "$F")" --name1 "$(name "$F")" \
  --pgn $N/final-n100.pgn --json $N/final-n100.json
# 2. Generations by the way, 100 games at 100 nodes (the table's and the plot's Elo column):
for g in "$@"; do
  j=$(printf "%s/matches/gen-%04d" $N "$g")
  $M --games 100 --tc nodes=100 --weights1 "$(net "$g")" --name1 "$(name "$g")" \
    --pgn "$j.pgn" --json "$j.json"
done
# 3. Generations named in TC_GENS at 10+0.1 too, 200 games (alone on the machine):
for g in ${TC_GENS:-}; do
  j=$(printf "%s/matches/gen-%04d-tc" $N "$g")
  $M --games 200 --tc 10+0.1 --weights1 "$(net "$g")" --name1 "$(name "$g")" \
    --pgn "$j.pgn" --json "$j.json"
done
