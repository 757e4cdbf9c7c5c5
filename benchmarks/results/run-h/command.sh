#!/bin/bash
# Run h (selfplay-runs.md section 25): the AlphaZero loop from the bundled net
# zerosum-6x64-sp1v with its value head held where Stockfish's labels put it. Each generation:
# 256 self-play games (run g's Gumbel recipe: 16 considered moves, 32 visits, every move a full
# search) from the current net, then only the policy head (`--train-only policy_`) trained on the
# window of the run's own games (its improved-policy targets), exported, and played from next.
# Trunk, value and moves-left heads stay sp1v's, so the value does not drift down generation by
# generation as it did in run g (sections 15-21, 23). 2-core machine, no GPU: two self-play
# workers of one onnxruntime thread each (benchmarks/gpu_loop.sh with DEV=cpu).
# Resumable: run it again and it goes on from runs/h's state.json.
cd "$(dirname "$0")/../../.."
export RECIPE="--root gumbel --full-visits 32 --full-share 1.0 --gumbel-considered 16
  --gumbel-no-rescale --parallel 16 --resign-threshold -0.97 --resign-plies 8 --resign-playout 0.2"
export TRAIN="--steps 250 --batch-size 256 --lr 1e-4 --schedule constant --warmup 10
  --window 100000 --train-threads 2 --log-every 50 --train-only policy_
  --heldout runs/sf-heldout/a runs/sf-heldout/b"
# Run on 2026-11-27 for 73 minutes and stopped by hand after generation 19 (300,680 positions);
# its state.json points at generation 20's self-play, where this command resumes.
W=2 PER=128 DEV=cpu bash benchmarks/gpu_loop.sh runs/h nets/zerosum-6x64-sp1v.onnx ${LAST:-99} \
  ${SECONDS_LIMIT:-5400}
# The matches against generation 0 (the final net at 10+0.1 and at 100 nodes, generations 5, 10
# and 15 at 100 nodes; the 10+0.1 match alone on the machine):
bash benchmarks/results/run-h/evaluate.sh 19 5 10 15
# The per-generation table (games and positions counted from the records, held-out figures from
# the loop's history, matches from evaluate.sh; the final net's 200 games at 100 nodes copied to
# matches/gen-0019.json):
#   PYTHONPATH=. python benchmarks/run_table.py --run runs/h --matches benchmarks/results/run-h/matches
