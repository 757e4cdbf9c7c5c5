#!/bin/bash
# Equal-compute A/B of the self-play search depth, from zerosum-6x64-sp1 (the bundled net):
# half the cores play at 32 visits a move (run g's recipe), half at 128; both for the same wall
# time. Then each set trains a copy of sp1 (--device cuda where there is a GPU) at run g's
# ratio of training samples to new positions (about 3.4), and B once more with A's step count.
# Run on the GPU machine (16 cores) as
#   bash benchmarks/results/visits-ab/device.sh OUT_DIR WORKERS_PER_ARM PLAY_SECONDS DEVICE
# Records and nets are tarred into OUT_DIR as soon as each exists.
set -u
OUT=${1:?out dir}; W=${2:-8}; PLAY=${3:-330}; DEV=${4:-cuda}
R=${RUN_DIR:-/tmp/visits-ab}; mkdir -p "$R" "$OUT"
SP1=nets/zerosum-6x64-sp1.onnx
COMMON="--root gumbel --full-share 1.0 --gumbel-considered 16 --gumbel-no-rescale
  --resign-threshold -0.97 --resign-plies 8 --resign-playout 0.2 --threads 1 --generation 1 --games 100000"
date +%s > "$R/t0"
for w in $(seq 0 $((W - 1))); do
  timeout -s KILL "$PLAY" python3 -m trainer selfplay --net $SP1 --out "$R/A/games" --worker $w \
    --full-visits 32 --parallel 16 --selfplay-seed $((100 + w)) $COMMON > "$R/A-w$w.log" 2>&1 &
  timeout -s KILL "$PLAY" python3 -m trainer selfplay --net $SP1 --out "$R/B/games" --worker $w \
    --full-visits 128 --parallel 8 --selfplay-seed $((200 + w)) $COMMON > "$R/B-w$w.log" 2>&1 &
done
wait
rm -f "$R"/*/games/*.tmp* 2>/dev/null
count() { python3 -c "
import sys; from trainer.records import Record, list_records
ps = list_records(sys.argv[1]); print(len(ps), sum(len(Record.load(p).full) for p in ps))" "$1"; }
for f in "$R"/A-w0.log "$R"/B-w0.log; do echo "$f: $(tail -c 300 "$f" | tr '\r' '\n' | tail -1)"; done
read GA PA < <(count "$R/A/games"); read GB PB < <(count "$R/B/games")
echo "A (32 visits): $GA games $PA positions; B (128 visits): $GB games $PB positions in ${PLAY}s x $W workers each"
(cd "$R" && tar cf "$OUT/games-B.tar" B/games) 
(cd "$R" && ls A/games | awk -v R="A/games/" '{print R $0}' > A.list && split -n l/3 -d A.list A.part && \
  for p in A.part0*; do tar cf "$OUT/games-$p.tar" -T "$p"; done)
steps() { python3 -c "print(max(50, round($1 * 3.4 / 256)))"; }
SA=$(steps $PA); SB=$(steps $PB)
echo "training steps: A $SA, B $SB, B2 $SA"
TRAIN="--init $SP1 --batch-size 256 --lr 1e-4 --schedule constant --warmup 10 --q-weight 1.0 --window 100000 --device $DEV --log-every 100 --train-threads ${TRAIN_THREADS:-4} --checkpoint-every 200"
timeout ${TRAIN_S:-120} python3 -m trainer train --data "$R/A/games" --out "$R/A/train" --steps $SA $TRAIN --export "$R/A.onnx" > "$R/train-A.log" 2>&1 &
timeout ${TRAIN_S:-120} python3 -m trainer train --data "$R/B/games" --out "$R/B/train" --steps $SB $TRAIN --export "$R/B.onnx" > "$R/train-B.log" 2>&1 &
timeout ${TRAIN_S:-120} python3 -m trainer train --data "$R/B/games" --out "$R/B2/train" --steps $SA $TRAIN --export "$R/B2.onnx" > "$R/train-B2.log" 2>&1 &
wait
grep -h "steps_per_s" "$R"/A/train/*.jsonl 2>/dev/null | tail -1
for f in "$R"/train-*.log; do echo "$f"; tail -c 400 "$f" | tr '\r' '\n' | tail -2; done
(cd "$R" && tar cf "$OUT/nets-logs.tar" *.onnx *.log A/train/*.jsonl B/train/*.jsonl B2/train/*.jsonl 2>/dev/null)
echo "total $(( $(date +%s) - $(cat $R/t0) ))s"
