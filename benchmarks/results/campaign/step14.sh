#!/bin/bash
# Issue 58's campaign, step 14 (prepared and begun 2026-12-07): step 13's recipe from c13, the
# shipped net (7a2de6c), on a fresh seed, 74, at side share 0.3, replaying steps 10-13's labels as
# half of every batch over 12,000 steps, and with a fifth of the fresh games played to their end
# (`sf-campaign --playout-p 0.2`, step.sh's PLAYOUT_OF) instead of adjudicated at 700 cp, so the
# net sees won positions converted. About 4 h on the 2-core AVX-512 machine with steps 10-13's
# labels at hand (labels about 50 min, training 40, held-out 5, 200 games against Stockfish 2000
# 110, 100 against c13 50); each replayed step this machine lacks costs about 45 more minutes.
# `step14.sh --resume` continues the training from its checkpoints. Run nothing beside it: a test
# suite beside the training nearly stopped it in step 13.
exec "$(dirname "$0")/step.sh" 14 c13 7a2de6c 74 0.3 10 11 12 13 -- --steps 12000 "$@"
