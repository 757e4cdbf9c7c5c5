#!/bin/bash
# Issue 58's campaign, step 3b (2026-12-04, a 2-core AMD EPYC with AVX2 only: no VNNI, no AVX-512
# BF16, so training runs in fp32 and the engine plays fp32): step 3 again after step 3a's net was
# lost. Fresh 3,000-node labels from step 3a's seed (63, so its first batches), trained on from c2.
# Each command resumes where it stopped.
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/games"
N=benchmarks/results/campaign
mkdir -p runs/camp
# c2, the net this step trains on from (in nets/ while it is the default; its commit otherwise):
git show 3696b06:nets/zerosum-6x64-c2.onnx > runs/camp/c2.onnx
git show 3696b06:nets/zerosum-6x64-c2-int8.onnx > runs/camp/c2-int8.onnx
# 1. Labels: 42 minutes on both cores, 3,000 nodes a position, seed 63 (the held-out records,
#    command 2, were made beside it in its first minutes).
python -m trainer sf-campaign --dir runs/camp/s3 --workers 2 --nodes 3000 --seed 63 --minutes 42
# 2. Held-out records, if this machine lacks them (the sets every card quotes):
[ -d runs/sf-heldout/a ] || python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900
[ -d runs/sf-heldout/b ] || python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901
# 3. Training: from c2, every parameter, batch 256, AdamW 5e-4 cosine, fp32 (bf16 is emulated on
#    AVX2 and slower), this step's data only. 1,800 steps, not step 3a's 8,000: this CPU trains at
#    0.6 steps/s, and the session had to keep 50 minutes for the match:
python -m trainer train --data runs/camp/s3/data --init runs/camp/c2.onnx \
  --batch-size 256 --schedule cosine --warmup 200 --q-weight 1.0 --window 20000000 \
  --train-threads 2 --train-precision fp32 --steps 1800 --lr 5e-4 --checkpoint-every 300 \
  --keep 2 --out runs/camp/s3b-train --export runs/camp/c3b.onnx
python -m trainer quantize runs/camp/c3b.onnx --out runs/camp/c3b-int8.onnx \
  --pgn ../shared/data/pgn/carlsen_lichess_DannyTheDonkey_2019-01-29.pgn
# 4. Held out, no search:
PYTHONPATH=. python benchmarks/heldout.py --nets runs/camp/c2.onnx runs/camp/c3b.onnx \
  --records runs/sf-heldout/a runs/sf-heldout/b \
  | tee $N/step3b-heldout.jsonl
# 5. Against c2 at 10+0.1, one game at a time, nothing else running, the engine's defaults (fp32
#    on this CPU):
python -m trainer match --weights1 runs/camp/c3b.onnx --name1 campaign-c3b \
  --weights2 runs/camp/c2.onnx --name2 c2 --tc 10+0.1 --games 100 \
  --pgn runs/camp/c3b-vs-c2.pgn --json $N/c3b-vs-c2.json --resume --no-progress
