#!/bin/bash
# One generation's training (300 steps, run g's settings) from run g's generation-12 checkpoint on
# run g's replay window, with variant options: train.sh NAME [extra trainer args]
cd "$(dirname "$0")/../../.."
name=$1; shift
python -m trainer train --data runs/rl-gumbel-g/games --out runs/ab/$name \
  --init runs/rl-gumbel-g/checkpoints/ckpt-00003600.pt --steps 300 --lr 1e-4 --schedule constant \
  --warmup 10 --window 100000 --q-weight 1.0 --export runs/ab/$name.onnx "$@"
