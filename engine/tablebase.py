"""Syzygy tablebases through python-chess: at the root and inside the search tree.

At the root, with few enough pieces on the board (and no castling rights), the moves are narrowed
to the ones that keep the tables' verdict, and among winning moves to those that reach the next
capture or pawn move soonest (lowest DTZ), so the win is never lost to the 50-move rule. The
search then chooses among them, as Stockfish does with its root move filtering.

Inside the tree, a node with few enough pieces reached by a capture or a pawn move (half-move
clock 0, as lc0 probes) takes its WDL from the tables as an exact, terminal value. There the WDL is
exact under the 50-move rule: a cursed win or blessed loss (+-1) is a draw. Elsewhere the clock has
run and WDL alone could call a draw a win, so those nodes are left to the network. Probing runs
python-chess from the C gatherer, so it is kept to those nodes and its answers are cached.
"""

from __future__ import annotations

import os

import chess
import chess.syzygy

from engine.mcts import DRAW, LOSS, WIN

TB_PLIES = 4096
"""``bound_plies`` offset of a node the tables won or lost: the tables give no distance to mate,
and a real mate in the tree (at most the tree's 1024 plies) must always rank before them, so a
tablebase result counts as this many plies, plus the plies from the root to the probed node."""
TB_WIN_CP = 20000
"""Centipawns reported for a tablebase win (Stockfish's convention), less the plies to reach it."""


TREE_CACHE = 1 << 18
"""Positions whose in-tree result is kept (a dict: about 25 MB at most)."""


def result_of_wdl(wdl: int) -> int:
    """WIN, DRAW or LOSS for the side that moved in, from the WDL of the side to move."""
    if wdl >= 2:
        return LOSS  # the side to move wins
    if wdl <= -2:
        return WIN
    return DRAW  # cursed wins and blessed losses included


def _dtz_of_zeroing(wdl: int) -> int:
    """The DTZ of a capture or pawn move with this WDL (for the side that plays it)."""
    return {2: 1, 1: 101, 0: 0, -1: -101, -2: -1}[wdl]


class Tablebases:
    """Open Syzygy tables from ``paths`` (directories separated by os.pathsep or ';')."""

    def __init__(self, paths: str) -> None:
        dirs = [d for d in paths.replace(";", os.pathsep).split(os.pathsep) if d.strip()]
        missing = [d for d in dirs if not os.path.isdir(d)]
        if not dirs or missing:
            raise ValueError(f"SyzygyPath: no such directory {', '.join(missing) or paths!r}")
        self._tables = chess.syzygy.Tablebase()
        found = sum(self._tables.add_directory(d) for d in dirs)
        if found == 0:
            raise ValueError(f"SyzygyPath: no Syzygy tables (.rtbw/.rtbz) in {paths!r}")
        names = list(self._tables.wdl)
        self.max_pieces = max(len(n) - 1 for n in names)  # "KQvK" has 3 pieces
        self.count = found

        self._board = chess.Board(None)
        self._wdl: dict[int, int | None] = {}

    def close(self) -> None:
        self._tables.close()

    def in_tree_result(self, board: chess.Board) -> int | None:
        """The exact result of a tree node for the side that moved into it (WIN, DRAW, LOSS of
        engine.mcts), or None when the tables don't decide it (see the module docstring)."""
        if (board.halfmove_clock != 0 or board.castling_rights
                or chess.popcount(board.occupied) > self.max_pieces):
            return None
        try:
            wdl = self._tables.probe_wdl(board)
        except (KeyError, chess.syzygy.MissingTableError):
            return None
        return result_of_wdl(wdl)

    def probe_bitboards(self, key: int, white: int, black: int, pawns: int, knights: int,
                        bishops: int, rooks: int, queens: int, kings: int, turn: int,
                        ep: int) -> int | None:
        """``in_tree_result`` for a position given as bitboards (python-chess squares), reached
        by a capture or pawn move with no castling rights; cached by the position ``key``.
        The C gatherer calls this, so no chess.Board is built unless the cache misses."""
        if key in self._wdl:
            return self._wdl[key]
        b = self._board
        b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK] = white, black
        b.occupied = white | black
        b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings = (
            pawns, knights, bishops, rooks, queens, kings)
        b.promoted = chess.BB_EMPTY
        b.turn = bool(turn)
        b.ep_square = ep if ep >= 0 else None
        b.castling_rights = chess.BB_EMPTY
        b.halfmove_clock = 0
        result = self.in_tree_result(b)
        if len(self._wdl) >= TREE_CACHE:
            self._wdl.clear()
        self._wdl[key] = result
        return result

    def root_moves(self, board: chess.Board) -> list[chess.Move] | None:
        """The moves that keep the tables' result, best first; None when the tables don't apply."""
        if chess.popcount(board.occupied) > self.max_pieces or board.castling_rights:
            return None
        scored: list[tuple[int, int, chess.Move]] = []
        try:
            for move in board.legal_moves:
                board.push(move)
                try:
                    if board.is_checkmate():
                        wdl, dtz = 2, 0
                    else:
                        # Probes are for the opponent, now to move: negate for us.
                        wdl = -self._tables.probe_wdl(board)
                        # A capture or pawn move is itself the zeroing move: it counts one ply
                        # (Stockfish's dtz_before_zeroing), not the next stretch's DTZ, else a
                        # won capture would wait forever behind quicker-looking quiet moves.
                        dtz = (_dtz_of_zeroing(wdl) if board.halfmove_clock == 0
                               else -self._tables.probe_dtz(board))
                finally:
                    board.pop()
                scored.append((wdl, dtz, move))
        except (KeyError, chess.syzygy.MissingTableError):
            return None
        if not scored:
            return None
        best = max(w for w, _, _ in scored)
        keep = [(dtz, m) for w, dtz, m in scored if w == best]
        if best > 0:
            # A win: the fastest way to the next zeroing move (dtz counts from our side: lower
            # positive is sooner), so the 50-move rule cannot intervene.
            fastest = min(abs(d) for d, _ in keep)
            return [m for d, m in keep if abs(d) == fastest]
        if best < 0:
            slowest = max(abs(d) for d, _ in keep)
            return [m for d, m in keep if abs(d) == slowest]
        return [m for _, m in keep]
