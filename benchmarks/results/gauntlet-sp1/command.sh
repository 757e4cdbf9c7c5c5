# Both nets against the same outside opponents, the same openings (8moves_v3 lines 21-40 / 21-50,
# each with both colours, fresh to the ladders), two games at a time, NNThreads=1, fp32.
set -e
O=../shared/data/openings/8moves_v3.pgn
for opp in sunfish:--sunfish:40 sf1500:"--stockfish-elo 1500":60; do
  key=${opp%%:*}; rest=${opp#*:}; flag=${rest%:*}; n=${rest##*:}
  for net in zerosum-6x64-sp1 zerosum-6x64; do
    python -m trainer match --weights1 nets/$net.onnx --name1 $net --option1 Precision=fp32 NNThreads=1 \
      $flag --tc 10+0.1 --games $n --concurrency 2 --openings $O --opening-offset 20 \
      --pgn runs/gauntlet/$net-$key.pgn --json runs/gauntlet/$net-$key.json --resume --no-progress
  done
done
