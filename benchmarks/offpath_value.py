"""How nets judge the positions a search reaches but a teacher's games seldom show: held-out
positions against the same positions after one uniformly random legal move (mostly a blunder, the
kind of leaf a search must refute), each labelled by Stockfish the way the held-out set is.

    python benchmarks/offpath_value.py --nets A.onnx B.onnx --records DIR [DIR ...] [--max 1000]

Why: maia-1900 beats the campaign's nets in the same search by hundreds of Elo while its held-out
policy top-1 is only a few points higher (37.8% against 34.6-35.5%). Held-out positions come from
Stockfish's own games, so they say little about the positions after a bad move, which fill a
search tree. Prints one JSON line per net and set ("game": the held-out positions, "random": after
a random legal move): value MAE against Stockfish's W-L, its correlation, the mean signed error
(net minus Stockfish, for the side to move), and policy top-1 against Stockfish's best move.
"""

from __future__ import annotations

import argparse
import json
import random

import chess
import numpy as np

from benchmarks.muzero_offpath import boards
from engine import contract
from engine.evaluator import OnnxEvaluator
from trainer.data.sflabel import find_stockfish, label_position
from trainer.data.sfuci import StockfishAnalyser
from trainer.muzero.data import record_files


def labelled(sets: dict[str, list[chess.Board]], nodes: int
             ) -> dict[str, tuple[list[chess.Board], np.ndarray, np.ndarray]]:
    """Per set: the boards Stockfish could analyse, its W-L and its best move's policy index."""
    out = {}
    with StockfishAnalyser(find_stockfish()) as sf:
        for name, bs in sets.items():
            kept, q, best = [], [], []
            for b in bs:
                res = label_position(sf, b, 5, 60.0, nodes=nodes)  # 60: only idx[0] is read
                if res is None:
                    continue
                idx, _, wdl, _ = res
                kept.append(b)
                q.append(wdl[0] - wdl[2])
                best.append(idx[0])
            out[name] = (kept, np.array(q), np.array(best))
    return out


def figures(net: str, bs: list[chess.Board], q: np.ndarray, best: np.ndarray,
            threads: int) -> dict[str, float]:
    ev = OnnxEvaluator(net, threads=threads)
    v, top = [], []
    for i in range(0, len(bs), 256):
        o = ev.evaluate(np.stack([contract.encode(b) for b in bs[i:i + 256]]))
        v.append(o.wdl[:, 0] - o.wdl[:, 2])
        top.append(o.policy.argmax(1))
    nv, nt = np.concatenate(v), np.concatenate(top)
    return {"positions": len(bs), "value_mae": round(float(np.abs(nv - q).mean()), 4),
            "value_corr": round(float(np.corrcoef(nv, q)[0, 1]), 4),
            "value_bias": round(float((nv - q).mean()), 4),
            "mean_abs_stockfish": round(float(np.abs(q).mean()), 4),
            "policy_top1": round(float((nt == best).mean()), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nets", nargs="+", required=True)
    ap.add_argument("--records", nargs="+", required=True, help="held-out records directories")
    ap.add_argument("--max", type=int, default=1000, help="held-out positions")
    ap.add_argument("--nodes", type=int, default=8000, help="Stockfish nodes (the held-out set's)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    game = boards(record_files(a.records), a.max, a.seed)
    after = []
    for b in game:
        c = b.copy()
        c.push(rng.choice(list(c.legal_moves)))
        if not c.is_game_over():
            after.append(c)
    sets = labelled({"game": game, "random": after}, a.nodes)
    for net in a.nets:
        for name, (bs, q, best) in sets.items():
            print(json.dumps({"net": net, "set": name, **figures(net, bs, q, best, a.threads)}),
                  flush=True)


if __name__ == "__main__":
    main()
