"""benchmarks/match_material.py: a loss after a piece is dropped counts as trailing, a draw a
rook up counts as leading, and a 3-4 piece ending the tables call won but drawn is reported."""

import sys
from pathlib import Path

import chess
import chess.pgn
import chess.syzygy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from match_material import course, first_held, held, summarize  # noqa: E402


def _game(fen: str, moves: str, white: str, black: str, result: str) -> chess.pgn.Game:
    board = chess.Board(fen)
    game = chess.pgn.Game.from_board(board)
    game.setup(board)
    node: chess.pgn.GameNode = game
    for san in moves.split():
        node = node.add_variation(node.board().parse_san(san))
    game.headers.update({"White": white, "Black": black, "Result": result})
    return game


def test_a_lead_must_hold_and_a_won_ending_drawn_is_reported(tmp_path: Path,
                                                             shared_data: Path) -> None:
    assert held([0] * 20 + [3, 3, 3, 0, -4, -4, -4], hold=3) == (3, -4)
    assert held([0] * 20 + [3, 0, 3, -4, 0], hold=3) == (0, 3)  # swings: neither held
    assert first_held([0] * 20 + [3, 0, 3, 3, 3, -4, -4, -4], hold=3, lead=3) == (22, 25)
    assert first_held([-5] * 20 + [0, 0, 0], hold=3, lead=3) == (None, None)  # before ply 20
    pgn = tmp_path / "games.pgn"
    # Game 1: zerosum (White) has king and rook against king, a table win, and shuffles to a
    # draw. Game 2: zerosum (Black) is a queen down throughout and loses. Game 3 is unfinished
    # and counts as nothing.
    shuffle = " ".join(["Kc2 Kb8 Kb1 Ka8"] * 7)
    kings = " ".join(["Kf2 Kf7 Ke1 Ke8"] * 7)
    games = [
        _game("k7/8/8/8/8/8/8/1K5R w - - 0 1", shuffle, "zerosum", "stockfish", "1/2-1/2"),
        _game("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", kings, "stockfish",
              "zerosum-c12", "1-0"),
        _game("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Kf2", "zerosum", "stockfish", "*"),
    ]
    pgn.write_text("\n\n".join(str(g) for g in games) + "\n")
    tables = chess.syzygy.open_tablebase(str(shared_data / "syzygy" / "regular"))
    out = summarize(pgn, "zerosum", tables, lead=3, hold=6)
    assert out["results"] == {"draw": 1, "loss": 1}
    assert out["led_by_result"] == {"draw": 1, "loss": 0}
    assert out["trailed_by_result"] == {"draw": 0, "loss": 1}
    assert out["by_course"] == {"led": {"draw": 1}, "led and trailed": {}, "trailed": {"loss": 1},
                                "neither": {}}
    # Both leads held from the game's first position on: ply 20 of a game from move 1 is move 11.
    assert out["led_from_move"] == {"games": 1, "q25_50_75": [11.0, 11.0, 11.0]}
    assert out["trailed_from_move"] == {"games": 1, "q25_50_75": [11.0, 11.0, 11.0]}
    assert [course(*held(b, hold=3), lead=3) for b in (
        [0] * 20 + [3, 3, 3, -4, -4, -4], [0] * 20 + [3, 3, 3], [0] * 20 + [-3, -3, -3],
        [0] * 20 + [2, 2, 2, -2, -2, -2])] == ["led and trailed", "led", "trailed", "neither"]
    endings = out["table_endings_not_as_tables_say"]
    assert isinstance(endings, list) and [e["game"] for e in endings] == [1]
    assert endings[0]["tables"] == 2
