#!/bin/bash
# Run i, generation 1, on the GPU machine (selfplay-runs.md section 26): self-play from the
# bundled net sp1v at the depth the engine searches at 10+0.1 on 2 cores (about 300-1,000 nodes a
# move), 400 visits of PUCT every move with KataGo's forced playouts and policy-target pruning,
# the net run by torch on the GPU (`--backend torch-cuda`: onnxruntime there has no CUDA
# provider, and on one CPU thread the net is 99% of a visit's cost). Workers are killed after
# PLAY seconds (a killed worker loses only its unfinished games). Then two copies of sp1v train
# on the games on the GPU, side by side: P the policy head alone (`--train-only policy_`, run h's
# way), F every parameter (value target the search's Q). Nets, logs and as many records as fit
# come back in OUT.
#   bash benchmarks/results/run-i/device.sh OUT PLAY_SECONDS WORKERS
set -u
OUT=${1:?out dir}; PLAY=${2:-270}; W=${3:-24}
BACKEND=${BACKEND:-torch-cuda}; DEV=${DEV:-cuda}; SPEED_S=${SPEED_S:-15}
export PYTHONPATH=$PWD:${PYTHONPATH:-}
R=${RUN_DIR:-/tmp/run-i}; mkdir -p "$R/games" "$R/logs" "$OUT"
INIT=nets/zerosum-6x64-sp1v.onnx
RECIPE="--root puct --full-visits ${VISITS:-400} --full-share 1.0 --forced-playouts 2 --parallel ${PAR:-32}
  --minibatch 8 --resign-threshold -0.98 --resign-plies 10 --resign-playout 0.2"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s]"; }
# 1. One process alone: positions/s and the network's evaluations/s at the batch it sent.
python3 benchmarks/selfplay_speed.py --net $INIT --backend $BACKEND --visits ${VISITS:-400} --parallel ${PAR:-32} \
  --threads 1 --seconds "$SPEED_S" 2>&1 | grep -v "^ *$" | tail -25
echo "$(el) speed done"
# 2. Self-play, W workers for PLAY seconds.
for w in $(seq 0 $((W - 1))); do
  timeout -s KILL "$PLAY" python3 -m trainer selfplay --net $INIT --out "$R/games" --generation 1 \
    --worker $w --threads 1 --backend $BACKEND --games 100000 --selfplay-seed $((500 + w)) \
    $RECIPE > "$R/logs/w$w.log" 2>&1 &
done
wait
rm -f "$R"/games/*.tmp* 2>/dev/null
echo "$(el) self-play done; worker 0: $(tail -c 300 "$R/logs/w0.log" | tr '\r' '\n' | tail -1)"
read -r POS < <(python3 benchmarks/results/run-i/count.py "$R/games" "$PLAY")
echo "$(el) counted: $POS positions"
# 3. Training on the GPU, both arms at once (3.4 samples a position, run g's ratio; at most 3,000).
S=$(python3 -c "print(min(3000, max(100, round(${POS:-0} * 3.4 / 256))))")
T="--data $R/games --init $INIT --steps $S --batch-size 256 --lr 1e-4 --schedule constant --warmup 10
  --q-weight 1.0 --window 1000000 --device $DEV --log-every 200 --train-threads 4 --checkpoint-every 100000"
python3 -m trainer train $T --out "$R/P" --train-only policy_ --export "$OUT/run-i-P.onnx" > "$R/logs/train-P.log" 2>&1 &
python3 -m trainer train $T --out "$R/F" --export "$OUT/run-i-F.onnx" > "$R/logs/train-F.log" 2>&1 &
wait
echo "$(el) trained $S steps each"
for a in P F; do tail -c 600 "$R/logs/train-$a.log" | tr '\r' '\n' | tail -3; done
# 4. Back: logs, then records in tars of at most 12 MB, as many as fit in 4.
(cd "$R" && tar czf "$OUT/logs.tgz" logs P/*.jsonl F/*.jsonl 2>/dev/null)
(cd "$R" && ls games | grep '\.npz$' | awk '{print "games/" $0}' > all.list && \
  python3 - <<'PY'
import os
files = [l.strip() for l in open("all.list")]; part, size, parts = [], 0, []
for f in files:
    s = os.path.getsize(f)
    if size + s > 12e6 and part:
        parts.append(part); part, size = [], 0
    part.append(f); size += s
if part: parts.append(part)
for i, p in enumerate(parts[:4]):
    open(f"part{i}.list", "w").write("\n".join(p) + "\n")
print(f"records: {len(files)} files in {len(parts)} parts, {min(4, len(parts))} sent back")
PY
  for l in part*.list; do tar cf "$OUT/games-${l%.list}.tar" -T "$l"; done)
ls -la "$OUT"; echo "$(el) done"
