#!/bin/bash
# B (25% Stockfish-labelled) against A (self-play only), one generation's training each from run g's generation 12
cd "$(dirname "$0")/../../.."
python -m trainer match --weights1 runs/ab/B.onnx --weights2 runs/ab/A.onnx --name1 B-mix25 --name2 A-selfplay \
  --option1 Threads=1 NNThreads=1 --option2 Threads=1 NNThreads=1 --tc nodes=100 --games 100 --concurrency 2 \
  --seed 1 --pgn runs/ab/B-vs-A.pgn --json runs/ab/B-vs-A.json --no-progress
