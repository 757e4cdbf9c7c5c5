"""Syzygy tablebases at the root, through python-chess: play the endgame the tables know.

With few enough pieces on the board (and no castling rights), the root's moves are narrowed to
the ones that keep the tables' verdict, and among winning moves to those that reach the next
capture or pawn move soonest (lowest DTZ), so the win is never lost to the 50-move rule. The
search then chooses among them, as Stockfish does with its root move filtering.
"""

from __future__ import annotations

import os

import chess
import chess.syzygy

TB_PLIES = 4096
"""``bound_plies`` offset of a node the tables won or lost: the tables give no distance to mate,
and a real mate in the tree (at most the tree's 1024 plies) must always rank before them, so a
tablebase result counts as this many plies, plus the plies from the root to the probed node."""
TB_WIN_CP = 20000
"""Centipawns reported for a tablebase win (Stockfish's convention), less the plies to reach it."""


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

    def close(self) -> None:
        self._tables.close()

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
                        dtz = -self._tables.probe_dtz(board)
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
