"""Pure-Python reference of ``engine.board.Position`` on top of python-chess: same interface.

The tests hold the Cython position to this one; the search can run on either.
Moves are ints: ``from | to << 6 | promotion << 12`` (python-chess squares and piece types);
castling as python-chess writes it: e1g1, or in Chess960 the king taking its own rook.
"""

from __future__ import annotations

import chess
import numpy as np
import numpy.typing as npt

from engine import contract


def move_to_uci(move: int) -> str:
    return to_chess_move(move).uci()


def move_from_uci(uci: str) -> int:
    return from_chess_move(chess.Move.from_uci(uci))


def to_chess_move(move: int) -> chess.Move:
    promo = (move >> 12) & 7
    return chess.Move(move & 63, (move >> 6) & 63, promo or None)


def from_chess_move(move: chess.Move) -> int:
    return move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)


class Position:
    """A game from a root FEN, with the history needed for repetitions and the network input."""

    def __init__(self, fen: str = chess.STARTING_FEN, chess960: bool = False) -> None:
        try:
            self._board = chess.Board(fen, chess960=chess960)
        except ValueError as exc:
            raise ValueError(f"bad FEN {fen!r}: {exc}") from None
        self._keys = [self._board._transposition_key()]

    @staticmethod
    def from_board(board: chess.Board) -> Position:
        pos = Position(board.root().fen(), board.chess960)
        for mv in board.move_stack:
            pos.push(from_chess_move(mv))
        return pos

    def copy(self) -> Position:
        other = Position.__new__(Position)
        other._board = self._board.copy()
        other._keys = list(self._keys)
        return other

    def push(self, move: int) -> None:
        self._board.push(to_chess_move(move))
        self._keys.append(self._board._transposition_key())

    def pop(self) -> None:
        self._board.pop()
        self._keys.pop()

    def ply(self) -> int:
        return len(self._board.move_stack)

    def legal_moves(self, out: npt.NDArray[np.int32]) -> int:
        moves = self.legal_move_list()
        out[: len(moves)] = moves
        return len(moves)

    def legal_move_list(self) -> list[int]:
        return [from_chess_move(m) for m in self._board.legal_moves]

    def in_check(self) -> bool:
        return self._board.is_check()

    def turn(self) -> int:
        return int(self._board.turn)

    def halfmove_clock(self) -> int:
        return self._board.halfmove_clock

    def key(self) -> int:
        return hash(self._keys[-1]) & 0xFFFFFFFFFFFFFFFF

    def repetitions(self) -> int:
        return self._keys[:-1].count(self._keys[-1])

    def repetition_distance(self) -> int:
        for back in range(2, len(self._keys)):
            if self._keys[-1 - back] == self._keys[-1]:
                return back
        return 0

    def insufficient_material(self) -> bool:
        return self._board.is_insufficient_material()

    def policy_index(self, move: int) -> int:
        return contract.move_index(self._board, to_chess_move(move))

    def encode(self, out: npt.NDArray[np.float32]) -> None:
        out[...] = contract.encode(self._board)

    def fen(self) -> str:
        return self._board.fen()

    def to_board(self) -> chess.Board:
        return self._board.copy()


def perft(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for mv in pos.legal_move_list():
        pos.push(mv)
        total += perft(pos, depth - 1)
        pos.pop()
    return total
