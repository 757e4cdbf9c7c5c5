#!/bin/bash
# The time-management head to head of time.md: the engine at this commit (HORIZON 24/12,
# MoveOverhead 30 ms) against the one before it (e133a27: 32/15, 100 ms), both with iG.
cd "$(dirname "$0")/../../.."
N=benchmarks/results/long-iG
O=$(pwd)/benchmarks/results/data-1m/iG.onnx
git worktree add /tmp/old e133a27 && cp engine/*.so /tmp/old/engine/  # the .pyx are unchanged
python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn \
  --weights1 $O --name1 iG-tm24 --option1 NNThreads=1 \
  --engine2 name=iG-tm32 cmd="python -m engine" cwd=/tmp/old option.WeightsFile=$O option.NNThreads=1 \
  --tc 10+0.1 --games 100 --concurrency 2 --pgn $N/tm-h2h.pgn --json $N/tm-h2h.json \
  --resume --no-progress
PYTHONPATH=. python benchmarks/clock_use.py $N/tm-h2h.pgn
