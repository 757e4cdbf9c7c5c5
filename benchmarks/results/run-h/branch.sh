#!/bin/bash
# Run h is a branch of run g at generation 12 (219,413 self-play positions): the same loop,
# state, checkpoint and replay window, with Stockfish-labelled records mixed into every batch.
# Makes runs/rl-gumbel-h from runs/rl-gumbel-g (hard links: the loop replaces files, never
# edits them), restoring run g from git first where it is missing.
set -e
cd "$(dirname "$0")/../../.."
H=runs/rl-gumbel-h; G=runs/rl-gumbel-g
if [ -e $H/state.json ]; then echo "$H exists already: the loop resumes from it as it is"; exit 0; fi
[ -e $G/state.json ] || bash benchmarks/results/run-g/restore.sh
cp -al $G $H
rm -rf $H/tb $H/plots $H/eval/*.partial
cp --remove-destination $G/train_log.jsonl $H/  # appended to: a copy, not a link
echo "branched $H from $G at $(python -c "import json; s=json.load(open('$H/state.json')); print('generation', s['generation'], s['phase'])")"
