"""engine.board (Cython) against python-chess and engine.contract, which are the references."""

from __future__ import annotations

import json
import random
from pathlib import Path

import chess
import numpy as np
import pytest

from engine import contract
from engine.board import Position, move_from_uci, move_to_uci, perft

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
PERFT = DATA / "perft"
GOLDEN = DATA / "lc0" / "maia-1500-golden.jsonl"

# Perft counts above this are left to benchmarks/perft.py (the generator does ~100M nodes/s,
# so this keeps the whole perft suite to a few seconds).
NODE_LIMIT = 5_000_000

needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="shared test data not found")


def to_int(move: chess.Move) -> int:
    return move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)


def to_move(move: int) -> chess.Move:
    return chess.Move(move & 63, (move >> 6) & 63, ((move >> 12) & 7) or None)


def encode(pos: Position) -> np.ndarray:
    out = np.full((contract.NUM_PLANES, 8, 8), 7.0, dtype=np.float32)  # garbage: must be overwritten
    pos.encode(out)
    return out


def legal_ucis(pos: Position) -> set[str]:
    return {move_to_uci(m) for m in pos.legal_move_list()}


def python_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_perft(board, depth - 1)
        board.pop()
    return total


# ---------------------------------------------------------------------------------------- perft


def _epd_cases(name: str) -> list[tuple[str, dict[int, int]]]:
    cases = []
    for line in (PERFT / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fen, *fields = line.split(";")
        counts = {int(f.split()[0][1:]): int(f.split()[1]) for f in fields}
        cases.append((fen.strip(), counts))
    return cases


def _tricky_cases() -> list[tuple[str, dict[int, int]]]:
    cases: list[tuple[str, dict[int, int]]] = []
    for line in (PERFT / "python-chess_tricky.perft").read_text().splitlines():
        line = line.strip()
        if line.startswith("epd "):
            cases.append((line[4:], {}))
        elif line.startswith("perft "):
            _, depth, nodes = line.split()
            cases[-1][1][int(depth)] = int(nodes)
    return cases


def _perft_params() -> list:
    if not PERFT.is_dir():
        return []
    params = []
    for name, cases in (("cpw", _epd_cases("cpw_perft_positions.epd")),
                        ("sunfish", _epd_cases("sunfish_perftsuite.epd")),
                        ("tricky", _tricky_cases())):
        for i, (fen, counts) in enumerate(cases):
            params.append(pytest.param(fen, counts, id=f"{name}-{i}"))
    return params


def is_chess960_castling(fen: str) -> bool:
    """Castling rights that standard chess drops (king or rook off its home square)."""
    parts = fen.split()
    written = parts[2] if len(parts) > 2 else "-"
    return chess.Board(fen).castling_xfen() != written


@needs_data
@pytest.mark.parametrize("fen,counts", _perft_params())
def test_perft(fen: str, counts: dict[int, int]) -> None:
    pos = Position(fen)
    if is_chess960_castling(fen):
        # The file's counts are for Chess960 castling; hold standard chess to python-chess.
        assert perft(pos, 2) == python_perft(chess.Board(fen), 2)
        return
    checked = 0
    for depth, nodes in sorted(counts.items()):
        if nodes <= NODE_LIMIT:
            assert perft(pos, depth) == nodes, f"depth {depth}"
            checked += 1
    assert checked, "no depth small enough to check"
    assert pos.ply() == 0 and pos.fen() == chess.Board(fen).fen()


def test_perft_depth_zero_and_one() -> None:
    pos = Position()
    assert perft(pos, 0) == 1
    assert perft(pos, 1) == 20


# ----------------------------------------------------------------------- lc0 golden positions


def golden_board(position: str) -> chess.Board:
    """The board of a UCI `position` command's arguments."""
    tokens = position.split()
    if tokens[0] == "startpos":
        board, rest = chess.Board(), tokens[1:]
    else:
        assert tokens[0] == "fen"
        end = tokens.index("moves") if "moves" in tokens else len(tokens)
        board, rest = chess.Board(" ".join(tokens[1:end])), tokens[end:]
    for uci in rest[1:]:
        board.push_uci(uci)
    return board


def _golden() -> list[dict]:
    if not GOLDEN.is_file():
        return []
    return [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]


@needs_data
def test_golden_positions() -> None:
    records = _golden()
    assert len(records) == 400
    for rec in records:
        board = golden_board(rec["position"])
        pos = Position.from_board(board)
        where = rec["position"]
        assert pos.ply() == len(board.move_stack), where
        assert pos.fen() == board.fen(), where
        np.testing.assert_array_equal(encode(pos), contract.encode(board), err_msg=where)
        moves = pos.legal_move_list()
        assert {move_to_uci(m) for m in moves} == {m.uci() for m in board.legal_moves}, where
        for m in moves:
            idx = pos.policy_index(m)
            assert idx == contract.move_index(board, to_move(m)), (where, move_to_uci(m))
            assert idx == rec["moves"][move_to_uci(m)]["index"], (where, move_to_uci(m))


# --------------------------------------------------------------------------- random playouts

START_FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
    "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
    "8/8/4k3/8/2pP4/8/8/4K2B b - d3 0 1",
    "4k3/8/8/8/8/8/8/4KBN1 w - - 0 1",
    "4k3/8/8/8/8/5b2/8/4KB2 w - - 0 1",
]


