#!/bin/bash
# Run i, generation 2 again (selfplay-runs.md section 28): the value target, A/B at equal
# training compute on the same records. Each arm is F trained on generation 2's 90,057
# positions exactly as G2 was (1,196 steps of 256, AdamW 1e-4 constant, window of all of them)
# with one thing changed:
#   G2  (control, cpu-generation.sh): the search's Q as the value target (--q-weight 1.0)
#   G2h: the game result blended in half and half (--q-weight 0.5)
#   G2m: a quarter of each batch from Stockfish-labelled positions that teach the value alone
#        (--mix-targets value: their MultiPV policy targets dropped)
#   G2v: G2 with its value head retrained alone on the Stockfish labels, trunk and policy
#        frozen (sp1v's own recipe, selfplay-runs.md section 24, applied to G2)
#   bash benchmarks/results/run-i/value-ab.sh           (2-core machine; runs/ not in git)
set -eu
cd "$(dirname "$0")/../../.."
N=benchmarks/results/run-i; R=runs/i3; export PYTHONPATH=$PWD
# 1. Stockfish-labelled records (seeds 200/201 as value-anchor's), 14 minutes on both cores,
#    and the held-out set (seeds 900/901; no training set uses them):
[ -d runs/sf-heldout/b ] || {
  python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900 &
  python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901 & wait; }
[ -d runs/sfmix/b ] || {
  timeout 840 python -m trainer sf-games --out runs/sfmix/a --games 1000 --seed 200 &
  timeout 840 python -m trainer sf-games --out runs/sfmix/b --games 1000 --seed 201 & wait; }
rm -f runs/sfmix/*/.*.tmp
# 2. The arms (about 6 minutes each on 2 cores):
T="--data $R/g2 --init $N/run-i-F.onnx --steps 1196 --batch-size 256 --lr 1e-4
  --schedule constant --warmup 10 --window 1000000 --train-threads 2 --log-every 200 --resume"
[ -f $N/run-i-G2h.onnx ] || python -m trainer train $T --q-weight 0.5 --out $R/train-G2h \
  --export $N/run-i-G2h.onnx > $R/logs/train-G2h.log 2>&1
[ -f $N/run-i-G2m.onnx ] || python -m trainer train $T --q-weight 1.0 --out $R/train-G2m \
  --mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value \
  --export $N/run-i-G2m.onnx > $R/logs/train-G2m.log 2>&1
[ -f $N/run-i-G2v.onnx ] || python -m trainer train --data runs/sfmix/a runs/sfmix/b \
  --init $N/run-i-G2.onnx --train-only value_ --steps 1500 --lr 1e-3 --schedule cosine \
  --warmup 20 --batch-size 256 --q-weight 1.0 --window 1000000 --train-threads 2 \
  --log-every 200 --resume --out $R/train-G2v --export $N/run-i-G2v.onnx > $R/logs/train-G2v.log 2>&1
# 3. Held out (value-ab-heldout.txt):
python benchmarks/heldout.py --nets nets/zerosum-6x64-sp1v.onnx $N/run-i-F.onnx $N/run-i-G2.onnx \
  $N/run-i-G2h.onnx $N/run-i-G2m.onnx $N/run-i-G2v.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/value-ab-heldout.txt
# 4. Against sp1v: bash benchmarks/results/run-i/evaluate.sh ARM 10+0.1 (ARM G2m, G2v, ...)
