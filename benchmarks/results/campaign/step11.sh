#!/bin/bash
# Issue 58's campaign, step 11 (2026-12-07, the 2-core AVX-512 BF16 machine): step 10's recipe
# from c10, the shipped net (c006419), on a fresh seed, 71, at side share 0.3, on its fresh
# labels alone (step 10 found that replaying earlier labels bought nothing measurable).
# `step11.sh --resume` continues the training from its checkpoints.
exec "$(dirname "$0")/step.sh" 11 c10 c006419 71 0.3 -- "$@"
