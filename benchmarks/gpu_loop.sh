#!/bin/bash
# `trainer loop` on one machine with many cores and a GPU: each generation's games come from one
# `trainer selfplay` worker per core (one onnxruntime thread each) writing into the run's games/,
# then `loop` itself finds the generation's games complete and trains (on the GPU), exports and
# moves on. No evaluation here (--eval-games 0): the nets are measured afterwards at a clock on
# the 2-core machine. Resumable like `loop`: run it again and it goes on where it stopped.
#   RECIPE="--root gumbel --full-visits 32 ..." bash benchmarks/gpu_loop.sh RUN INIT LAST_GEN SECONDS
# RECIPE holds the self-play flags (given to the workers and to loop alike) and the training
# flags (loop only: TRAIN); W workers of PER games each make a generation; SECONDS bounds the
# whole call (no generation starts after it; an unfinished one resumes next time). BACKEND is
# the workers' --backend: torch-cuda runs their net on the GPU (about 10x the CPU's positions/s
# at 400 visits on the H200 machine; fewer workers with more games each, e.g. W=8 and
# --parallel 128 in RECIPE, since the workers' CUDA contexts take turns on the one GPU);
# PRECISION (fp32, fp16, bf16) their arithmetic there.
set -eu
RUN=${1:?run dir}; INIT=${2:?initial net}; LAST=${3:?last generation}; LIMIT=${4:-540}
W=${W:-16}; PER=${PER:-16}; DEV=${DEV:-cuda}; RECIPE=${RECIPE:-}; TRAIN=${TRAIN:-}
BACKEND=${BACKEND:-cpu}; PRECISION=${PRECISION:-fp32}
t0=$(date +%s); mkdir -p "$RUN/games" "$RUN/logs"
LOOP="python3 -m trainer loop --dir $RUN --init $INIT --games $((W * PER)) --eval-games 0 --device $DEV $RECIPE $TRAIN"
while [ $(( $(date +%s) - t0 )) -lt "$LIMIT" ]; do
  read -r G NET < <(python3 -c "
import json, pathlib
p = pathlib.Path('$RUN/state.json')
s = json.loads(p.read_text()) if p.exists() else {'generation': 1, 'best': None}
print(s['generation'], '$RUN/' + s['best'] if s['best'] else '$INIT')")
  [ "$G" -gt "$LAST" ] && { echo "done: generation $LAST reached"; break; }
  for w in $(seq 0 $((W - 1))); do
    have=$(ls "$RUN/games" | grep -c "^g$(printf %04d "$G")-w$(printf %03d "$w")-.*\.npz$" || true)
    [ "$have" -lt "$PER" ] && python3 -m trainer selfplay --net "$NET" --out "$RUN/games" \
      --generation "$G" --worker "$w" --threads 1 --backend "$BACKEND" --precision "$PRECISION" --games $((PER - have)) $RECIPE \
      > "$RUN/logs/g$G-w$w.log" 2>&1 &
  done
  wait
  echo "generation $G: $(ls "$RUN/games" | grep -c "^g$(printf %04d "$G")-.*\.npz$") games at $(( $(date +%s) - t0 ))s"
  $LOOP --generations "$G" > "$RUN/logs/loop-g$G.log" 2>&1 || { tail -c 2000 "$RUN/logs/loop-g$G.log"; exit 1; }
  grep -h "^{\"path\"\|exported\|gen $G" "$RUN/logs/loop-g$G.log" | tail -2
done
echo "stopped at $(( $(date +%s) - t0 ))s; $(cat "$RUN/state.json")"
