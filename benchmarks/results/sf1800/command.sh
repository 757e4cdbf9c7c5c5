# Issue 11's target: the bundled net against Stockfish 15.1 at UCI_Elo 1800, 10+0.1, one game at a
# time on a 2-core AMD EPYC with AVX-512 VNNI (2026-12-01), nothing else running, the engine's
# default options (Precision auto: the int8 copy on this CPU; NNThreads 2), the packaged openings
# (trainer/data/openings-8moves_v3-2000.pgn) each with both colours. runs/chain1.sh, chain5.sh.
export PATH="$PATH:/usr/games"
# 1. i4 before SpendSavedTime (commit 1bb4456's engine):
python -m trainer match --weights1 nets/zerosum-6x64-i4.onnx --name1 zerosum-6x64-i4 --stockfish-elo 1800 \
  --tc 10+0.1 --games 100 --pgn runs/sf1800/i4-vnni-c1.pgn --json runs/sf1800/i4-vnni-c1.json --resume
# 2. i4 with SpendSavedTime 1 (the new default):
python -m trainer match --weights1 nets/zerosum-6x64-i4.onnx --name1 zerosum-6x64-i4-sst1 \
  --stockfish-elo 1800 --tc 10+0.1 --games 100 --pgn runs/sf1800/i4-sst1-vnni-c1.pgn \
  --json runs/sf1800/i4-sst1-vnni-c1.json --resume
# 3. maia-1900 (also 6x64, GPL-3.0, not shipped) in the same search, its int8 copy made as ours are:
cp ../shared/data/lc0/maia-1900.onnx runs/nets/
python -m trainer quantize runs/nets/maia-1900.onnx --out runs/nets/maia-1900-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
python -m trainer match --weights1 runs/nets/maia-1900.onnx --name1 zerosum-maia-1900 --stockfish-elo 1800 \
  --tc 10+0.1 --games 50 --pgn runs/sf1800/maia1900-vnni-c1.pgn --json runs/sf1800/maia1900-vnni-c1.json --resume
# 4. SpendSavedTime 1 against 0, head to head:
python -m trainer match --weights1 nets/zerosum-6x64-i4.onnx --name1 zerosum-6x64-i4-sst1 \
  --weights2 nets/zerosum-6x64-i4.onnx --name2 zerosum-6x64-i4-sst0 --option2 SpendSavedTime=0 \
  --tc 10+0.1 --games 200 --pgn runs/sf1800/sst1-vs-sst0-c1.pgn --json runs/sf1800/sst1-vs-sst0-c1.json --resume
# How each engine spent its clock:
python benchmarks/clock_use.py runs/sf1800/i4-vnni-c1.pgn
# 4 as run this session (time for 200 games): two games at a time, each engine on one onnxruntime thread:
python -m trainer match --weights1 nets/zerosum-6x64-i4.onnx --name1 zerosum-6x64-i4-sst1 --option1 NNThreads=1 \
  --weights2 nets/zerosum-6x64-i4.onnx --name2 zerosum-6x64-i4-sst0 --option2 NNThreads=1 SpendSavedTime=0 \
  --tc 10+0.1 --games 200 --concurrency 2 --pgn runs/sf1800/sst1-vs-sst0-c2.pgn --json runs/sf1800/sst1-vs-sst0-c2.json --resume
