#!/bin/bash
# How run i's figures were made (selfplay-runs.md section 26), and how it goes on.
# 1. On the GPU machine (H200, 16 cores; python-chess carried in .dev/site, the extension built
#    there with `python3 setup.py build_ext --inplace -j 16`), from the bundled net sp1v, two
#    calls on the same warm machine (the second adds its games to the first's in /tmp/run-i and
#    trains both nets on all of them):
#      bash benchmarks/results/run-i/device.sh $OUT 270 24              (device-output-1.txt)
#      SPEED_S=5 PAR=128 bash benchmarks/results/run-i/device.sh $OUT 170 8   (device-output-2.txt)
#    Back: run-i-P.onnx, run-i-F.onnx (committed here) and the 2,716 records (31 MB, kept out of
#    git in runs/i/games).
# 2. Here (2 cores, nothing else running): held-out figures and the matches against sp1v.
cd "$(dirname "$0")/../../.."
N=benchmarks/results/run-i
if [ "${CONTINUE:-0}" = 0 ]; then
  PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-sp1v.onnx $N/run-i-P.onnx \
    $N/run-i-F.onnx --records runs/sf-heldout/a runs/sf-heldout/b
  bash $N/evaluate.sh P 10+0.1
  bash $N/evaluate.sh F 10+0.1
  bash $N/evaluate.sh F 10+0.1 200 100     # 200 more games, openings 101-200 (F-tc-b)
  bash $N/evaluate.sh P nodes=100
  bash $N/evaluate.sh F nodes=100
  exit
fi
# 3. Going on (a session lent the GPU machine; CONTINUE=1, with runs/sf-heldout carried): the
#    loop from run i's newest net (run-i-G<N>.onnx, else F), the whole net trained as AlphaZero's
#    loop does (F led P at 10+0.1, +34.9 against +20.9; the held-out value figures in each
#    generation's history say whether the value drifts as in run g), its workers' net on the
#    GPU, each generation 1,024 games of the same recipe (about 68,000 positions, 2 minutes at
#    548 positions/s, then 900 steps: 3.4 samples a new position), exported, played from next.
#    Generation 1's records (runs/i/games) were lost with that session's checkout; where they
#    are there they join the window (--extra-data). Resumable: the same command goes on from
#    runs/i2/state.json. (ARM=P for the policy head alone, from P.)
#    On the 2-core machine instead, one generation a session: cpu-generation.sh (section 27).
ARM=${ARM:-F}; ONLY=$([ "$ARM" = P ] && echo "--train-only policy_")
# From section 28 on the chain goes on from G2m (the bundled zerosum-6x64-i2m), or from the
# newest generation after it (G3, G4, ...), with the value-only Stockfish anchor it was made with
# (runs/sfmix: value-ab.sh step 1; 13 MB, carried to the device). Resignation at -0.99 from
# section 29 on: G2m's games put -0.98 at 10% false resignations (resign-g3.txt).
INIT=$N/run-i-$ARM.onnx
if [ "$ARM" = F ]; then
  INIT=$(ls $N/run-i-G*.onnx 2>/dev/null | grep -E 'G[0-9]+\.onnx$' | grep -vE 'G[12]\.onnx$' \
    | sort -V | tail -1)
  INIT=${INIT:-$N/run-i-G2m.onnx}
fi
EXTRA=$([ -d runs/i/games ] && echo "--extra-data runs/i/games")
[ "$ARM" = F ] && EXTRA="$EXTRA --mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value"
BACKEND=torch-cuda W=8 PER=128 \
RECIPE="--root puct --full-visits 400 --full-share 1.0 --forced-playouts 2 --parallel 128
  --resign-threshold -0.99 --resign-plies 10 --resign-playout 0.2" \
TRAIN="--steps 900 --batch-size 256 --lr 1e-4 --schedule constant --warmup 10 --q-weight 1.0
  --window 400000 $ONLY $EXTRA --train-threads 4 --log-every 200
  --heldout runs/sf-heldout/a runs/sf-heldout/b" \
  bash benchmarks/gpu_loop.sh runs/i2 $INIT 99 ${SECONDS_LIMIT:-250}
