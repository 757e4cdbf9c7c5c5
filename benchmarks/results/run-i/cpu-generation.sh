#!/bin/bash
# One generation of run i on a 2-core machine (selfplay-runs.md section 27): self-play from the
# previous generation's net in int8 (`--precision int8`: the net quantized beside itself, about
# 1.9x fp32's positions/s where the CPU has VNNI or AMX), the same 400-visit PUCT recipe as
# device.sh, one worker per core for PLAY seconds; then the previous net trained on the
# generation's records (every parameter, the search's Q as the value target, as F was) and
# exported as run-i-G<GEN>.onnx beside this script, to be matched with evaluate.sh G<GEN> ....
#   bash benchmarks/results/run-i/cpu-generation.sh GEN PREV_NET PLAY_SECONDS [WORKERS]
# Resumable: the records stay in runs/i3/games (kept out of git), and a worker started again
# continues its numbering and its seed sequence, so a second call adds new games; training
# uses every record of generation GEN found there. PLAY_SECONDS=0 trains on what is there.
# TRAIN_EXTRA adds options to the training step, e.g. section 28's value-only anchor:
#   TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value"
# RESIGN sets the resignation threshold, RESIGN_PLIES the plies in a row (10 unless set; -0.98
# in generations 2-3). Generation 3's played-out games put -0.98 at 10% false resignations and
# -0.99 at 2.8% (resign-g3.txt, benchmarks/resign_threshold.py), so generation 4 on runs with
# RESIGN=-0.99.
# Generation 4's played-out games had 4 false of 17 at -0.99, so generation 5 ran at -0.995: one
# game of 442 resigned, and in the 93 played out no side reached it (resign-g5.txt).
# Judged by Stockfish's WDL instead of the games' results, -0.98 was never false over generations
# 5-8 (0 of 84 resignations; resign-g5-8-sf.txt, section 34): RESIGN=-0.98 from generation 9 on.
# Over generations 5-9, -0.97 over 6 plies was never false by Stockfish either (0 of 236) and saves
# 30% of the plies (resign-g5-9-sf.txt, section 35): RESIGN=-0.97 RESIGN_PLIES=6 from generation 10.
# Generations 5-9 were all played by G4 (a gate: no later net had beaten it); generation 10 was
# played by G9, the newest net, as AlphaZero updates without a gate (section 36).
# Stop a generation by killing this script before its workers: killed workers alone let it go on
# to train, beside whatever runs next (section 36).
# WINDOW adds earlier generations' record folders to the training data (a training window, as
# G3w's A/B); the steps scale with every position trained on, 3.4 samples a position.
set -u
cd "$(dirname "$0")/../../.."
GEN=${1:?generation}; PREV=${2:?previous net}; PLAY=${3:?seconds}; W=${4:-2}
N=benchmarks/results/run-i; R=runs/i3; export PYTHONPATH=$PWD
mkdir -p "$R/games" "$R/logs" "$R/nets"
cp "$PREV" "$R/nets/gen-$(printf %04d $((GEN - 1))).onnx"
NET=$R/nets/gen-$(printf %04d $((GEN - 1))).onnx
t0=$(date +%s)
if [ "$PLAY" -gt 0 ]; then
  python -c "from trainer.quantize import ensure_int8; ensure_int8('$NET')"
  for w in $(seq 0 $((W - 1))); do
    timeout -s KILL "$PLAY" python -m trainer selfplay --net "$NET" --precision int8 \
      --out "$R/games" --generation "$GEN" --worker "$w" --threads 1 --backend cpu \
      --games 100000 --selfplay-seed $((700 + 10 * (GEN - 2) + w)) --root puct --full-visits 400 \
      --full-share 1.0 --forced-playouts 2 --parallel 32 --minibatch 8 \
      --resign-threshold ${RESIGN:--0.98} --resign-plies ${RESIGN_PLIES:-10} --resign-playout 0.2 \
      > "$R/logs/g$GEN-w$w.log" 2>&1 &
  done
  wait
fi
rm -f "$R"/games/.*.tmp 2>/dev/null
mkdir -p "$R/g$GEN"  # the generation's records alone, for train --data
find "$R/games" -name "g$(printf %04d "$GEN")-*" -exec ln -sf "$PWD/{}" "$R/g$GEN/" \;
read -r POS < <(python benchmarks/results/run-i/count.py "$R/g$GEN")
read -r ALL < <(python benchmarks/results/run-i/count.py "$R/g$GEN" ${WINDOW:-})
echo "[$(( $(date +%s) - t0 ))s] self-play done: $POS positions"
S=$(python -c "print(max(100, round(${ALL:-0} * 3.4 / 256)))")
python -m trainer train --data "$R/g$GEN" ${WINDOW:-} --init "$NET" --out "$R/train-g$GEN" --steps "$S" \
  --batch-size 256 --lr 1e-4 --schedule constant --warmup 10 --q-weight 1.0 --window 1000000 \
  --train-threads "$W" --log-every 200 --checkpoint-every 500 --resume ${TRAIN_EXTRA:-} \
  --export "$N/run-i-G$GEN.onnx" > "$R/logs/train-g$GEN.log" 2>&1
echo "[$(( $(date +%s) - t0 ))s] trained $S steps: $(tail -c 400 "$R/logs/train-g$GEN.log" | tr '\r' '\n' | tail -2)"
