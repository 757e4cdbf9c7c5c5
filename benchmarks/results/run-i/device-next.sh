#!/bin/bash
# For the next session lent the GPU machine (not yet run): the workers' net in half precision
# measured against fp32 (one process, 400 visits, 128 games at once, 15 s each), then run i
# going on from run i's newest net (command.sh's step 3) with the faster of the two. Carry .dev,
# runs/sf-heldout and runs/sfmix (the value-only anchor, section 28; runs/i/games too where it
# exists), build the extension there first:
#   export PYTHONPATH=$PWD/.dev/site; python3 setup.py build_ext --inplace -j 16 >/dev/null;
#   bash benchmarks/results/run-i/device-next.sh $OUT 250
# (no generation starts after LIMIT seconds of the loop, and one takes about 3 minutes: with the
# build and the speed checks the call stays under the device's 10 minutes)
set -u
OUT=${1:?out dir}; LIMIT=${2:-250}
export PYTHONPATH=$PWD:${PYTHONPATH:-}
best=fp32; rate=0
for p in fp32 fp16; do
  r=$(python3 benchmarks/selfplay_speed.py --net nets/zerosum-6x64-sp1v.onnx --backend torch-cuda \
    --precision $p --visits 400 --parallel 128 --threads 1 --seconds 15 2>&1 | tee "$OUT/speed-$p.txt" |
    python3 -c "import json, sys; t = sys.stdin.read(); print(json.loads(t[t.index('{'):])['raw_evals_per_s_at_batch'])")
  echo "$p: raw $r evaluations/s"
  python3 -c "import sys; sys.exit(0 if float('$r') > float('$rate') * 1.2 else 1)" && { best=$p; rate=$r; }
done
echo "workers at $best"
CONTINUE=1 PRECISION=$best SECONDS_LIMIT=$LIMIT bash benchmarks/results/run-i/command.sh
(tar czf "$OUT/i2.tgz" runs/i2/history runs/i2/state.json runs/i2/nets runs/i2/logs 2>/dev/null)
(ls runs/i2/games | grep -c npz; du -sh runs/i2/games) 2>&1
# the records, to go on with the run's window elsewhere: at most 3 pieces of 14 MB come back
# (cat i2-games.tar.part-* | tar x), beside the nets and histories
tar cf - runs/i2/games | split -b 14m - "$OUT/i2-games.tar.part-"
ls "$OUT"/i2-games.tar.part-* | tail -n +4 | while read -r f; do echo "left out: $f"; rm -f "$f"; done
ls -la "$OUT"