def pick_move(rng: random.Random, board: chess.Board, legal: list[chess.Move]) -> chess.Move:
    """Mostly random, but favouring the rare cases: castling, en passant, double pushes, and
    undoing our own previous move so that repetitions happen."""
    special = [m for m in legal if board.is_castling(m) or board.is_en_passant(m)]
    if special and rng.random() < 0.5:
        return rng.choice(special)
    doubles = [m for m in legal if board.piece_type_at(m.from_square) == chess.PAWN
               and abs(m.to_square - m.from_square) == 16]
    if doubles and rng.random() < 0.2:
        return rng.choice(doubles)
    if len(board.move_stack) >= 2 and rng.random() < 0.35:
        prev = board.move_stack[-2]
        back = chess.Move(prev.to_square, prev.from_square)
        if back in legal:
            return back
    return rng.choice(legal)


def check_same(pos: Position, board: chess.Board, keys: list, seen: dict, tkeys: dict,
               full_encode: bool) -> None:
    where = f"{board.root().fen()} moves {' '.join(m.uci() for m in board.move_stack)}"
    tk = board._transposition_key()
    assert legal_ucis(pos) == {m.uci() for m in board.legal_moves}, where
    assert pos.in_check() == board.is_check(), where
    assert pos.turn() == int(board.turn), where
    assert pos.halfmove_clock() == board.halfmove_clock, where
    assert pos.insufficient_material() == board.is_insufficient_material(), where
    assert pos.fen() == board.fen(), where
    assert pos.ply() == len(board.move_stack), where
    # Equal keys exactly when python-chess sees the same position (across all games).
    assert seen.setdefault(pos.key(), tk) == tk, where
    assert tkeys.setdefault(tk, pos.key()) == pos.key(), where
    earlier = keys[:-1]
    assert pos.repetitions() == earlier.count(tk), where
    distance = next((len(earlier) - i for i in range(len(earlier) - 1, -1, -1) if earlier[i] == tk), 0)
    assert pos.repetition_distance() == distance, where
    if full_encode:
        np.testing.assert_array_equal(encode(pos), contract.encode(board), err_msg=where)


def test_random_playouts() -> None:
    rng = random.Random(20240607)
    seen: dict = {}
    tkeys: dict = {}
    totals = {"plies": 0, "reps": 0, "ep": 0, "checks": 0, "promotions": 0, "castles": 0}
    for game in range(300):
        fen = START_FENS[game % len(START_FENS)]
        board = chess.Board(fen)
        pos = Position(fen)
        keys = [board._transposition_key()]
        history = [(pos.fen(), pos.key())]
        for ply in range(rng.choice((40, 120, 250))):
            check_same(pos, board, keys, seen, tkeys, full_encode=ply % 7 == 0)
            legal = list(board.legal_moves)
            if not legal or board.is_insufficient_material() or board.halfmove_clock >= 100:
                break
            move = pick_move(rng, board, legal)
            totals["ep"] += board.is_en_passant(move)
            totals["castles"] += board.is_castling(move)
            totals["promotions"] += move.promotion is not None
            board.push(move)
            pos.push(to_int(move))
            keys.append(board._transposition_key())
            history.append((pos.fen(), pos.key()))
            totals["plies"] += 1
            totals["reps"] += pos.repetitions() > 0
            totals["checks"] += pos.in_check()
        check_same(pos, board, keys, seen, tkeys, full_encode=True)
        assert pos.to_board().move_stack == board.move_stack
        assert pos.to_board().fen() == board.fen()
        # Unwind the whole game: every state comes back exactly.
        while history:
            assert (pos.fen(), pos.key()) == history.pop()
            if history:
                pos.pop()
        assert pos.ply() == 0
    # The playouts must actually have exercised the special cases.
    assert totals["plies"] > 20000
    assert min(totals.values()) > 20, totals


# -------------------------------------------------------------------------------- push / pop


def test_push_pop_restores_state() -> None:
    rng = random.Random(7)
    for fen in START_FENS:
        pos = Position(fen)
        for _ in range(60):
            moves = pos.legal_move_list()
            if not moves:
                break
            before = (pos.fen(), pos.key(), pos.ply(), pos.repetitions(), encode(pos).tobytes())
            for m in moves:
                pos.push(m)
                pos.pop()
                assert (pos.fen(), pos.key(), pos.ply(), pos.repetitions(),
                        encode(pos).tobytes()) == before
            pos.push(rng.choice(moves))


