# The ladder of zerosum-6x64-sp1v (fp32), 10+0.1, one game at a time, on the 2-core machine of
# 2026-11-27: the same rungs, games and openings as ../ladder-sp1 (sp1's), nothing else running.
python -m trainer ladder --weights nets/zerosum-6x64-sp1v.onnx --name zerosum-6x64-sp1v --option Precision=fp32 \
  --rungs sunfish,sf1350,sf1500,sf2000,sf2200,maia1900 --games 6 --rung-games sf1500=20 --tc 10+0.1 \
  --maia-net ../shared/data/lc0/maia-1900.onnx --out runs/ladder-sp1v --no-progress
