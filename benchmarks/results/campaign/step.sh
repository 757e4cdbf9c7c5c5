#!/bin/bash
# Issue 58's campaign, one step from step 9 on (steps 1-8 have their own stepN.sh): fresh
# 3,000-node labels with side positions, then 8,000 bf16 steps from the shipped parent, its
# held-out and off-path figures, its match against Stockfish at UCI_Elo 2000 and then against
# the parent, at 10+0.1.
#
#   step.sh N PARENT PARENT_COMMIT SEED SIDE_P [REPLAY_STEP ...] [-- TRAIN_ARG ...]
#
# N names the step's files (runs/camp/sN, cN.onnx, benchmarks/results/campaign/stepN-*.jsonl);
# PARENT (e.g. c8) is read from nets/zerosum-6x64-PARENT.onnx at PARENT_COMMIT. With REPLAY_STEP
# numbers (earlier steps of this table), MIX_SHARE (default 0.5) of every batch is drawn from
# those steps' labels, remade from their seeds if this machine lacks them (about 40 minutes
# each); without, the step trains on its fresh labels alone, as steps 4-8 did. Arguments after
# `--` go to the training (`-- --resume` continues from its checkpoints). ARM=x in the environment
# names a second arm of the same step (cNx, sNx-train, stepNx-*.jsonl) that trains on step N's
# labels with other training arguments. Every command resumes where it stopped: rerun the script.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
R=benchmarks/results/campaign
# The labels of each step, as its script made them: seed, side share and the share of games played
# to their end (`sf-campaign --playout-p`: 0 before step 14), 378 batches.
declare -A SEED_OF=([6]=66 [7]=67 [8]=68 [9]=69 [10]=70 [11]=71 [12]=72 [13]=73 [14]=74 [15]=75) \
  SIDE_OF=([6]=0.2 [7]=0.2 [8]=0.3 [9]=0.3 [10]=0.3 [11]=0.3 [12]=0.3 [13]=0.3 [14]=0.3 [15]=0.3) \
  PLAYOUT_OF=([14]=0.2 [15]=0.2)

[ $# -ge 5 ] || { grep -m1 "^#   step.sh" "$0" >&2; exit 2; }
N=$1 PARENT=$2 COMMIT=$3 SEED=$4 SIDE=$5
shift 5
REPLAY=() TRAIN=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do REPLAY+=("$1"); shift; done
[ $# -gt 0 ] && shift && TRAIN=("$@")
A=$N${ARM:-}
C=runs/camp/c$A
mkdir -p runs/camp

# The parent and its int8 copy (the match plays it, as the engine does on a CPU with int8 dot
# products), as shipped.
for f in "$PARENT.onnx" "$PARENT-int8.onnx"; do
  [ -f "runs/camp/$f" ] || git show "$COMMIT:nets/zerosum-6x64-$f" > "runs/camp/$f"
done
# 1. Held-out records, if this machine lacks them (the sets every card quotes).
[ -d runs/sf-heldout/a ] || python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
[ -d runs/sf-heldout/b ] || python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 2. Labels, 3,000 nodes a position, both cores, nothing else running (about 40 minutes on the
#    2-core AVX-512 machine); then any replayed step's labels this machine lacks.
label() {  # dir seed side-p [playout-p]
  python -m trainer sf-campaign --dir "$1" --workers 2 --nodes 3000 --seed "$2" --side-p "$3" \
    --playout-p "${4:-0}" --batches 378
}
label "runs/camp/s$N" "$SEED" "$SIDE" "${PLAYOUT_OF[$N]:-0}"
MIX=()
for k in "${REPLAY[@]}"; do
  [ -n "${SEED_OF[$k]:-}" ] || { echo "no labels recorded for step $k" >&2; exit 2; }
  label "runs/camp/s$k" "${SEED_OF[$k]}" "${SIDE_OF[$k]}" "${PLAYOUT_OF[$k]:-0}"
  MIX+=("runs/camp/s$k/data")
done
[ ${#MIX[@]} -eq 0 ] || MIX=(--mix-data "${MIX[@]}" --mix-share "${MIX_SHARE:-0.5}")
# 3. Training: from the parent, every parameter, batch 256, AdamW 5e-4 cosine to step 8,000,
#    bf16 (about 30 minutes at 4.5 steps/s).
python -m trainer train --data "runs/camp/s$N/data" "${MIX[@]}" --init "runs/camp/$PARENT.onnx" \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision bf16 --steps 8000 --lr 5e-4 --seed 7 \
  --checkpoint-every 1000 --keep 2 --out "runs/camp/s$A-train" --export "$C.onnx" "${TRAIN[@]}"
python -m trainer quantize "$C.onnx" --out "$C-int8.onnx" \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search; then off the teacher's path (1,000 held-out positions and a random
#    move's child of each, labelled at 8,000 nodes).
PYTHONPATH=. python benchmarks/heldout.py --nets "runs/camp/$PARENT.onnx" "$C.onnx" \
  "$C-int8.onnx" --records runs/sf-heldout/a runs/sf-heldout/b | tee "$R/step$A-heldout.jsonl"
PYTHONPATH=. python benchmarks/offpath_value.py --records runs/sf-heldout/a runs/sf-heldout/b \
  --max 1000 --nets "runs/camp/$PARENT.onnx" "$C.onnx" | tee "$R/step$A-offpath.jsonl"
# 5. Against Stockfish 15.1 at UCI_Elo 2000, 200 games at 10+0.1 with the packaged openings and
#    both colours, one game at a time, nothing else running (about 110 minutes): the figure that
#    decides whether the step ships. A step's match against its parent overstates what it gains
#    (c13 beat c12 by 123 Elo there, but scored only 1.2 points in a hundred more than c12 against
#    Stockfish).
python -m trainer match --weights1 "$C.onnx" --name1 "campaign-c$A" --stockfish-elo 2000 \
  --tc 10+0.1 --games "${SF_GAMES:-200}" --pgn "runs/camp/c$A-vs-sf2000.pgn" \
  --json "$R/c$A-vs-sf2000.json" --resume --no-progress
# 6. Against the parent, 100 games (about 50 minutes; PARENT_GAMES=0 skips it).
[ "${PARENT_GAMES:-100}" -gt 0 ] || exit 0
python -m trainer match --weights1 "$C.onnx" --name1 "campaign-c$A" \
  --weights2 "runs/camp/$PARENT.onnx" --name2 "$PARENT" --tc 10+0.1 --games "${PARENT_GAMES:-100}" \
  --pgn "runs/camp/c$A-vs-$PARENT.pgn" --json "$R/c$A-vs-$PARENT.json" --resume --no-progress
