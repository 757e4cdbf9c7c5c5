"""The network contract: what a net reads and writes, written once for engine and trainer.

It is the contract of Leela Chess Zero's classical ONNX nets, so lc0 nets converted with
`lc0 leela2onnx` run here unchanged and our nets run in lc0's tools.

Inputs, `/input/planes`, float32 ``[B, 112, 8, 8]``; plane ``p`` square ``[rank, file]`` from the
side to move's view (ranks mirrored when black is to move, so "we" always play up the board):

====================  =====================================================================
planes ``13*i + 0..5``   our pawns, knights, bishops, rooks, queens, king, ``i`` plies ago (i=0..7)
planes ``13*i + 6..11``  their pieces, same order
plane ``13*i + 12``      all ones if that position occurred before (a repetition)
plane 104 / 105          we may castle queenside / kingside
plane 106 / 107          they may castle queenside / kingside
plane 108                all ones if black is to move
plane 109                the rule-50 counter in plies, unscaled
plane 110                zeros (was the move count)
plane 111                all ones (lets convolutions see the board edge)
====================  =====================================================================

History older than the game record is filled the way lc0 does ("fen_only"): when the position came
from a FEN, the oldest known position is repeated into the empty history slots (with the last
double pawn push undone, since that push is implied by the FEN's en-passant square); when the
oldest position is the standard start position, the empty slots stay zero.

Outputs: `/output/policy` ``[B, 1858]`` logits over :data:`MOVES`, spelled from the side to move's
view (black's moves mirrored), castling as the king taking its own rook (``e1h1``), queen, rook and
bishop promotions with their own entries and knight promotions sharing the plain move's entry;
`/output/wdl` ``[B, 3]`` win/draw/loss probabilities for the side to move; optionally
`/output/mlh` ``[B, 1]`` the moves left.

MuZero nets (trainer/muzero) are two graphs side by side. ``NET.onnx``, initial inference, is a net
of this contract (planes in; policy, WDL out) with one more output, `/output/state` ``[B, C, 8, 8]``,
the hidden state; its metadata_props say ``mode`` = ``muzero`` and ``recurrent`` = the file name of
the second graph, recurrent inference: `/input/state` ``[B, C, 8, 8]`` and `/input/action` int64
``[B]`` (an index of :data:`MOVES`, the side to move's view) in; `/output/state`, `/output/reward`
``[B, 3]`` (win/none-or-draw/loss probabilities for the player who made the move), `/output/policy`
and `/output/wdl` (for the side to move in the new state) out.
"""

from __future__ import annotations

from typing import Final, Sequence

import chess
import numpy as np
import numpy.typing as npt

CONTRACT_VERSION: Final = 1

INPUT_NAME: Final = "/input/planes"
POLICY_NAME: Final = "/output/policy"
WDL_NAME: Final = "/output/wdl"
MLH_NAME: Final = "/output/mlh"

MODE_KEY: Final = "mode"
MUZERO_MODE: Final = "muzero"
RECURRENT_KEY: Final = "recurrent"
STATE_INPUT: Final = "/input/state"
ACTION_INPUT: Final = "/input/action"
STATE_NAME: Final = "/output/state"
REWARD_NAME: Final = "/output/reward"

NUM_PLANES: Final = 112
POLICY_SIZE: Final = 1858
HISTORY: Final = 8
PLANES_PER_BOARD: Final = 13
AUX_BASE: Final = HISTORY * PLANES_PER_BOARD  # 104


def _build_moves() -> tuple[str, ...]:
    """The 1858 policy entries in lc0's order: by from-square, then to-square, then promotions."""
    moves = []
    for frm in range(64):
        ff, fr = frm % 8, frm // 8
        for to in range(64):
            if to == frm:
                continue
            tf, tr = to % 8, to // 8
            df, dr = abs(tf - ff), abs(tr - fr)
            if df == 0 or dr == 0 or df == dr or (df, dr) in ((1, 2), (2, 1)):
                moves.append(chess.square_name(frm) + chess.square_name(to))
    for ff in range(8):
        for tf in range(max(0, ff - 1), min(7, ff + 1) + 1):
            for piece in "qrb":
                moves.append(chess.FILE_NAMES[ff] + "7" + chess.FILE_NAMES[tf] + "8" + piece)
    return tuple(moves)


MOVES: Final[tuple[str, ...]] = _build_moves()
MOVE_INDEX: Final[dict[str, int]] = {m: i for i, m in enumerate(MOVES)}
assert len(MOVES) == POLICY_SIZE

_KING_TO_ROOK: Final = {
    (chess.E1, chess.G1): chess.H1,
    (chess.E1, chess.C1): chess.A1,
    (chess.E8, chess.G8): chess.H8,
    (chess.E8, chess.C8): chess.A8,
}


