"""Targets at equal compute: which root rule makes the best policy and value target per visit?

For positions from real games, every rule searches with the same net and the same number of
visits, with its self-play noise, and yields the policy target self-play would record:
    raw        the net's own policy (no search)
    puct       visit counts of a PUCT search with Dirichlet noise (eps 0.25, alpha 0.3)
    forced     the same with KataGo's forced playouts (k = 2), target pruned
    gumbel     Gumbel AlphaZero (16 considered), improved policy
Each target is scored against Stockfish's best move (``--sf-depth``): top-1 (the target's
highest entry is Stockfish's move) and the mass it puts on that move (the higher, the more a
training step pulls the net toward it). The value targets each rule could record (the net's
own W-L; the root's mean Q; for Gumbel also the improved policy's expected Q) are scored against
Stockfish's W-L at the same depth: mean absolute error and correlation. Prints one JSON line per
rule. ``--games`` may be a PGN of self-play games, to score targets where self-play records them.
``--policy-temperatures`` scores every search rule at several softmax temperatures of the
priors (SearchParams.policy_temperature; self-play's --policy-temperature; the raw prior is
scored at 1). ``--gumbel-scales`` scores the Gumbel target at several c_scale values
(GumbelParams.value_scale: how far the completed Q moves the improved policy away from the
prior), ``--gumbel-rescale`` with the completed Q min-max rescaled (mctx) or not;
``sf_move_logloss`` is the cross-entropy a net trained to the target would pay on Stockfish's
move, mean -log(mass).

    python benchmarks/targets_ab.py --positions 300 --visits 32 64
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import numpy as np

from engine import contract
from engine.board import Position
from engine.evaluator import BUNDLED_NET_FILE, OnnxEvaluator
from engine.gumbel import GumbelParams, pruned_root_visits, run_search
from engine.mcts import ROOT
from engine.search import Search, SearchParams

REPO = Path(__file__).resolve().parents[1]
GAMES = REPO.parent / "shared" / "data" / "pgn" / "carlsen_lichess_DrDrunkenstein_2019-01-29.pgn"


def positions(path: Path, count: int, seed: int) -> list[chess.Board]:
    """Positions at plies 10..80 of the games in ``path``, one per game, shuffled."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    with open(path) as f:
        while len(out) < count * 3:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            moves = list(game.mainline_moves())
            if len(moves) < 20:
                continue
            board = game.board()
            stop = rng.randrange(10, min(80, len(moves)))
            for m in moves[:stop]:
                board.push(m)
            if not board.is_game_over() and board.legal_moves.count() > 1:
                out.append(board)
    rng.shuffle(out)
    return out[:count]


def target(rule: str, ev: OnnxEvaluator, board: chess.Board, visits: int,
           seed: int, c_scale: float = 0.1, rescale: bool = True,
           policy_temperature: float = SearchParams.policy_temperature,
           ) -> tuple[dict[int, float], dict[str, float]]:
    """The policy target (policy index -> probability) ``rule`` records for ``board``, and its
    value targets (W-L for the side to move) by name."""
    pos = Position.from_board(board)
    hist = [m.from_square | (m.to_square << 6) | ((m.promotion or 0) << 12)
            for m in board.move_stack]
    if rule == "raw":
        planes = np.zeros((1, contract.NUM_PLANES, 8, 8), np.float32)
        pos.encode(planes[0])
        out = ev.evaluate(planes)
        logits = out.policy[0]
        return ({contract.move_index(board, m): float(logits[contract.move_index(board, m)])
                 for m in board.legal_moves}, {"net": float(out.wdl[0, 0] - out.wdl[0, 2])})
    noise = 0.25 if rule in ("puct", "forced") else 0.0
    params = SearchParams(minibatch_size=8, dirichlet_epsilon=noise, seed=seed,
                          forced_playouts=2.0 if rule == "forced" else 0.0,
                          policy_temperature=policy_temperature)
    search = Search(ev, params)
    search.set_position(pos, hist)
    if rule == "gumbel":
        root = run_search(search, GumbelParams(simulations=visits, value_scale=c_scale,
                                               rescale_values=rescale,
                                               prior_temperature=params.policy_temperature),
                          np.random.default_rng(seed))
        moves = search.tree.children(ROOT)[0]
        probs = root.improved_policy(search.tree)
        return ({pos.policy_index(int(m)): float(p) for m, p in zip(moves, probs)},
                {"root_mean": root_value(search), "improved": root.improved_value(search.tree)[0]})
    search.run_worker(lambda: False, node_limit=visits + 1)
    if rule == "forced":
        moves, n = pruned_root_visits(search.tree, params)
    else:
        moves, _, n = search.tree.children(ROOT)[:3]
    s = float(n.sum())
    return ({pos.policy_index(int(m)): float(v) / s for m, v in zip(moves, n) if v > 0},
            {"root_mean": root_value(search)})


