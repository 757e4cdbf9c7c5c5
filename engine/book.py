"""An opening book in the engine: any Polyglot ``.bin`` (read by python-chess).

A book move is chosen among the entries for the position whose weight is at least
``100 - variety`` percent of the best entry's, in proportion to their weights: variety 0 plays
the heaviest move, 100 any book move as often as its weight says.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import chess
import chess.polyglot
import numpy as np


@dataclass(frozen=True)
class BookMove:
    """A move from the book, with its weight and the position's total weight."""

    move: chess.Move
    weight: int
    total: int


class Book:
    """A Polyglot book file, opened (memory-mapped) once; ValueError for a bad file."""

    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise ValueError(f"BookFile: no such file {path!r}")
        if os.path.getsize(path) % 16:
            raise ValueError(f"BookFile: {path!r} is not a Polyglot book (size not a multiple "
                             f"of 16 bytes)")
        self.path = path
        self._reader = chess.polyglot.open_reader(path)

    def close(self) -> None:
        self._reader.close()

    def __len__(self) -> int:
        return len(self._reader)

    def choose(self, board: chess.Board, variety: int,
               rng: np.random.Generator) -> BookMove | None:
        """A book move for ``board`` (see the module docstring), or None when it is not in the
        book. Moves illegal here (a hash collision) are skipped."""
        entries = [e for e in self._reader.find_all(board) if e.weight > 0]
        entries = [e for e in entries if e.move in board.legal_moves]
        if not entries:
            return None
        best = max(e.weight for e in entries)
        floor = best * (100 - max(0, min(100, variety))) / 100
        kept = [e for e in entries if e.weight >= floor]
        total = sum(e.weight for e in entries)
        w = np.array([e.weight for e in kept], dtype=np.float64)
        e = kept[0] if len(kept) == 1 else kept[int(rng.choice(len(kept), p=w / w.sum()))]
        return BookMove(e.move, e.weight, total)
