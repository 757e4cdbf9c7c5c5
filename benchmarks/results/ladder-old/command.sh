# The previous bundled net on the same rungs, same machine and settings as runs/ladder-sp1 (controls for the machine)
python -m trainer ladder --weights nets/zerosum-6x64.onnx --name zerosum-6x64 --option Precision=fp32 \
  --rungs sunfish,sf1500 --games 6 --rung-games sf1500=20 --tc 10+0.1 --out runs/ladder-old --no-progress
