# From generation 17 on: 512 games and 600 steps a generation (256 and 300 before); from
# generation 21 on: 1024 games and 1200 steps. Each time the same number of training samples per
# new position, and half the evaluation overhead per position.
# The held-out figures per generation (from generation 13 on) where the held-out records exist
# (benchmarks/results/mix-ab/data.sh makes them): they do not change the run, only measure it.
HELDOUT=""; [ -d runs/sf-heldout/a ] && HELDOUT="--heldout runs/sf-heldout/a runs/sf-heldout/b"
python -m trainer loop --dir runs/rl-gumbel-g --init nets/zerosum-6x64.onnx --generations 60 \
  --root gumbel --full-visits 32 --full-share 1.0 --gumbel-considered 16 --gumbel-no-rescale \
  --games 1024 --steps 1200 --lr 1e-4 --schedule constant --warmup 10 --window 100000 --q-weight 1.0 \
  --resign-threshold -0.97 --resign-plies 8 --resign-playout 0.2 \
  --eval-games 100 --eval-nodes 100 --eval-concurrency 2 --no-eval-previous $HELDOUT
