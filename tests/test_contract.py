"""The network contract against Leela Chess Zero's own numbers for maia-1500 (golden file)."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import numpy as np
import pytest

from engine import contract
from engine.board import Position
from engine.evaluator import OnnxEvaluator

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
GOLDEN = DATA / "lc0" / "maia-1500-golden.jsonl"


def board_from_uci_position(spec: str) -> chess.Board:
    tokens = spec.split()
    k = tokens.index("moves") if "moves" in tokens else len(tokens)
    board = chess.Board() if tokens[0] == "startpos" else chess.Board(" ".join(tokens[1:k]))
    for uci in tokens[k + 1:]:
        board.push_uci(uci)
    return board


def test_move_table_shape() -> None:
    assert len(contract.MOVES) == contract.POLICY_SIZE == 1858
    assert len(set(contract.MOVES)) == 1858
    assert contract.MOVES[0] == "a1b1"
    assert contract.MOVE_INDEX["a7a8q"] == 1792  # promotions follow the 1792 plain moves
    assert "a7a8n" not in contract.MOVE_INDEX  # knight promotions use the plain move


def test_castling_and_mirroring() -> None:
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert contract.move_index(board, chess.Move.from_uci("e1g1")) == contract.MOVE_INDEX["e1h1"]
    assert contract.move_index(board, chess.Move.from_uci("e1c1")) == contract.MOVE_INDEX["e1a1"]
    board.turn = chess.BLACK
    # Black's e8g8 is seen from black's side: the king on e1 takes its rook on h1.
    assert contract.move_index(board, chess.Move.from_uci("e8g8")) == contract.MOVE_INDEX["e1h1"]
    # python-chess takes the king onto its own rook as castling too (a Chess960-born FEN read
    # as standard chess): the same entry
    assert contract.move_index(board, chess.Move.from_uci("e8h8")) == contract.MOVE_INDEX["e1h1"]


@pytest.fixture(scope="module")
def golden() -> list[dict]:
    return [json.loads(line) for line in GOLDEN.open()]


def test_golden_maia_1500(golden: list[dict]) -> None:
    """Every legal move's index exactly, priors within 0.002, W-L and D within 0.005.

    lc0's own W-L and D for this net differ from onnxruntime's by up to 0.0043 (76 of the 400
    positions exceed 0.003), uniformly over every kind of position, while the policy matches to
    0.0008: the gap is in how lc0 ran the net, not in the input planes (an fp16 run does not
    close it either). So values are held to 0.005, and the mean error to 0.002.
    """
    evaluator = OnnxEvaluator(str(DATA / "lc0" / "maia-1500.onnx"), threads=2)
    boards = [board_from_uci_position(g["position"]) for g in golden]
    planes = np.zeros((len(boards), 112, 8, 8), np.float32)
    for i, b in enumerate(boards):
        Position.from_board(b).encode(planes[i])
    out = evaluator.evaluate(planes)
    value_errors = []
    for i, (g, b) in enumerate(zip(golden, boards)):
        pos = Position.from_board(b)
        moves = pos.legal_move_list()
        assert {chess.Move.from_uci(g_uci) for g_uci in g["moves"]} == set(b.legal_moves)
        from engine.board import move_to_uci

        idx = np.array([pos.policy_index(m) for m in moves])
        logits = out.policy[i, idx].astype(np.float64)
        priors = np.exp(logits - logits.max())
        priors /= priors.sum()
        for m, k, p in zip(moves, idx, priors):
            want = g["moves"][move_to_uci(m)]
            assert k == want["index"], (g["position"], move_to_uci(m))
            assert abs(p - want["prior"]) <= 0.002, (g["position"], move_to_uci(m), p, want)
        wl = float(out.wdl[i, 0] - out.wdl[i, 2])
        d = float(out.wdl[i, 1])
        value_errors += [abs(wl - g["root"]["wl"]), abs(d - g["root"]["d"])]
        assert abs(wl - g["root"]["wl"]) <= 0.005, g["position"]
        assert abs(d - g["root"]["d"]) <= 0.005, g["position"]
    assert float(np.mean(value_errors)) < 0.002


def test_reference_encoder_matches_cython_on_golden(golden: list[dict]) -> None:
    for g in golden[::7]:
        b = board_from_uci_position(g["position"])
        out = np.zeros((112, 8, 8), np.float32)
        Position.from_board(b).encode(out)
        np.testing.assert_array_equal(out, contract.encode(b))


def test_fen_history_fill() -> None:
    """From a FEN the oldest position fills the history; from the start position it stays zero."""
    start = contract.encode(chess.Board())
    assert start[13:104].sum() == 0
    b = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")
    planes = contract.encode(b)
    # Slot 1 undoes black's e7e5 (the FEN's en-passant square): their pawn back on e7,
    # seen from white's side (rank 7 = row 6).
    assert planes[13 + 6, 6, 4] == 1 and planes[13 + 6, 4, 4] == 0
    assert planes[0, 3, 4] == 1  # our e4 pawn now
    np.testing.assert_array_equal(planes[26:39], planes[13:26])
