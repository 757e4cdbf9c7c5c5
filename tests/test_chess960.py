"""Chess960: move generation (perft on python-chess's 960 suite), castling as the king taking
its own rook, the network encoding (lc0's: castling planes say only whether a right exists, the
policy index is the king-to-rook move's), and UCI_Chess960 in a scripted dialogue."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from engine import board_ref, contract
from engine.board import Position, move_to_uci, perft
from tests.test_board import check_same, pick_move, to_int, to_move
from tests.test_uci_dialogue import (  # noqa: F401  (fixtures)
    EngineProcess,
    assert_legal,
    bestmove_of,
    engine,
    raw_engine,
)

SUITE = Path(__file__).resolve().parents[2] / "shared" / "data" / "perft" / "python-chess_chess960.perft"

# Castling both ways is legal for white: e1b1 (king to c1, rook to d1) and e1g1 (king to g1,
# rook to f1), each the king "taking" its own rook.
BOTH_WAYS = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"


def suite() -> list[tuple[str, dict[int, int]]]:
    if not SUITE.is_file():
        pytest.skip(f"{SUITE} not found")
    cases: list[tuple[str, dict[int, int]]] = []
    for line in SUITE.read_text().splitlines():
        if line.startswith("epd "):
            cases.append((line[4:].strip(), {}))
        elif line.startswith("perft "):
            _, depth, nodes = line.split()
            cases[-1][1][int(depth)] = int(nodes)
    return cases


def test_perft_on_the_chess960_suite() -> None:
    """Every 8th of the 960 start positions at depth 3, every 40th at depth 4 (a second or
    two; all 960 at depth 4 pass too, in a few seconds)."""
    cases = suite()
    assert len(cases) == 960
    for i, (fen, counts) in enumerate(cases):
        if i % 8:
            continue
        pos = Position(fen, chess960=True)
        for depth in ((3, 4) if i % 40 == 0 else (3,)):
            assert perft(pos, depth) == counts[depth], (fen, depth)
        assert pos.ply() == 0


def test_random_chess960_games_match_python_chess() -> None:
    """Legal moves, keys, repetitions, FEN, input planes and policy indices, move by move."""
    rng = random.Random(960)
    castles = 0
    for game in range(16):
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        pos = Position(board.fen(), chess960=True)
        ref = board_ref.Position(board.fen(), chess960=True)
        keys = [board._transposition_key()]
        seen: dict = {}
        tkeys: dict = {}
        for ply in range(rng.choice((30, 80))):
            check_same(pos, board, keys, seen, tkeys, full_encode=ply % 5 == 0)
            if ply % 3 == 0:
                assert sorted(ref.legal_move_list()) == sorted(pos.legal_move_list())
                for m in pos.legal_move_list():
                    assert pos.policy_index(m) == contract.move_index(board, to_move(m))
            legal = list(board.legal_moves)
            if not legal or board.is_insufficient_material():
                break
            move = pick_move(rng, board, legal)
            castles += board.is_castling(move)
            board.push(move)
            pos.push(to_int(move))
            ref.push(to_int(move))
            keys.append(board._transposition_key())
        assert pos.to_board().move_stack == board.move_stack
    assert castles > 8, castles


def test_castling_is_written_king_takes_rook() -> None:
    pos = Position(BOTH_WAYS, chess960=True)
    moves = {move_to_uci(m) for m in pos.legal_move_list()}
    assert {"e1b1", "e1g1"} <= moves and not {"e1c1"} & moves
    for uci, after in (("e1b1", "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/2KR2R1"),
                       ("e1g1", "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1")):
        p = pos.copy()
        move = chess.Move.from_uci(uci)
        p.push(to_int(move))
        board = chess.Board(BOTH_WAYS, chess960=True)
        board.push(move)
        assert p.fen() == board.fen() and p.fen().split()[0] == after
        assert not board.has_castling_rights(chess.WHITE)
    # The king already on its castling square: only the rook moves (g1h1 -> rook to f1).
    still = Position("4k3/8/8/8/8/8/8/6KR w H - 0 1", chess960=True)
    assert "g1h1" in {move_to_uci(m) for m in still.legal_move_list()}
    still.push(chess.G1 | chess.H1 << 6)
    assert still.fen().startswith("4k3/8/8/8/8/8/8/5RK1 b - -")
    # Standard chess keeps the two-square king move, and lc0's king-takes-rook policy index.
    std = Position("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert "e1g1" in {move_to_uci(m) for m in std.legal_move_list()}
    castle = chess.E1 | chess.G1 << 6
    assert std.policy_index(castle) == contract.MOVE_INDEX["e1h1"]
    in960 = Position("4k3/8/8/8/8/8/8/4K2R w K - 0 1", chess960=True)
    assert in960.policy_index(chess.E1 | chess.H1 << 6) == contract.MOVE_INDEX["e1h1"]


def test_castling_planes_say_whether_a_right_exists() -> None:
    """lc0's classical planes 104-107 (we O-O-O, we O-O, they O-O-O, they O-O): rook files do
    not show, so a 960 start encodes its rights as the standard start does."""
    board = chess.Board.from_chess960_pos(100)  # rooks on e and h
    planes = np.zeros((contract.NUM_PLANES, 8, 8), np.float32)
    Position(board.fen(), chess960=True).encode(planes)
    assert all(planes[k].min() == 1.0 for k in (104, 105, 106, 107))
    np.testing.assert_array_equal(planes[104:], contract.encode(chess.Board())[104:])
    for uci in ("f1e3", "f8e6", "g1h1"):  # white castles h-side (O-O): king g1, rook h1 -> f1
        board.push_uci(uci)
    pos = Position.from_board(board)
    pos.encode(planes)
    np.testing.assert_array_equal(planes, contract.encode(board))
    assert planes[106].min() == planes[107].min() == 0.0  # black's view: they lost both
    assert planes[104].min() == planes[105].min() == 1.0


# ------------------------------------------------------------------ dialogue


def test_uci_chess960_dialogue(engine: EngineProcess) -> None:
    engine.send("setoption name UCI_Chess960 value true")
    engine.send(f"position fen {BOTH_WAYS}")
    lines, best = engine.search("go nodes 60 searchmoves e1b1 e1g1")
    assert bestmove_of(best) in ("e1b1", "e1g1"), lines
    board = chess.Board(BOTH_WAYS, chess960=True)
    assert_legal(best, board)
    # The GUI sends castling back in the same notation; the engine answers from there.
    engine.send(f"position fen {BOTH_WAYS} moves e1g1 e8b8")
    board.push_uci("e1g1")
    board.push_uci("e8b8")
    lines, best = engine.search("go nodes 40")
    assert not [s for s in lines if s.startswith("info string")], lines
    assert_legal(best, board)
    # A 960 start position by Shredder-FEN, a whole short game of king-takes-rook moves.
    start = chess.Board.from_chess960_pos(518 - 1)
    engine.send(f"position fen {start.fen()}")
    _, best = engine.search("go nodes 30")
    assert_legal(best, start)
    engine.send("setoption name UCI_Chess960 value false")
    engine.send("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    _, best = engine.search("go nodes 30 searchmoves e1g1")
    assert bestmove_of(best) == "e1g1"


# ------------------------------------------------------------------ match


def test_chess960_match_against_stockfish(maia_path: Path, tmp_path: Path) -> None:
    """The match runner's fischerandom mode (cutechess's -variant): both engines get
    UCI_Chess960, games start from 960 positions, the PGN says Variant Chess960."""
    from trainer.arena.match import chess960_openings, play_match, stockfish_path, stockfish_spec
    from trainer.arena.match import zerosum_spec

    if stockfish_path() is None:
        pytest.skip("Stockfish is not installed")
    openings = chess960_openings(1, seed=5)
    assert openings[0].chess960 and openings[0].board().chess960
    pgn = tmp_path / "960.pgn"
    r = play_match(zerosum_spec(maia_path, Threads=1, NNThreads=1), stockfish_spec(1350),
                   openings=openings, games=2, tc="nodes=40", pgn_path=pgn, max_plies=40,
                   progress=False)
    assert r.failures == [], [str(f) for f in r.failures]
    with open(pgn, encoding="utf-8") as f:
        for _ in range(2):
            game = chess.pgn.read_game(f)
            assert game is not None
            assert game.headers["Variant"] == "Chess960"
            board = game.board()
            assert board.chess960 and board.fen() == openings[0].fen
            for move in game.mainline_moves():  # every move legal from the 960 start
                assert move in board.legal_moves
                board.push(move)
