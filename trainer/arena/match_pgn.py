"""A match's finished games read back from its PGN, so that an interrupted match resumes.

A 200-game match at 10+0.1 on two cores takes over an hour; a session, a machine or a Ctrl-C
can end it first. ``play_match`` writes each finished game to ``PATH.partial`` as it ends and
all of them to ``PATH`` at the end, so whatever stopped it, one of the two holds every game
that finished. :func:`played_games` reads them back as :class:`GameRecord` (result,
termination, failure, moves and clocks) for ``play_match(previous=...)``, which then plays only
the games not yet played. A file from another match (other engines, another time control,
other openings) is refused rather than mixed in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import chess
import chess.pgn

from trainer.arena.match import _TERMINATION, OWN_BOOK, Failure, GameRecord, TimeControl
from trainer.data.openings import START, Opening

_KIND = {termination: kind for kind, termination in _TERMINATION.items()}


def played_games(pgn_path: str | os.PathLike[str], engine_a: str, engine_b: str,
                 openings: Sequence[Opening] | None, tc: TimeControl) -> list[GameRecord]:
    """The finished games of the match A vs B written at ``pgn_path`` (and its ``.partial``),
    in game order; none if neither file exists. ``openings`` and ``tc`` are the match's own:
    game ``k`` (from 1) must start from ``openings[(k - 1) // 2]`` with A White in odd games,
    as ``play_match`` plays them. Raises ValueError on a game that does not fit."""
    path = Path(pgn_path)
    book = list(openings) if openings else [START]
    found: dict[int, GameRecord] = {}
    for p in (path, path.with_name(path.name + ".partial")):
        if not p.exists():
            continue
        with open(p, encoding="utf-8") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                rec = _record(game, engine_a, engine_b, book, tc, p)
                found.setdefault(rec.number, rec)
    return [found[k] for k in sorted(found)]


def _record(game: chess.pgn.Game, engine_a: str, engine_b: str, book: list[Opening],
            tc: TimeControl, source: Path) -> GameRecord:
    h = game.headers
    where = f"{source}, round {h.get('Round', '?')}"
    try:
        number = int(h.get("Round", ""))
    except ValueError:
        raise ValueError(f"{where}: not a game of this match (no game number)") from None
    if number < 1:
        raise ValueError(f"{where}: game numbers start at 1")
    if {h.get("White"), h.get("Black")} != {engine_a, engine_b}:
        raise ValueError(f"{where}: played by {h.get('White')} and {h.get('Black')}, "
                         f"not {engine_a} and {engine_b}")
    if h.get("TimeControl") != tc.pgn_tag():
        raise ValueError(f"{where}: time control {h.get('TimeControl')}, not {tc.pgn_tag()}")
    result = h.get("Result", "*")
    if result not in ("1-0", "0-1", "1/2-1/2"):
        raise ValueError(f"{where}: result {result!r} is not a finished game")
    a_white = h["White"] == engine_a
    if a_white != (number % 2 == 1):
        raise ValueError(f"{where}: {engine_a} has the wrong colour for this game number")
    opening = book[((number - 1) // 2) % len(book)]
    nodes = list(game.mainline())
    played = [n.move for n in nodes]
    # play_match marks the opening's last move "book"
    book_plies = next((i + 1 for i, n in enumerate(nodes) if n.comment.startswith("book")), 0)
    if game.board().fen() != chess.Board(opening.fen, chess960=opening.chess960).fen() \
            or book_plies != len(opening.moves) or played[:book_plies] != list(opening.moves):
        raise ValueError(f"{where}: opens with other moves than this match's opening "
                         f"{opening.name!r} (resume with the same openings)")
    rest = nodes[len(opening.moves):]
    rec = GameRecord(number, opening, h["White"], h["Black"], a_white,
                     moves=[n.move for n in rest], clocks=[n.clock() for n in rest],
                     own_book=[OWN_BOOK in n.comment for n in rest],
                     result=result, termination=h.get("Termination", "normal"),
                     reason=h.get("TerminationDetails", ""))
    kind = _KIND.get(rec.termination)
    if kind is not None:
        loser = h["White"] if result == "0-1" else h["Black"]
        rec.failure = Failure(kind, loser, number, len(played) + 1, rec.reason)
    return rec
