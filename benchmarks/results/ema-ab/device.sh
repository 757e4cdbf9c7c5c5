#!/bin/bash
# Self-play from zerosum-6x64-sp1 (the bundled net) with a moving average of the nets
# (`loop --export-ema 0.5`: each generation's net is the mean of the net its games came from and
# the net trained on them), two arms side by side at equal compute on the GPU machine, W cores
# each: E1 run g's value target (the search's Q only, --q-weight 1.0), E2 the game result
# blended in (--q-weight 0.5). No evaluation there; the nets come back to be matched at 10+0.1.
#   bash benchmarks/results/ema-ab/device.sh OUT_DIR [W] [SECONDS]
set -u
OUT=${1:?out dir}; W=${2:-8}; LIMIT=${3:-380}
R=${RUN_DIR:-/tmp/ema-ab}; mkdir -p "$R" "$OUT"
export RECIPE="--root gumbel --full-visits 32 --full-share 1.0 --gumbel-considered 16
  --gumbel-no-rescale --parallel 16 --resign-threshold -0.97 --resign-plies 8 --resign-playout 0.2"
BASE="--steps 250 --batch-size 256 --lr 1e-4 --schedule constant --warmup 10 --window 100000
  --export-ema 0.5 --train-threads 2 --log-every 50"
SP1=nets/zerosum-6x64-sp1.onnx
W=$W PER=${PER:-32} TRAIN="$BASE --q-weight 1.0" bash benchmarks/gpu_loop.sh "$R/E1" $SP1 99 "$LIMIT" > "$OUT/E1.txt" 2>&1 &
W=$W PER=${PER:-32} TRAIN="$BASE --q-weight 0.5" bash benchmarks/gpu_loop.sh "$R/E2" $SP1 99 "$LIMIT" > "$OUT/E2.txt" 2>&1 &
wait
for a in E1 E2; do
  echo "== $a"; cat "$OUT/$a.txt"
  python3 - "$R/$a" <<'PY'
import collections, json, sys, pathlib
from trainer.records import Record, list_records, parse_name
run = pathlib.Path(sys.argv[1])
games, pos = collections.Counter(), collections.Counter()
for p in list_records(run / "games"):
    g = parse_name(p.name)[0]
    games[g] += 1
    pos[g] += len(Record.load(p).full)
total = 0
print("gen games positions total step steps/s value_loss policy_loss")
for g in sorted(games):
    h = run / "history" / f"gen-{g:04d}.json"
    tr = json.loads(h.read_text()).get("train", {}) if h.exists() else {}
    total += pos[g]
    print(g, games[g], pos[g], total, tr.get("step"), tr.get("steps_per_s"), tr.get("value_loss"),
          tr.get("policy_loss"))
PY
  mkdir -p "$OUT/$a"; cp -r "$R/$a/history" "$R/$a/state.json" "$R/$a/config.json" "$R/$a/train_log.jsonl" "$OUT/$a/" 2>/dev/null
  cp "$R/$a"/nets/gen-*.onnx "$OUT/$a/" 2>/dev/null; rm -f "$OUT/$a/gen-0000.onnx"
  last=$(ls "$R/$a/nets/trained" 2>/dev/null | tail -1); [ -n "$last" ] && cp "$R/$a/nets/trained/$last" "$OUT/$a/trained-$last"
  tar czf "$OUT/$a/logs.tgz" -C "$R/$a" logs
done
du -sh "$OUT"
