"""How far Stockfish at a few node counts is from the held-out labels (Stockfish at 8,000 nodes),
position by position: the floor a net distilled from those labels meets on the held-out figures.

    python benchmarks/teacher_gap.py --records runs/sf-heldout/a runs/sf-heldout/b --nodes 1000 3000

One JSON line per node count: value MAE and correlation of Stockfish's W-L against the records'
``root_q`` (the same figures ``benchmarks/heldout.py`` gives a net), and the share of positions
where its best move is the records' most likely move (a net's policy top-1 against the same
target). The positions are the records' FENs, without their move history.
"""

from __future__ import annotations

import argparse
import json

import chess
import numpy as np

from trainer.arena.heldout import record_files
from trainer.data.records import Record
from trainer.data.sflabel import find_stockfish, label_position
from trainer.data.sfuci import StockfishAnalyser


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", nargs="+", required=True)
    ap.add_argument("--nodes", nargs="+", type=int, default=[1000, 3000])
    ap.add_argument("--multipv", type=int, default=5)
    a = ap.parse_args()
    boards, q, best = [], [], []
    for path in record_files(a.records):
        rec = Record.load(path)
        fens = rec.meta["fens"]
        for i in range(len(rec)):
            idx, prob = rec.policy(i)
            if not len(idx):
                continue
            boards.append(chess.Board(fens[i]))
            q.append(float(rec.root_q[i]))
            best.append(int(idx[int(np.argmax(prob))]))
    target = np.asarray(q)
    engine = StockfishAnalyser(find_stockfish())
    try:
        for nodes in a.nodes:
            got, top1 = [], 0
            for board, b in zip(boards, best):
                res = label_position(engine, board, a.multipv, 60.0, nodes=nodes)
                if res is None:
                    got.append(0.0)
                    continue
                moves, _, wdl, _ = res
                got.append(wdl[0] - wdl[2])
                top1 += int(moves[0] == b)
            v = np.asarray(got)
            print(json.dumps({"nodes": nodes, "positions": len(boards),
                              "value_mae": float(np.abs(v - target).mean()),
                              "value_corr": float(np.corrcoef(v, target)[0, 1]),
                              "best_move_top1": top1 / len(boards)}), flush=True)
    finally:
        engine.close()


if __name__ == "__main__":
    main()
