#!/bin/bash
# Issue 58's campaign, step 14's second arm (prepared 2026-12-07, not run): step14.sh's labels,
# replay and training, with the policy targets sharpened from the softmax of Stockfish's MultiPV
# scores at 60 cp to that at 30 cp (`trainer train --policy-power 2`), into runs/camp/c14p.onnx
# and its own held-out, off-path and match files. Run it after step14.sh, whose labels it reuses
# (alone, it labels them first): about 3 h 20 min more (training 40, held-out 5, 200 games against
# Stockfish 2000 110, 100 against c13 50). The arm that scores more against Stockfish 2000 ships,
# if it scores more than c13's 35.2%.
# Expect little of it: a net that fits targets raised to the power 2 outputs about its old logits
# doubled, which the search's softmax at PolicyTemperature 1.359 reads as the old net at 0.68. That
# temperature was measured before: c2 at 0.7 scored 280 STS points below c2 at the default, and iF
# at 1.0 scored 40.5% in 37 games against itself at the default (campaign README, full-i4).
# `step14-power.sh --resume` continues its training from its checkpoints.
ARM=p exec "$(dirname "$0")/step.sh" 14 c13 7a2de6c 74 0.3 10 11 12 13 -- --steps 12000 \
  --policy-power 2 "$@"
