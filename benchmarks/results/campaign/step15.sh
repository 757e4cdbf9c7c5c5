#!/bin/bash
# Issue 58's campaign, step 15 (prepared 2026-12-08, not run): step 14's recipe from c14, the
# shipped net (33c32d7), on a fresh seed, 75, at side share 0.3 with a fifth of the games played to
# their end, replaying the four steps before (11-14) as half of every batch over 12,000 steps.
# About 4 h on the 2-core AVX-512 machine with steps 11-14's labels at hand (labels 45 min,
# training 40, held-out 5, 200 games against Stockfish 2000 110 (the figure that decides whether
# c15 ships: c14 scored 43.2%), 100 against c14 50; PARENT_GAMES=0 skips the last); each replayed
# step this machine lacks costs about 45 more minutes. Rerun it to resume; `step15.sh --resume`
# continues the training from its checkpoints. Run nothing beside it.
exec "$(dirname "$0")/step.sh" 15 c14 33c32d7 75 0.3 11 12 13 14 -- --steps 12000 "$@"
