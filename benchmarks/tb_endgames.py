"""Endgame conversion with and without Syzygy tables, and the tables' cost on search speed.

    nice -n 10 python benchmarks/tb_endgames.py [--positions 50] [--nodes 200] [--seed 14]
        [--tables both|with|without] [--skip-speed] [--option NAME=VALUE ...]

Picks random 4-piece positions the side to move wins (python-chess's probe of the tables in
../shared/data/syzygy, half-move clock 0), and has Zerosum (through UCI, fixed nodes a move) play
them out against Stockfish (fixed time a move, no tables) until mate, the 50-move rule (100
plies without a capture or pawn move), a repetition or stalemate: once with SyzygyPath set and
once without. Then nodes/second of the search over the same and 5-piece positions, with and
without the tables (the in-tree probes cost Python calls; the speed shows what they cost).
``--option`` sets a UCI option of Zerosum's for the conversion games (e.g. MovesLeftMaxEffect=0.0345
to measure lc0's moves-left utility on the same positions).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.syzygy

REPO = Path(__file__).resolve().parents[1]
SYZYGY = REPO.parent / "shared" / "data" / "syzygy" / "regular"
STOCKFISH = "/usr/games/stockfish"

# 4-piece material the stronger side can win with; a defending piece makes the defence real
# (Stockfish defends it) and gives captures for the tree to probe.
MATERIAL = ("KQvKR", "KQvKN", "KQvKB", "KQvKP", "KRvKN", "KRvKB", "KRvKP", "KPvKP", "KBNvK",
            "KPPvK", "KQQvK", "KRBvK")


def random_won_positions(count: int, seed: int,
                         tables: chess.syzygy.Tablebase) -> list[chess.Board]:
    """``count`` legal 4-piece positions that the side to move wins under the 50-move rule
    (WDL +2), seeded."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    while len(out) < count:
        strong, weak = rng.choice(MATERIAL).split("v")
        board = chess.Board(None)
        turn = rng.choice([chess.WHITE, chess.BLACK])
        squares = rng.sample(chess.SQUARES, len(strong) + len(weak))
        for sym, sq in zip(strong + weak.lower(), squares):
            piece = chess.Piece.from_symbol(sym if turn == chess.WHITE else sym.swapcase())
            board.set_piece_at(sq, piece)
        board.turn = turn
        if not board.is_valid() or board.is_game_over():
            continue
        if tables.probe_wdl(board) != 2:
            continue
        out.append(board)
    return out


def play_out(engine: chess.engine.SimpleEngine, defender: chess.engine.SimpleEngine,
             start: chess.Board, nodes: int, defend_s: float) -> str:
    """'win' when the engine mates, else why the game ended ('50-move', 'repetition', ...)."""
    board = start.copy()
    ours = board.turn
    while True:
        if board.is_checkmate():
            return "win" if board.turn != ours else "loss"
        if board.is_stalemate():
            return "stalemate"
        if board.is_insufficient_material():
            return "insufficient"
        if board.halfmove_clock >= 100:
            return "50-move"
        if board.is_repetition(3):
            return "repetition"
        if board.turn == ours:
            move = engine.play(board, chess.engine.Limit(nodes=nodes), game=start).move
        else:
            move = defender.play(board, chess.engine.Limit(time=defend_s), game=start).move
        assert move is not None
        board.push(move)


def conversion(positions: list[chess.Board], tables: bool, nodes: int, defend_s: float,
               options: dict[str, str] | None = None) -> dict[str, int]:
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, str(REPO / "uci_main.py")])
    engine.configure({**(options or {}), "SyzygyPath": str(SYZYGY) if tables else "<empty>"})
    defender = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    defender.configure({"Threads": 1, "Hash": 16})
    results: dict[str, int] = {}
    try:
        for i, board in enumerate(positions):
            r = play_out(engine, defender, board, nodes, defend_s)
            results[r] = results.get(r, 0) + 1
            print(f"  {'tables' if tables else 'no tables'} {i + 1}/{len(positions)} "
                  f"{board.fen()}: {r}", flush=True)
    finally:
        engine.quit()
        defender.quit()
    return results


def speed(boards: list[chess.Board], tables: bool, seconds: float) -> tuple[float, int]:
    """(nodes/second, tbhits) of the search over ``boards``, ``seconds`` each."""
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, str(REPO / "uci_main.py")])
    engine.configure({"SyzygyPath": str(SYZYGY) if tables else "<empty>"})
    nodes, elapsed, hits = 0, 0.0, 0
    try:
        for board in boards:
            engine.configure({"Clear Tree": None})
            info = engine.analyse(board, chess.engine.Limit(time=seconds))
            nodes += int(info.get("nodes", 0))
            elapsed += float(info.get("time", seconds))
            hits += int(info.get("tbhits", 0))
    finally:
        engine.quit()
    return nodes / max(elapsed, 1e-9), hits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=50)
    ap.add_argument("--nodes", type=int, default=200, help="Zerosum's nodes per move")
    ap.add_argument("--defend-ms", type=int, default=50, help="Stockfish's time per move")
    ap.add_argument("--speed-seconds", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--skip-conversion", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--tables", choices=("both", "with", "without"), default="both",
                    help="conversion runs with SyzygyPath, without, or both")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option for Zerosum in the conversion games (repeatable)")
    args = ap.parse_args()
    options: dict[str, str] = {}
    for o in args.option:
        name, sep, value = o.partition("=")
        if not sep or not name:
            ap.error(f"--option takes NAME=VALUE, not {o!r}")
        options[name] = value
    tables = chess.syzygy.open_tablebase(str(SYZYGY))
    positions = random_won_positions(args.positions, args.seed, tables)
    if not args.skip_conversion:
        uses = {"both": (True, False), "with": (True,), "without": (False,)}[args.tables]
        for use in uses:
            t0 = time.monotonic()
            res = conversion(positions, use, args.nodes, args.defend_ms / 1000, options)
            print(f"{'with' if use else 'without'} SyzygyPath: converted {res.get('win', 0)}/"
                  f"{len(positions)} won positions ({res}) in {time.monotonic() - t0:.0f} s",
                  flush=True)
    if args.skip_speed:
        return 0
    # Speed: 5-piece positions (captures into the tables get probed) and the 4-piece ones.
    five = [chess.Board(f) for f in (
        "8/8/4k3/8/1r6/8/1R2P3/4K3 w - - 0 1", "8/5k2/8/3p4/8/2N5/1K3P2/8 w - - 0 1",
        "8/8/2k5/8/3q4/8/3RK3/3B4 w - - 0 1", "6k1/8/8/8/2b5/5N2/5P2/6K1 b - - 0 1")]
    for name, boards in (("5-piece", five), ("4-piece", positions[:4])):
        for use in (False, True):
            nps, hits = speed(boards, use, args.speed_seconds)
            print(f"speed {name} {'with' if use else 'without'} tables: {nps:.0f} nps, "
                  f"tbhits {hits}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
