#!/bin/bash
# Issue 58's campaign, step 13 (2026-12-07, the 2-core AVX-512 BF16 machine): from c12, the
# shipped net (b1e6b61), fresh labels on seed 73 at side share 0.3, and half of every training
# batch drawn from steps 10-12's labels (4.0M positions its ancestors learned from in turn, still
# on this machine), over 12,000 steps instead of 8,000 so that the fresh labels still get about
# one pass. Steps 10-12 trained on their fresh labels alone and the held-out top-1 stayed near
# 36-37%; step 9's replay gave the best top-1 of its time. About 2 h (labels 41 min, training
# 32, held-out 5, the match against c12 45). `step13.sh --resume` continues the training.
exec "$(dirname "$0")/step.sh" 13 c12 b1e6b61 73 0.3 10 11 12 -- --steps 12000 "$@"
