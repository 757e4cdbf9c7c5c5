# The ladder of zerosum-6x64-i2m (fp32), 10+0.1, one game at a time, on the 2-core Intel Xeon of
# 2026-11-27: the same rungs, games and openings as ../ladder-sp1v (sp1v's), nothing else running.
python -m trainer ladder --weights nets/zerosum-6x64-i2m.onnx --name zerosum-6x64-i2m --option Precision=fp32 \
  --rungs sunfish,sf1350,sf1500,sf2000,sf2200,maia1900 --games 6 --rung-games sf1500=20 --tc 10+0.1 \
  --maia-net ../shared/data/lc0/maia-1900.onnx --out runs/ladder-i2m --no-progress
# The Strategic Test Suite, i2m against sp1v on the same machine (../sts/i2m-vs-sp1v-100ms.json):
PYTHONPATH=. python benchmarks/sts.py --net nets/zerosum-6x64-i2m.onnx \
  --net nets/zerosum-6x64-sp1v.onnx --option Precision=fp32 --ms 100 \
  --json benchmarks/results/sts/i2m-vs-sp1v-100ms.json
