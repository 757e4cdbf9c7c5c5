#!/bin/bash
# Issue 58's campaign, step 13 (prepared 2026-12-07, not run yet): step 12's recipe from c12, the
# shipped net (b1e6b61), on a fresh seed, 73, at side share 0.3, on its fresh labels alone.
# About 2 h on the 2-core AVX-512 machine (labels 41 min, training 21, held-out 3, the match
# against c12 45). `step13.sh --resume` continues the training from its checkpoints.
exec "$(dirname "$0")/step.sh" 13 c12 b1e6b61 73 0.3 -- "$@"
