#!/bin/bash
# Issue 58's campaign, step 9 (2026-12-06, the 2-core AVX-512 BF16 machine): step 8's recipe from
# c8, the shipped net (39ed389), on a fresh seed, 69, at side share 0.3, but with half of every
# training batch drawn from steps 6-8's labels (3.8M positions its ancestors learned from in
# turn). Steps 4-8 trained on their fresh labels alone, and the held-out top-1 stopped rising at
# step 8 (36.0%, 35.9%); the replay asks whether the net was forgetting as much as it learned.
# `step9.sh --resume` continues the training from its checkpoints.
exec "$(dirname "$0")/step.sh" 9 c8 39ed389 69 0.3 6 7 8 -- "$@"