def lc0_move(board: chess.Board, move: chess.Move) -> chess.Move:
    """The move as lc0 spells it: castling becomes the king moving onto its own rook."""
    if board.is_castling(move) and not board.chess960:
        # python-chess also takes the king onto its rook as castling: that is lc0's form already
        rook = _KING_TO_ROOK.get((move.from_square, move.to_square))
        return move if rook is None else chess.Move(move.from_square, rook)
    return move


def move_index(board: chess.Board, move: chess.Move) -> int:
    """Index of a legal ``move`` of ``board`` in the 1858-wide policy."""
    move = lc0_move(board, move)
    frm, to = move.from_square, move.to_square
    if board.turn == chess.BLACK:
        frm, to = chess.square_mirror(frm), chess.square_mirror(to)
    name = chess.square_name(frm) + chess.square_name(to)
    if move.promotion is not None and move.promotion != chess.KNIGHT:
        name += chess.piece_symbol(move.promotion)
    return MOVE_INDEX[name]


def legal_move_indices(board: chess.Board) -> tuple[list[chess.Move], npt.NDArray[np.int64]]:
    """The legal moves of ``board`` and their policy indices, in python-chess's order."""
    moves = list(board.legal_moves)
    return moves, np.array([move_index(board, m) for m in moves], dtype=np.int64)


def _bits(bb: int) -> npt.NDArray[np.float32]:
    """A 64-bit board as an [8, 8] plane, a1 at [0, 0] (rank-major)."""
    raw = np.frombuffer(int(bb).to_bytes(8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little").reshape(8, 8).astype(np.float32)


def _history(board: chess.Board) -> list[chess.Board]:
    """Positions from the root of ``board``'s move stack to ``board`` itself, oldest first."""
    positions = [board.copy(stack=False)]
    b = board.copy()
    while b.move_stack:
        b.pop()
        positions.append(b.copy(stack=False))
    positions.reverse()
    return positions


def _repetition_flags(positions: Sequence[chess.Board]) -> list[bool]:
    seen: set[object] = set()
    flags = []
    for p in positions:
        key = p._transposition_key()
        flags.append(key in seen)
        seen.add(key)
    return flags


def _is_startpos(board: chess.Board) -> bool:
    return board.board_fen() == chess.STARTING_BOARD_FEN and board.turn == chess.WHITE and (
        board.castling_rights == chess.BB_CORNERS
    )


def encode(board: chess.Board) -> npt.NDArray[np.float32]:
    """The [112, 8, 8] input planes for ``board``, its move stack giving the history.

    This is the reference implementation; the Cython core must produce the same planes.
    """
    planes = np.zeros((NUM_PLANES, 8, 8), dtype=np.float32)
    us = board.turn
    them = not us
    flip = us == chess.BLACK

    def view(bb: int) -> int:
        return chess.flip_vertical(bb) if flip else bb

    if board.has_queenside_castling_rights(us):
        planes[AUX_BASE + 0] = 1.0
    if board.has_kingside_castling_rights(us):
        planes[AUX_BASE + 1] = 1.0
    if board.has_queenside_castling_rights(them):
        planes[AUX_BASE + 2] = 1.0
    if board.has_kingside_castling_rights(them):
        planes[AUX_BASE + 3] = 1.0
    if flip:
        planes[AUX_BASE + 4] = 1.0
    planes[AUX_BASE + 5] = float(board.halfmove_clock)
    planes[AUX_BASE + 7] = 1.0

    positions = _history(board)
    reps = _repetition_flags(positions)
    oldest = positions[0]
    for i in range(HISTORY):
        idx = len(positions) - 1 - i
        filler = idx < 0
        if filler and _is_startpos(oldest):
            break
        pos = positions[max(idx, 0)]
        base = i * PLANES_PER_BOARD
        for k, pt in enumerate(chess.PIECE_TYPES):
            planes[base + k] = _bits(view(pos.pieces_mask(pt, us)))
            planes[base + 6 + k] = _bits(view(pos.pieces_mask(pt, them)))
        if reps[max(idx, 0)] and not filler:
            planes[base + 12] = 1.0
        if filler and pos.ep_square is not None:
            # The FEN's en-passant square says the side not to move just pushed a pawn two
            # squares; the filled-in older position is the one before that push.
            pusher = not pos.turn
            ep = pos.ep_square
            now = ep + (8 if pusher == chess.WHITE else -8)
            before = ep - (8 if pusher == chess.WHITE else -8)
            k = 0 if pusher == us else 6
            pawns = pos.pieces_mask(chess.PAWN, pusher)
            pawns = (pawns & ~chess.BB_SQUARES[now]) | chess.BB_SQUARES[before]
            planes[base + k] = _bits(view(pawns))
    return planes
