"""benchmarks/clock_use.py: each engine's seconds a move from the PGN's clock comments, and where
in the game it spent them (median_by_moves)."""

import sys
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from clock_use import clock_use  # noqa: E402


def test_seconds_a_move_are_the_clock_drop_plus_the_increment_grouped_by_tens(
        tmp_path: Path) -> None:
    game = chess.pgn.Game()
    game.headers.update({"White": "fast", "Black": "slow", "TimeControl": "10+0.1",
                         "Result": "*"})
    node: chess.pgn.GameNode = game
    clocks = {chess.WHITE: 10.0, chess.BLACK: 10.0}
    # 12 moves each, Nf3/Ng1 and Nf6/Ng8 back and forth: White spends 0.2 s a move (0.1 s net of
    # the increment), Black 0.5 s on its first 10 moves and 0.1 s after.
    for ply in range(24):
        board = node.board()
        move = board.parse_san(["Nf3", "Nf6", "Ng1", "Ng8"][ply % 4])
        side = board.turn
        spend = 0.2 if side == chess.WHITE else (0.5 if ply < 20 else 0.1)
        clocks[side] = round(clocks[side] - spend + 0.1, 3)
        node = node.add_variation(move)
        node.set_clock(clocks[side])
    path = tmp_path / "games.pgn"
    path.write_text(str(game) + "\n")
    out = clock_use([str(path)])
    assert out["fast"]["moves"] == 12 and out["slow"]["moves"] == 12
    assert out["fast"]["median_by_moves"] == {"1-10": 0.2, "11-20": 0.2}
    assert out["slow"]["median_by_moves"] == {"1-10": 0.5, "11-20": 0.1}
    assert out["slow"]["clock_left_at_end_median"] == 6.0  # 10 - 10 * (0.5 - 0.1) - 2 * 0
