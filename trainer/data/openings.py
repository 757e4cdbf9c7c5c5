"""Opening lines for matches and self-play: a PGN book read by index (only the chosen games are
parsed), Chess960 start positions, and the start position."""

from __future__ import annotations

import io
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

@dataclass(frozen=True)
class Opening:
    """A book line: from ``fen``, ``moves``; ``index`` is the game's place in its file."""

    index: int
    fen: str
    moves: tuple[chess.Move, ...]
    eco: str | None = None
    chess960: bool = False
    """a Chess960 game (python-chess then tells engines UCI_Chess960 and writes castling as
    the king taking its rook)"""

    def board(self) -> chess.Board:
        """The position after the line."""
        board = chess.Board(self.fen, chess960=self.chess960)
        for move in self.moves:
            board.push(move)
        return board

    @property
    def name(self) -> str:
        """The line in SAN, e.g. ``1. Nf3 d5 2. g3 c6``; a Chess960 start by its number."""
        board = chess.Board(self.fen, chess960=self.chess960)
        if self.moves:
            return board.variation_san(list(self.moves))
        if self.chess960:
            return f"Chess960 #{board.chess960_pos()}"
        return "-"


def chess960_openings(count: int, seed: int | None = None) -> list[Opening]:
    """``count`` Chess960 start positions (cutechess's ``-variant fischerandom``): distinct,
    drawn with ``seed`` (None: 0) from the 960."""
    rng = random.Random(0 if seed is None else seed)
    numbers = rng.sample(range(960), min(count, 960))
    return [Opening(n, chess.Board.from_chess960_pos(n).fen(), (), chess960=True)
            for n in numbers]


START = Opening(-1, chess.STARTING_FEN, ())

_TAG_RE = re.compile(r'^\s*\[[A-Za-z0-9_]+\s+".*"\]\s*$')


def _game_starts(text: str) -> list[int]:
    """Character offsets where a game's tag section begins."""
    starts: list[int] = []
    in_tags = False
    pos = 0
    for line in text.splitlines(keepends=True):
        if _TAG_RE.match(line):
            if not in_tags:
                starts.append(pos)
                in_tags = True
        elif line.strip():
            in_tags = False
        pos += len(line)
    return starts


def read_openings(path: str | os.PathLike[str], count: int, offset: int = 0,
                  seed: int | None = None, plies: int | None = None) -> list[Opening]:
    """``count`` openings from a PGN file: games ``offset, offset+1, ...`` (wrapping at the
    end), or with ``seed`` a random sample (repeatable) of the games from ``offset`` on.

    ``plies`` cuts each line to its first plies (cutechess's ``-openings ... plies=N``) and
    keeps only lines not already taken, so a book of 8-move lines gives distinct short starts,
    e.g. for a match that measures an opening book, which needs the early plies left to play.

    Only the chosen games are parsed (the file is indexed by its tag sections first), so a
    34,700-game book costs a fraction of a second. Games that will not parse are skipped.
    """
    if count <= 0:
        return []
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    starts = _game_starts(text)
    if not starts:
        raise ValueError(f"{path}: no PGN games found")
    total = len(starts)
    if not 0 <= offset < total:
        raise ValueError(f"{path}: offset {offset} outside its {total} games")
    order: list[int]
    if seed is None:
        order = [(offset + i) % total for i in range(total)]
    else:
        pool = list(range(offset, total))
        random.Random(seed).shuffle(pool)
        order = pool + [i for i in range(offset)]
    ends = starts[1:] + [len(text)]
    if plies is not None and plies < 0:
        raise ValueError(f"opening plies must be >= 0, not {plies}")
    result: list[Opening] = []
    taken: set[tuple[str, tuple[chess.Move, ...]]] = set()
    for idx in order:
        game = chess.pgn.read_game(io.StringIO(text[starts[idx]:ends[idx]]))
        if game is None or game.errors:
            continue
        moves = tuple(game.mainline_moves())
        eco = game.headers.get("ECO") or game.headers.get("Eco")
        if plies is not None:
            moves = moves[:plies]
            if (game.board().fen(), moves) in taken:
                continue
            taken.add((game.board().fen(), moves))
            eco = None  # the code named the whole line
        result.append(Opening(idx, game.board().fen(), moves, eco))
        if len(result) == count:
            break
    if not result:
        raise ValueError(f"{path}: no readable games")
    found = len(result)
    while len(result) < count:  # fewer games than asked for: repeat them
        result.append(result[len(result) % found])
    return result


def load_openings(path: str | None, count: int, offset: int = 0,
                  seed: int | None = None, plies: int | None = None) -> list[Opening] | None:
    """Openings for a match (None: from the start position)."""
    if path is None or path.lower() == "none":
        return None
    if not Path(path).is_file():
        raise FileNotFoundError(path)
    return read_openings(path, count, offset, seed, plies)
