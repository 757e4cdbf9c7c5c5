#!/bin/bash
# The MuZero net's matches, one after another (1 search thread, 1 onnxruntime thread each).
cd "$(dirname "$0")/.."
MZ=${MZ:-runs/mz/mz-small.onnx}
AZ=${AZ:-runs/mz/az-small.onnx}
O="Threads=1 NNThreads=1"
run() { name=$1; shift; echo "== $name"; nice -n 10 python -m trainer match "$@" --max-plies 200 \
  --no-progress --pgn runs/mz/m-$name.pgn --json runs/mz/m-$name.json 2>&1 | tail -4; }
run mz-az-n100 --weights1 $MZ --weights2 $AZ --option1 $O --option2 $O --tc nodes=100 --games 16
run mz-az-10 --weights1 $MZ --weights2 $AZ --option1 $O --option2 $O --tc 10+0.1 --games 10
run mz-sunfish --weights1 $MZ --option1 $O --sunfish --tc 10+0.1 --games 10
run mz-sf1350 --weights1 $MZ --option1 $O --stockfish-elo 1350 --tc 10+0.1 --games 10
run az-sunfish --weights1 $AZ --option1 $O --sunfish --tc 10+0.1 --games 10
run az-sf1350 --weights1 $AZ --option1 $O --stockfish-elo 1350 --tc 10+0.1 --games 10
echo done
