# V1 (zerosum-6x64-sp1v) against sunfish on the openings of ../../gauntlet-sp1 (8moves_v3 lines
# 21-40, both colours, fresh to the ladders), two games at a time, NNThreads=1, fp32: comparable
# with sp1's and zerosum-6x64's figures there. The 60 games against Stockfish 1500 that
# gauntlet-sp1 also played were not played for V1 (the session's time went to the ladder).
# The PGN and JSON written under runs/gauntlet/ are copied beside this file.
cd "$(dirname "$0")/../../../.."
python -m trainer match --weights1 benchmarks/results/value-anchor/V1.onnx --name1 value-anchor-V1 \
  --option1 Precision=fp32 NNThreads=1 --sunfish --tc 10+0.1 --games 40 --concurrency 2 \
  --openings ../shared/data/openings/8moves_v3.pgn --opening-offset 20 \
  --pgn runs/gauntlet/V1-sunfish.pgn --json runs/gauntlet/V1-sunfish.json --resume --no-progress
