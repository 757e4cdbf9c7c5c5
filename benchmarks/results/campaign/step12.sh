#!/bin/bash
# Issue 58's campaign, step 12 (2026-12-07, the 2-core AVX-512 BF16 machine): step 11's recipe from
# c11, the shipped net (35b6ff1), on a fresh seed, 72, at side share 0.3, on its fresh labels alone
# (labels 41 min, training 21, held-out 3, the match against c11 45). c12 shipped.
# `step12.sh --resume` continues the training from its checkpoints.
exec "$(dirname "$0")/step.sh" 12 c11 35b6ff1 72 0.3 -- "$@"
