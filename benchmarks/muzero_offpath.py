"""How well a MuZero model's dynamics knows moves that were not played: f(g(h(s), a)) against
f(h(s')) for a the legal move the real position's policy ranks first (near the path that training
and muzero_consistency.py see) and for a legal move drawn at random (the many moves the latent
search also asks about, which the games' data seldom shows), at depths 1-3.

    python benchmarks/muzero_offpath.py --net NET.onnx --records DIR [DIR ...] [--max 300]

Positions come from Stockfish-labelled records (``fens`` in the meta) with seven linked positions
before them, so that python-chess rebuilds each one with its full history and encodes it exactly
as the records do (checked against the stored planes); s' is that board after the moves, encoded
by ``contract.encode``. Prints, per depth and kind of move, the top-1 agreement of the policies
the mean |W-L| difference of the values and its mean signed difference (imagined minus real, for
the side to move in s': a bias the search would read as a reason to prefer or avoid moves).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import chess
import numpy as np

from engine import contract
from engine.evaluator import OnnxMuZero
from trainer.data.records import Record
from trainer.muzero.data import _connecting_move, record_files, unpack_planes

HISTORY = 7


def boards(files: list[Path], limit: int, seed: int) -> list[chess.Board]:
    """Up to ``limit`` boards with their last seven moves, their planes checked."""
    rng = random.Random(seed)
    found: list[chess.Board] = []
    for path in files:
        rec = Record.load(path)
        fens = rec.meta.get("fens")
        if not fens:
            continue
        planes = unpack_planes(rec.bits, rec.aux)
        for i in range(HISTORY, len(fens)):
            board = chess.Board(fens[i - HISTORY])
            for j in range(i - HISTORY, i):
                m = _connecting_move(board, int(rec.moves[j]), fens[j + 1])
                if m is None:
                    break
                board.push(m)
            else:
                if board.is_game_over() or not np.array_equal(contract.encode(board), planes[i]):
                    continue
                found.append(board)
    rng.shuffle(found)
    return found[:limit]


def measure(model: OnnxMuZero, start: list[chess.Board], depth: int, kind: str,
            seed: int) -> dict[str, float]:
    """Unrolls ``depth`` moves: at each step the legal move f(h(board)) ranks first ("prior",
    what the search tries first) or one drawn uniformly ("random", what it also tries)."""
    rng = random.Random(seed)
    cur = [b.copy() for b in start]
    acts: list[list[int]] = [[] for _ in cur]
    alive = list(range(len(cur)))
    for _ in range(depth):
        alive = [n for n in alive if not cur[n].is_game_over()]
        if not alive:
            return {"positions": 0}
        if kind == "prior":
            real, _ = model.initial(np.stack([contract.encode(cur[n]) for n in alive]))
        for i, n in enumerate(alive):
            legal, idx = contract.legal_move_indices(cur[n])
            j = int(np.argmax(real.policy[i][idx])) if kind == "prior" else rng.randrange(len(legal))
            acts[n].append(int(idx[j]))
            cur[n].push(legal[j])
    alive = [n for n in alive if not cur[n].is_game_over()]
    _, state = model.initial(np.stack([contract.encode(start[n]) for n in alive]))
    act = np.array([acts[n] for n in alive], np.int64)
    out = None
    for k in range(depth):
        step = model.recurrent(state, act[:, k])
        state, out = step.state, step.net
    assert out is not None
    real, _ = model.initial(np.stack([contract.encode(cur[n]) for n in alive]))
    v_img, v_real = out.wdl[:, 0] - out.wdl[:, 2], real.wdl[:, 0] - real.wdl[:, 2]
    return {"positions": len(alive),
            "top1_vs_real": round(float((out.policy.argmax(1) == real.policy.argmax(1)).mean()), 4),
            "value_err_vs_real": round(float(np.abs(v_img - v_real).mean()), 4),
            "value_bias": round(float((v_img - v_real).mean()), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", required=True, help="MuZero initial-inference .onnx")
    ap.add_argument("--records", nargs="+", required=True, help="held-out records directories")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--max", type=int, default=300, help="start positions")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    model = OnnxMuZero.load(a.net, threads=a.threads)
    start = boards(record_files(a.records), a.max, a.seed)
    rows = [{"depth": depth, "moves": kind, **measure(model, start, depth, kind, a.seed + depth)}
            for depth in range(1, a.depth + 1) for kind in ("prior", "random")]
    for r in rows:
        print(r)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
