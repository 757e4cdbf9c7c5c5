# The ladder of zerosum-6x64-i4 (fp32), 10+0.1, one game at a time, on the 2-core Intel Xeon of
# 2026-11-28: i2m's rungs, games and openings (../ladder-i2m), plus Stockfish at UCI_Elo 1800
# (issue 11's target) for 20 games, nothing else running.
python -m trainer ladder --weights nets/zerosum-6x64-i4.onnx --name zerosum-6x64-i4 --option Precision=fp32 \
  --rungs sunfish,sf1350,sf1500,sf1800,sf2000,sf2200,maia1900 --games 6 --rung-games sf1500=20 sf1800=20 \
  --tc 10+0.1 --maia-net ../shared/data/lc0/maia-1900.onnx --out runs/ladder-i4 --no-progress
# The Strategic Test Suite, i4 against i2m on the same machine (../sts/i4-vs-i2m-100ms.json):
PYTHONPATH=. python benchmarks/sts.py --net nets/zerosum-6x64-i4.onnx \
  --net nets/zerosum-6x64-i2m.onnx --option Precision=fp32 --ms 100 \
  --json benchmarks/results/sts/i4-vs-i2m-100ms.json
# i2m again on the same day and machine, the two rungs that decide (../ladder-i2m-again):
python -m trainer ladder --weights nets/zerosum-6x64-i2m.onnx --name zerosum-6x64-i2m --option Precision=fp32 \
  --rungs sf1500,sf1800 --games 20 --tc 10+0.1 --out runs/ladder-i2m-again --no-progress
