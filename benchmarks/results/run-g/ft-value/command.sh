# Value-target A/B on run g's generation-27 records (the 90,186 positions of the 1,026 games
# that runs/rl-gumbel-g/games held when the run stopped; records are bulky and not in git, so on
# another machine the run resumed, restore.sh then command.sh, makes its own): 1,200 more steps from
# ckpt-00015600 at --q-weight 1.0 (control: the run's own setting), 0.5 and 0.0 (the game result
# only), each exported, then all against Stockfish's held-out labels (heldout.jsonl beside this).
# Held-out records: python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
# (and b, --seed 901).
set -e
cd "$(dirname "$0")/../../../.."
for q in 1.0 0.5 0.0; do
  d=runs/ft/q$q
  [ -f $d/net.onnx ] && continue
  python -m trainer train --data runs/rl-gumbel-g/games --out $d \
    --init runs/rl-gumbel-g/checkpoints/ckpt-00015600.pt --steps 1200 --lr 1e-4 \
    --schedule constant --warmup 10 --window 100000 --q-weight $q --seed 1 --export $d/net.onnx
done
PYTHONPATH=. python benchmarks/heldout.py --nets runs/rl-gumbel-g/nets/gen-0027.onnx \
  runs/ft/q1.0/net.onnx runs/ft/q0.5/net.onnx runs/ft/q0.0/net.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b