def test_copy_is_independent() -> None:
    pos = Position()
    for uci in ("e2e4", "e7e5", "g1f3"):
        pos.push(move_from_uci(uci))
    other = pos.copy()
    assert other.fen() == pos.fen() and other.key() == pos.key() and other.ply() == 3
    np.testing.assert_array_equal(encode(other), encode(pos))
    other.push(move_from_uci("b8c6"))
    assert pos.ply() == 3 and other.ply() == 4
    other.pop()
    other.pop()
    assert pos.ply() == 3 and pos.fen() != other.fen()
    # Long games outgrow the initial state array.
    long = Position()
    shuffle = [move_from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8")]
    for i in range(400):
        long.push(shuffle[i % 4])
    assert long.ply() == 400 and long.repetitions() == 100 and long.repetition_distance() == 4
    assert long.copy().repetitions() == 100
    assert long.fen().startswith(chess.STARTING_BOARD_FEN)


def test_from_board_and_to_board() -> None:
    board = chess.Board("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2")
    for uci in ("e4d3", "c2d3", "d7d5"):
        board.push_uci(uci)
    pos = Position.from_board(board)
    assert pos.ply() == 3
    assert pos.fen() == board.fen()
    assert pos.to_board().move_stack == board.move_stack
    assert pos.to_board().root().fen(en_passant="fen") == board.root().fen(en_passant="fen")
    np.testing.assert_array_equal(encode(pos), contract.encode(board))


@pytest.mark.parametrize("fen", [
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",   # legal ep capture
    "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 2",    # ep square, no capturer
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 37 80",
])
def test_fen_roots_encode(fen: str) -> None:
    board = chess.Board(fen)
    pos = Position(fen)
    np.testing.assert_array_equal(encode(pos), contract.encode(board))
    for move in list(board.legal_moves)[:3]:
        board.push(move)
        pos.push(to_int(move))
        np.testing.assert_array_equal(encode(pos), contract.encode(board))
        board.pop()
        pos.pop()


# ----------------------------------------------------------------------- small API behaviour


def test_uci_helpers() -> None:
    for uci in ("e2e4", "e1g1", "a7a8q", "b2a1n", "h7h8r", "c7c8b"):
        assert move_to_uci(move_from_uci(uci)) == uci
    assert move_from_uci("e2e4") == chess.E2 | (chess.E4 << 6)
    assert move_from_uci("a7a8q") == chess.A7 | (chess.A8 << 6) | (chess.QUEEN << 12)
    for bad in ("0000", "e2", "z9e4", "e7e8k"):
        with pytest.raises(ValueError):
            move_from_uci(bad)


@pytest.mark.parametrize("fen", [
    "not a fen",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/8 w - - 0 1",
    "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R x - - 0 1",
    "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
])
def test_bad_fen_raises(fen: str) -> None:
    with pytest.raises(ValueError):
        Position(fen)


def test_buffers_and_errors() -> None:
    pos = Position()
    out = np.zeros(256, dtype=np.int32)
    n = pos.legal_moves(out)
    assert n == 20 and sorted(out[:n].tolist()) == sorted(pos.legal_move_list())
    with pytest.raises(ValueError):
        pos.legal_moves(np.zeros(5, dtype=np.int32))
    with pytest.raises(ValueError):
        pos.encode(np.zeros((111, 8, 8), dtype=np.float32))
    with pytest.raises(IndexError):
        pos.pop()
    with pytest.raises(ValueError):
        pos.push(move_from_uci("e7e5"))  # black pawn, white to move
    # A slice of a batch (what the search passes) works; a non-contiguous view is refused.
    batch = np.zeros((3, 112, 8, 8), dtype=np.float32)
    pos.encode(batch[1])
    np.testing.assert_array_equal(batch[1], contract.encode(chess.Board()))
    assert not batch[0].any() and not batch[2].any()
    with pytest.raises(ValueError):
        pos.encode(np.zeros((112, 16, 8), dtype=np.float32)[:, ::2, :])


def test_terminal_helpers() -> None:
    mate = Position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert mate.in_check() and mate.legal_move_list() == []
    stalemate = Position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert not stalemate.in_check() and stalemate.legal_move_list() == []
    assert Position("4k3/8/8/8/8/8/8/4KB2 w - - 0 1").insufficient_material()
    assert not Position("4k3/8/8/8/8/8/8/3NKB2 w - - 0 1").insufficient_material()
    assert Position("4k3/8/8/8/8/8/8/4K3 w - - 99 80").halfmove_clock() == 99