# 4. Generation 2 on the 2-core machine (section 27; no GPU that session): int8 self-play from F,
#    55 minutes on both cores, then F trained on the records; the held-out figures and matches:
#      bash benchmarks/results/run-i/cpu-generation.sh 2 benchmarks/results/run-i/run-i-F.onnx 3300
#      python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900   # (and b, 901)
#      PYTHONPATH=. python benchmarks/heldout.py --nets nets/zerosum-6x64-sp1v.onnx \
#        $N/run-i-F.onnx $N/run-i-G2.onnx $N/run-i-P.onnx $N/run-i-P2.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b
#      bash $N/evaluate.sh G2 10+0.1; bash $N/evaluate.sh G2 nodes=400 100
#    P2: P's policy head trained alone on generation 2's records (runs/i3/g2), then matched:
#      python -m trainer train --data runs/i3/g2 --init $N/run-i-P.onnx --out runs/i3/train-P2 \
#        --steps 1196 --batch-size 256 --lr 1e-4 --schedule constant --warmup 10 --q-weight 1.0 \
#        --window 1000000 --train-only policy_ --train-threads 2 --export $N/run-i-P2.onnx
#      bash $N/evaluate.sh P2 10+0.1      # stopped after a part; the same command resumes it
# 5. The value target A/B on generation 2's records and G2m, the next bundled net (section 28):
#      bash benchmarks/results/run-i/value-ab.sh
#      bash $N/evaluate.sh G2m 10+0.1; bash $N/evaluate.sh G2m nodes=400 100
#    Generation 3 on the 2-core machine, from G2m with the same anchor:
#      TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 3 $N/run-i-G2m.onnx 3300
# 6. Generation 3 (section 29): 3,000 s more self-play from G2m, trained with the anchor; its
#    resignation replayed; G3 held out and matched; G3w, G2m trained on generations 2 and 3 at
#    the same steps (a two-generation window):
#      TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 3 $N/run-i-G2m.onnx 3000
#      python benchmarks/resign_threshold.py --games runs/i3/g3 --thresholds -0.98 -0.99 -0.995 \
#        --plies 10 14 20 --syzygy ../shared/data/syzygy > $N/resign-g3.txt
#      bash $N/evaluate.sh G3 10+0.1; bash $N/evaluate.sh G3 nodes=400 100
#      bash $N/evaluate.sh G3 nodes=400 100 50
#      python -m trainer train --data runs/i3/g2 runs/i3/g3 --init $N/run-i-G2m.onnx \
#        --out runs/i3/train-G3w --steps 1072 --batch-size 256 --lr 1e-4 --schedule constant \
#        --warmup 10 --q-weight 1.0 --window 1000000 --train-threads 2 --resume \
#        --mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value \
#        --export $N/run-i-G3w.onnx
#      python benchmarks/heldout.py --nets $N/run-i-G2m.onnx $N/run-i-G3.onnx $N/run-i-G3w.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b
# 7. Generation 4 (section 30): G3 not measured stronger than G2m, so G2m, the best net so far,
#    plays again (AlphaGo Zero's gating); G2m trained on generations 3 and 4 together (WINDOW),
#    the anchor as before, resignation at -0.99:
#      RESIGN=-0.99 WINDOW="runs/i3/g3" \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 4 $N/run-i-G2m.onnx 2900
#      python benchmarks/heldout.py --nets $N/run-i-G2m.onnx $N/run-i-G4.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b
#      bash $N/evaluate.sh G4 10+0.1; bash $N/evaluate.sh G4 nodes=400 100
# 8. G4 head to head with G2m (the bundled i2m), the same openings and settings as evaluate.sh:
#      OPP=G2m bash $N/evaluate.sh G4 10+0.1                  # G4-vs-G2m-tc.pgn/.json
#    and the held-out figures of i4's int8 copy and maia-1900 for i4's card:
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4-int8.onnx \
#        ../shared/data/lc0/maia-1900.onnx --records runs/sf-heldout/a runs/sf-heldout/b
# 9. Generation 5 (section 31): the bundled i4 (G4) plays, resignation at -0.995 (generation 4's
#    played-out games put -0.99 at 4 false of 17); generation 4's records were gone with their
#    checkout, so G4 trains on generation 5 alone, the anchor as before (remade by value-ab.sh
#    step 1); then held out, the resignation replay, G5 head to head with G4 and against sp1v:
#      RESIGN=-0.995 \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 5 nets/zerosum-6x64-i4.onnx 3000
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G5.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b > $N/g5-heldout.txt
#      python benchmarks/resign_threshold.py --games runs/i3/g5 --thresholds -0.99 -0.995 \
#        --plies 10 14 --syzygy ../shared/data/syzygy > $N/resign-g5.txt
#      OPP=G4 bash $N/evaluate.sh G5 10+0.1; bash $N/evaluate.sh G5 nodes=400 100
# 10. Generation 6 (section 32): G4 plays again (G5 not stronger), resignation at -0.995, and G4
#     trains on generations 5 and 6 together (WINDOW, the recipe that made G4), the anchor as
#     before; then held out, the resignation replay, G6 head to head with G4 and against sp1v:
#      RESIGN=-0.995 WINDOW="runs/i3/g5" \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 6 nets/zerosum-6x64-i4.onnx 3000
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G6.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b > $N/g6-heldout.txt
#      python benchmarks/resign_threshold.py --games runs/i3/g6 --thresholds -0.99 -0.995 \
#        --plies 10 14 --syzygy ../shared/data/syzygy > $N/resign-g6.txt
#      OPP=G4 bash $N/evaluate.sh G6 10+0.1
#      bash $N/evaluate.sh G6 nodes=400 100; bash $N/evaluate.sh G6 nodes=400 100 50
# 11. Generation 7 (section 33): G4 plays again (G6 level with it), resignation at -0.995, and G4
#     trains on generations 5, 6 and 7 together, all three played by G4 (a growing on-policy
#     window), the anchor as before; then the same measurements as step 10:
#      RESIGN=-0.995 WINDOW="runs/i3/g5 runs/i3/g6" \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 7 nets/zerosum-6x64-i4.onnx 2880
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G7.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b > $N/g7-heldout.txt
#      python benchmarks/resign_threshold.py --games runs/i3/g7 --thresholds -0.99 -0.995 \
#        --plies 10 14 --syzygy ../shared/data/syzygy > $N/resign-g7.txt
#      OPP=G4 bash $N/evaluate.sh G7 10+0.1
#      bash $N/evaluate.sh G7 nodes=400 100; bash $N/evaluate.sh G7 nodes=400 100 50
# 12. Generation 8 (section 34): G4 plays again and trains on generations 5-8, all played by G4,
#     at three times the learning rate (3e-4; the later --lr wins); then the same measurements,
#     and the resignation replay over generations 5-8 with each resignation judged by Stockfish:
#      RESIGN=-0.995 WINDOW="runs/i3/g5 runs/i3/g6 runs/i3/g7" \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value --lr 3e-4" \
#        bash benchmarks/results/run-i/cpu-generation.sh 8 nets/zerosum-6x64-i4.onnx 2700
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G8.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b > $N/g8-heldout.txt
#      python benchmarks/resign_threshold.py --games runs/i3/g8 --thresholds -0.99 -0.995 \
#        --plies 10 14 --syzygy ../shared/data/syzygy > $N/resign-g8.txt
#      python benchmarks/resign_threshold.py --games runs/i3/g5 runs/i3/g6 runs/i3/g7 runs/i3/g8 \
#        --thresholds -0.98 -0.985 -0.99 -0.995 --plies 10 14 20 30 --syzygy ../shared/data/syzygy \
#        --stockfish /usr/games/stockfish > $N/resign-g5-8-sf.txt
#      OPP=G4 bash $N/evaluate.sh G8 10+0.1
#      bash $N/evaluate.sh G8 nodes=400 100
# 13. Generation 9 (section 35): G4 plays again for 3,900 s with resignation at -0.98 over 10
#     plies (section 34: no false resignation by Stockfish's judgement), and trains on generations
#     5-9, all played by G4, at run i's lr 1e-4 with the anchor; then held out, the resignation
#     replay judged by Stockfish, 400 nodes against sp1v and 10+0.1 against G4 (runs/chain14.sh):
#      RESIGN=-0.98 WINDOW="runs/i3/g5 runs/i3/g6 runs/i3/g7 runs/i3/g8" \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 9 nets/zerosum-6x64-i4.onnx 3900
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G9.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b > $N/g9-heldout.txt
#      python benchmarks/resign_threshold.py --games runs/i3/g9 --thresholds -0.97 -0.98 -0.99 \
#        --plies 6 10 14 --syzygy ../shared/data/syzygy --stockfish /usr/games/stockfish \
#        > $N/resign-g9-sf.txt
#      bash $N/evaluate.sh G9 nodes=400 100
#      OPP=G4 bash $N/evaluate.sh G9 10+0.1 100
#      bash $N/evaluate.sh G9 nodes=400 100 50
# 14. Generation 10 (section 36): the newest net plays again, without a gate (AlphaZero's update
#     rather than AlphaGo Zero's): G9, level with G4 head to head and ahead of it on held-out value
#     and against sp1v, plays 3,900 s resigning at -0.97 over 6 plies (section 35: 0 of 236 false by
#     Stockfish), and G9 trains on generations 6-10; then held out, 10+0.1 against G4 and 400 nodes
#     against sp1v (runs/chain15.sh, runs/chain16.sh), and the resignation replay of generation 10:
#      RESIGN=-0.97 RESIGN_PLIES=6 WINDOW="runs/i3/g6 runs/i3/g7 runs/i3/g8 runs/i3/g9" \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 10 $N/run-i-G9.onnx 3900
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G10.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b > $N/g10-heldout.txt
#      OPP=G4 bash $N/evaluate.sh G10 10+0.1 100
#      bash $N/evaluate.sh G10 nodes=400 100
#      python benchmarks/resign_threshold.py --games runs/i3/g10 --thresholds -0.96 -0.97 -0.98 \
#        --plies 6 10 --syzygy ../shared/data/syzygy --stockfish /usr/games/stockfish \
#        > $N/resign-g10-sf.txt
# 15. Generation 11 (section 37): G10, the newest net, plays 3,600 s as generation 10's G9 did,
#     resigning at -0.97 over 6 plies, and G10 trains on generations 7-11; then held out, 10+0.1
#     against G4 and 400 nodes against sp1v (runs/chain18.sh), and the resignation replay of
#     generation 11 judged by Stockfish beside the latter (runs/chain19.sh):
#      RESIGN=-0.97 RESIGN_PLIES=6 WINDOW="runs/i3/g7 runs/i3/g8 runs/i3/g9 runs/i3/g10" \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 11 $N/run-i-G10.onnx 3600
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G11.onnx \
#        --records runs/sf-heldout/a runs/sf-heldout/b > $N/g11-heldout.txt
#      OPP=G4 bash $N/evaluate.sh G11 10+0.1 100
#      bash $N/evaluate.sh G11 nodes=400 100
#      bash $N/evaluate.sh G11 nodes=400 100 50
#      python benchmarks/resign_threshold.py --games runs/i3/g11 --thresholds -0.96 -0.97 -0.98 \
#        --plies 6 10 --syzygy ../shared/data/syzygy --stockfish /usr/games/stockfish \
#        > $N/resign-g11-sf.txt
# 16. Generation 12 (section 38), on a new checkout that had lost runs/ (generations 5-11's
#     records, the anchor and the held-out records): G11 plays (runs/chain20.sh) until stopped
#     (runs/chain21.sh), the anchor's records made again for 300 s a seed (a prefix of the old
#     ones: same seeds) and the held-out ones whole, G11 trained on generation 12 alone (no
#     window left) with the anchor, held out, and matched with G4:
#      RESIGN=-0.97 RESIGN_PLIES=6 bash benchmarks/results/run-i/cpu-generation.sh 12 \
#        $N/run-i-G11.onnx 7500                         # workers stopped after 5,430 s
#      timeout 300 python -m trainer sf-games --out runs/sfmix/a --games 1000 --seed 200  # (b: 201)
#      python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900          # (b: 901)
#      RESIGN=-0.97 RESIGN_PLIES=6 \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 12 $N/run-i-G11.onnx 0
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G11.onnx \
#        $N/run-i-G12.onnx --records runs/sf-heldout/a runs/sf-heldout/b > $N/g12-heldout.txt
#      OPP=G4 bash $N/evaluate.sh G12 10+0.1 100
#      bash $N/evaluate.sh G12 nodes=400 100            # stopped at 96 of 100, resumed next session
# 17. Generation 13 (section 39): G12 plays (runs/chain23.sh) until generation 13 holds 90,000
#     positions (counted every 5 minutes from 15:15, at most 8,700 s), trained on it alone with the
#     anchor, held out:
#      RESIGN=-0.97 RESIGN_PLIES=6 \
#        TRAIN_EXTRA="--mix-data runs/sfmix/a runs/sfmix/b --mix-share 0.25 --mix-targets value" \
#        bash benchmarks/results/run-i/cpu-generation.sh 13 $N/run-i-G12.onnx 8700
#      python benchmarks/heldout.py --nets nets/zerosum-6x64-i4.onnx $N/run-i-G12.onnx \
#        $N/run-i-G13.onnx --records runs/sf-heldout/a runs/sf-heldout/b > $N/g13-heldout.txt
# 18. G13's matches (section 40; runs/chain24.sh, chain25.sh, chain26.sh, one after another, alone
#     on the 2-core AMD machine), and G4 against sp1v again on this machine, as a control for
#     section 30's +123.0 measured on an Intel Xeon with AMX:
#      bash $N/evaluate.sh G13 nodes=400 100            # resumed from last session's 42 games
#      bash $N/evaluate.sh G13 10+0.1 200
#      OPP=G4 bash $N/evaluate.sh G13 10+0.1 100
#      SUFFIX=-again bash $N/evaluate.sh G4 10+0.1 200
#      python -m engine bench --weights nets/zerosum-6x64-sp1v.onnx --movetime 210 --nn-threads 1 \
#        --precision fp32                                # and with nets/zerosum-6x64-i4.onnx
#      bash $N/evaluate.sh G4 nodes=150 100
#      bash $N/evaluate.sh G13 nodes=400 100 50
# 19. One game at a time, both engines at their default options (section 41; runs/chain27.sh,
#     chain28.sh): two onnxruntime threads give a move 1.6-1.7x the nodes of one
#      bash $N/evaluate.sh G13 nodes=400 100 50         # resumed from 80 games
#      python -m engine bench --weights nets/zerosum-6x64-sp1v.onnx --movetime 210 --nn-threads 2 \
#        --precision fp32                                # and --nn-threads 1; and with i4
#      ONE=1 bash $N/evaluate.sh G13 10+0.1 200
#      ONE=1 bash $N/evaluate.sh G4 10+0.1 200          # stopped at the session's end; resumable
