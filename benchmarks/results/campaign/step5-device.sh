#!/bin/bash
# Issue 58's campaign, step 5 (written 2026-12-05 as step 4, renumbered when step 4 ran on the
# CPU with seed 64), for a session lent the GPU machine: step 3a's
# recipe (fresh 3,000-node labels, 8,000 steps from c2, the only step-3 recipe that beat c2),
# with the labels made on that machine's 16 cores and the training on its GPU, in one call of the
# device tool. The 2-core AVX2 machine of steps 3b/3c trains at 0.6-0.7 steps/s, so this recipe
# needs over three hours there (step 3c's note).
#
# Here, once (no device time): copies python-chess (pure Python) and Stockfish 15.1's binary into
# .dev/, a folder git ignores, for the machine that has neither (23 MB with the tree's 25 MB):
#     bash benchmarks/results/campaign/step5-device.sh prepare
# There, as one call (the machine's start is counted too; keep the command under 10 minutes):
#     run(command="bash benchmarks/results/campaign/step5-device.sh",
#         carry=[".dev"], timeout_s=600)
# and back here, from the files it returns (c5.onnx, the logs):
#     bash benchmarks/results/campaign/step5-device.sh finish DIR_OF_THE_RETURNED_FILES
# which quantizes, scores the held-out set and plays c2 (step 3a's steps 3-5).
# A dry run here at toy size (2026-12-05: 3,111 labels and 20 steps in 2 minutes, c5.onnx loads):
#   MINUTES=0.3 STEPS=20 DEVICE=cpu PRECISION=fp32 WORKERS=1 OUT=/tmp/s5 PY=python \
#     bash benchmarks/results/campaign/step5-device.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
N=benchmarks/results/campaign
MODE=${1:-device}

if [ "$MODE" = prepare ]; then
  mkdir -p .dev/site   # .gitignore has /.dev/
  cp -r "$(python -c 'import chess, os; print(os.path.dirname(chess.__file__))')" .dev/site/
  # xz: the binary (its NNUE net inside) is 47 MB, 22 MB packed; the tree may carry 64 MB in all
  xz -6 -T2 -c "$(command -v stockfish || echo /usr/games/stockfish)" > .dev/stockfish.xz
  du -sh .dev
  exit 0
fi

if [ "$MODE" = finish ]; then
  BACK=${2:?the folder holding the returned c5.onnx}
  mkdir -p runs/camp
  cp "$BACK/c5.onnx" runs/camp/c5.onnx
  git show 3696b06:nets/zerosum-6x64-c2.onnx > runs/camp/c2.onnx
  python -m trainer quantize runs/camp/c5.onnx --out runs/camp/c5-int8.onnx \
    --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
  [ -d runs/sf-heldout/a ] || python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
  [ -d runs/sf-heldout/b ] || python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
  PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c2.onnx runs/camp/c5.onnx \
    runs/camp/c5-int8.onnx --records runs/sf-heldout/a runs/sf-heldout/b | tee $N/step5-heldout.jsonl
  # one game at a time, nothing else running, both nets at the engine's defaults
  python -m trainer match --weights1 runs/camp/c5.onnx --name1 campaign-c5 \
    --weights2 runs/camp/c2.onnx --name2 c2 --tc 10+0.1 --games 100 \
    --pgn runs/camp/c5-vs-c2.pgn --json $N/c5-vs-c2.json --resume --no-progress
  exit 0
fi

# On the GPU machine: its python3 holds torch (CUDA), numpy, onnx, onnxruntime and Cython.
OUT=${OUT:?the device tool sets OUT}
MINUTES=${MINUTES:-4}; STEPS=${STEPS:-8000}; WORKERS=${WORKERS:-16}
DEVICE=${DEVICE:-cuda}; PRECISION=${PRECISION:-bf16}; WORK=${WORK:-/tmp/step5}
PY=${PY:-python3}
export PYTHONPATH="$PWD/.dev/site:$PWD" PYTHONUNBUFFERED=1
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/step5.log"; }
stamp "start on $(nproc) cores: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo no GPU)"
# the engine's Cython core, built for this Python unless it is there already
$PY -c "import engine.board, engine.mcts, engine.batch" 2>/dev/null \
  || $PY setup.py build_ext --inplace > "$OUT/build.log" 2>&1
mkdir -p "$WORK"
SF=$(command -v stockfish || true)
if [ -f .dev/stockfish.xz ]; then
  SF=$WORK/stockfish
  $PY -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
    .dev/stockfish.xz "$SF"
  chmod +x "$SF"
fi
stamp "built; Stockfish: $("$SF" quit <<< "" | head -n 1)"
cp nets/zerosum-6x64-c2.onnx "$WORK/c2.onnx"   # the bundled net (no .git travels)
# 1. Labels: a Stockfish on each core for the minutes given, 3,000 nodes a position, seed 65
#    (64 is step 4's, on the CPU).
$PY -m trainer sf-campaign --dir "$WORK/s5" --workers "$WORKERS" --nodes 3000 --seed 65 \
  --minutes "$MINUTES" --stockfish "$SF" --report-s 30 > "$OUT/label.log" 2>&1
stamp "labelled: $(tail -n 1 "$OUT/label.log")"
# 2. Training: step 3a's (from c2, every parameter, batch 256, AdamW 5e-4 cosine, this step's
#    data only), on the GPU.
$PY -m trainer train --data "$WORK/s5/data" --init "$WORK/c2.onnx" \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --device "$DEVICE" --train-precision "$PRECISION" --steps "$STEPS" --lr 5e-4 \
  --checkpoint-every 1000 --keep 2 --out "$WORK/s5-train" --export "$OUT/c5.onnx" \
  > "$OUT/train.log" 2>&1
stamp "trained: $(grep -c . "$OUT/train.log") log lines; $(ls -la "$OUT/c5.onnx")"