def root_value(search: Search) -> float:
    """The root's mean value for its side to move (what self-play records as root Q)."""
    return -float(search.tree.node_stats(ROOT)[2])


def sf_value(info: chess.engine.InfoDict, board: chess.Board) -> float:
    """Stockfish's expected W-L for the side to move (its WDL model at this depth)."""
    wdl = info["score"].pov(board.turn).wdl()
    return (wdl.wins - wdl.losses) / 1000.0


def value_scores(v: list[float], sf: list[float]) -> dict[str, float]:
    """How a value target agrees with Stockfish's: mean absolute error and correlation."""
    x, y = np.array(v), np.array(sf)
    return {"mae": round(float(np.abs(x - y).mean()), 4),
            "corr": round(float(np.corrcoef(x, y)[0, 1]), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", default=str(REPO / "nets" / BUNDLED_NET_FILE))
    ap.add_argument("--games", default=str(GAMES))
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--visits", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--sf-depth", type=int, default=14)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gumbel-scales", type=float, nargs="+", default=[0.1],
                    help="Gumbel c_scale values to score (mctx: 0.1)")
    ap.add_argument("--gumbel-rescale", nargs="+", choices=("yes", "no"), default=["yes"],
                    help="Gumbel: min-max rescaled Q (mctx), W-L as it is, or both")
    ap.add_argument("--policy-temperatures", type=float, nargs="+",
                    default=[SearchParams.policy_temperature],
                    help="softmax temperatures of the searches' priors to score")
    ap.add_argument("--rules", nargs="+", default=["raw", "puct", "forced", "gumbel"])
    a = ap.parse_args()
    boards = positions(Path(a.games), a.positions, a.seed)
    t0 = time.monotonic()
    best, sfv = [], []
    with chess.engine.SimpleEngine.popen_uci(a.stockfish) as sf:
        sf.configure({"UCI_ShowWDL": True})
        for b in boards:
            info = sf.analyse(b, chess.engine.Limit(depth=a.sf_depth))
            best.append(contract.move_index(b, info["pv"][0]))
            sfv.append(sf_value(info, b))
    print(json.dumps({"positions": len(boards), "stockfish_depth": a.sf_depth,
                      "label_s": round(time.monotonic() - t0, 1)}), flush=True)
    ev = OnnxEvaluator(a.net, threads=2)
    runs = [("raw", 0, 0.0, True, 1.0)] if "raw" in a.rules else []
    runs += [(r, v, c, x == "yes", pt) for v in a.visits for pt in a.policy_temperatures
             for r in ("puct", "forced", "gumbel")
             if r in a.rules for x in (a.gumbel_rescale if r == "gumbel" else ["yes"])
             for c in (a.gumbel_scales if r == "gumbel" else [0.0])]
    for rule, visits, c_scale, rescale, ptemp in runs:
        t0 = time.monotonic()
        top1, mass = [], []
        values: dict[str, list[float]] = {}
        for i, (b, sf_idx) in enumerate(zip(boards, best)):
            t, v = target(rule, ev, b, visits, a.seed + i, c_scale, rescale, ptemp)
            for k, x in v.items():
                values.setdefault(k, []).append(x)
            if rule == "raw":  # logits -> probabilities
                z = np.array(list(t.values()))
                p = np.exp(z - z.max())
                t = dict(zip(t.keys(), p / p.sum()))
            top1.append(max(t, key=t.__getitem__) == sf_idx)
            mass.append(t.get(sf_idx, 0.0))
        extra = {"c_scale": c_scale, "rescale": rescale} if rule == "gumbel" else {}
        logloss = float(np.mean(-np.log(np.maximum(mass, 1e-4))))
        print(json.dumps({"rule": rule, "visits": visits, "policy_temperature": ptemp, **extra,
                          "top1_vs_sf": round(np.mean(top1), 4),
                          "mass_on_sf_move": round(float(np.mean(mass)), 4),
                          "sf_move_logloss": round(logloss, 4),
                          **{f"value_{k}": value_scores(x, sfv) for k, x in values.items()},
                          "seconds": round(time.monotonic() - t0, 1)}), flush=True)


if __name__ == "__main__":
    main()
