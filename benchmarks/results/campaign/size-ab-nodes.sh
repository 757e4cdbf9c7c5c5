#!/bin/bash
# The size A/B at equal nodes (prepared 2026-12-07, not run yet): `size-ab.sh` played g12 (10x128)
# against c12 (6x64) at 10+0.1, where c12 searches 3.6 times the nodes and won 29-0-2. Here each
# side gets 800 nodes a move, which is what a machine where the 10x128 costs little more than the
# 6x64 (a GPU) would see, and says whether the 10x128's extra knowledge (held-out top-1 37.0%
# against 36.2%) is worth anything in play. Two games at once: a node budget does not depend on
# the clock. About 45 minutes for 60 games on 2 cores. Needs size-ab.sh's g12 and step 12's c12.
set -euo pipefail
cd "$(dirname "$0")/../../.."
R=benchmarks/results/campaign
[ -f runs/camp/g12-10x128.onnx ] && [ -f runs/camp/c12.onnx ] \
  || { echo "run size-ab.sh first" >&2; exit 2; }
python -m trainer match --weights1 runs/camp/g12-10x128.onnx --name1 campaign-g12-10x128 \
  --weights2 runs/camp/c12.onnx --name2 c12 --tc nodes=800 --games 60 --concurrency 2 \
  --pgn runs/camp/g12-vs-c12-800n.pgn --json "$R/g12-vs-c12-800n.json" --resume --no-progress
