#!/bin/bash
# Issue 58's campaign, step 10 (2026-12-07, the 2-core AVX-512 BF16 machine): step 8's recipe
# from c8, the shipped net (39ed389), on a fresh seed, 70, at side share 0.3, on its fresh labels
# alone. Step 9 (c9, lost with its machine before its match) replayed steps 6-8's labels as half
# of each batch and rose on the held-out set where c8 had not; this step is its control, run when
# the machine had no earlier labels left to replay. `step10.sh --resume` continues the training
# from its checkpoints.
exec "$(dirname "$0")/step.sh" 10 c8 39ed389 70 0.3 -- "$@"
