#!/bin/bash
# Run i's nets against the net they came from (zerosum-6x64-sp1v): the first 100 openings of
# 8moves_v3 with both colours, fp32, one onnxruntime thread per engine, two games at a time; the
# 10+0.1 matches alone on the 2-core machine. --resume continues a stopped match from its
# .pgn.partial.   bash benchmarks/results/run-i/evaluate.sh ARM TC [GAMES [OFFSET]]
# (ARM: the X of run-i-X.onnx beside this script, e.g. G5; TC: 10+0.1 or nodes=N; OFFSET: the
# first opening's index, 100 for openings 101-200, whose files get a -b). OPP=ARM2 plays
# run-i-ARM2 instead of sp1v, into ARM-vs-ARM2-TAG files
# (the head-to-head matches: OPP=G2m bash .../evaluate.sh G4 10+0.1); SUFFIX=-again appends to
# the files' names, for a match played again (on another machine) beside the first. ONE=1 plays
# one game at a time with both engines at their default options (Precision auto, NNThreads 2: the
# way a user runs cutechess on 2 cores), into files tagged -c1
cd "$(dirname "$0")/../../.."
N=benchmarks/results/run-i
A=${1:?arm}; TC=${2:?tc}; G=${3:-200}; OFF=${4:-0}
tag=$(echo "$TC" | sed 's/nodes=/n/; s/10+0.1/tc/')$([ "$OFF" = 0 ] || echo -b)${SUFFIX:-}
ENG=(--option1 Precision=fp32 NNThreads=1 --option2 Precision=fp32 NNThreads=1 --concurrency 2)
[ -n "${ONE:-}" ] && { ENG=(--concurrency 1); tag=$tag-c1; }
W2=nets/zerosum-6x64-sp1v.onnx; NAME2=zerosum-6x64-sp1v; OUT=$A-$tag
[ -n "${OPP:-}" ] && { W2=$N/run-i-$OPP.onnx; NAME2=run-i-$OPP; OUT=$A-vs-$OPP-$tag; }
python -m trainer match --openings ../shared/data/openings/8moves_v3.pgn --opening-offset "$OFF" \
  "${ENG[@]}" --resume --no-progress --weights2 "$W2" --name2 "$NAME2" \
  --games "$G" --tc "$TC" --weights1 $N/run-i-$A.onnx --name1 run-i-$A \
  --pgn $N/$OUT.pgn --json $N/$OUT.json
