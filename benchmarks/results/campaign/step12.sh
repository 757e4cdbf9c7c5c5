#!/bin/bash
# Issue 58's campaign, step 12 (prepared 2026-12-07, not run yet): step 11's recipe from c11, the
# shipped net (35b6ff1), on a fresh seed, 72, at side share 0.3, on its fresh labels alone (the
# labels behind the shipped line to about 12.0M of the issue's 13M floor). About 2 h on the 2-core
# AVX-512 machine (labels 45 min, training 23, held-out 3, the match against c11 45).
# `step12.sh --resume` continues the training from its checkpoints.
exec "$(dirname "$0")/step.sh" 12 c11 35b6ff1 72 0.3 -- "$@"
