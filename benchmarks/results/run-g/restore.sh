#!/bin/bash
# The nets and the checkpoint this script restores left the tree (a slim clone); put them back
# from history first: git checkout b0f3780 -- benchmarks/results/run-g nets/zerosum-6x64.onnx
# Puts run g back into runs/rl-gumbel-g from what is committed here, so that the loop's own
# command (command.sh) continues it where the last session stopped: the loop's state, the
# history, the trainer's latest checkpoint (weights and optimizer) and the latest generation's
# net. Self-play games are not in git (bulky), so the replay window starts empty and fills again
# from the next generation on. Generation 0 is the bundled net (same weights; only the ONNX
# metadata differ from the loop's own export).
#   bash benchmarks/results/run-g/restore.sh && nohup bash benchmarks/results/run-g/command.sh >> runs/rl-gumbel-g.log 2>&1 &
set -e
cd "$(dirname "$0")/../../.."
S=benchmarks/results/run-g; R=runs/rl-gumbel-g
if [ -e $R/state.json ]; then echo "$R exists already: the loop resumes from it as it is"; exit 0; fi
[ -e $S/state.json ] && ls $S/checkpoints/ckpt-*.pt >/dev/null 2>&1 || {
  echo "no full snapshot here (state.json and checkpoints/): start a new run from $(ls $S/gen-*.onnx) with --init"; exit 1; }
mkdir -p $R/nets $R/checkpoints
cp -r $S/config.json $S/state.json $S/history $R/
cp $S/checkpoints/ckpt-*.pt $R/checkpoints/
cp $S/gen-*.onnx $R/nets/
cp nets/zerosum-6x64.onnx $R/nets/gen-0000.onnx
# Stopped in training: its window (the games) did not travel, so the generation's games are
# played again before it trains on, from the committed checkpoint.
python - "$R/state.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
if s["phase"] == "train":
    s["phase"] = "selfplay"
    json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
echo "restored $R at $(python -c "import json; s=json.load(open('$R/state.json')); print('generation', s['generation'], s['phase'])")"
