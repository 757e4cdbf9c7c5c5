"""Where a match's games were decided, read from material alone: how many of an engine's losses
came after it fell behind by a piece, how many of its draws it had been a piece up, and, with
Syzygy tables, which games reached a 3-4 piece ending the tables call won for it (or drawn) that
it did not win (or lost).

    python benchmarks/match_material.py GAMES.pgn --name zerosum [--syzygy DIR] [--lead 3]

Why: against Stockfish at UCI_Elo 2000 the bundled net scores about a third, and the score alone
does not say whether the games were lost to tactics (material dropped in the middlegame) or drawn
from won endings (technique the teacher's adjudicated games never show). A lead counts when it
holds for ``--hold`` plies in a row (6: an exchange in progress is not a lead), from ply 20 on.
Prints one JSON object; ``by_course`` splits the games into led, led and trailed, trailed and
neither, which add up to the games; ``led_from_move`` and ``trailed_from_move`` give the quartiles
of the move at which a lead or a deficit began (the game's move number), which say whether the
games were lost in the middlegame or late, when the clock is down to its increment.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import chess.syzygy
import numpy as np

VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
         chess.KING: 0}


def material(board: chess.Board, side: chess.Color) -> int:
    """Pawn units of ``side`` minus its opponent's."""
    return sum(VALUE[p.piece_type] * (1 if p.color == side else -1)
               for p in board.piece_map().values())


def held(balance: list[int], hold: int, start: int = 20) -> tuple[int, int]:
    """The largest lead and the deepest deficit that lasted ``hold`` plies in a row."""
    windows = [balance[i:i + hold] for i in range(start, len(balance) - hold + 1)]
    return (max((min(w) for w in windows), default=0), min((max(w) for w in windows), default=0))


def first_held(balance: list[int], hold: int, lead: int, start: int = 20
               ) -> tuple[int | None, int | None]:
    """The first index of ``balance`` at which a lead of ``lead``, and a deficit of as much,
    began and lasted ``hold`` plies in a row (None where there was none)."""
    up = down = None
    for i in range(start, len(balance) - hold + 1):
        w = balance[i:i + hold]
        up = i if up is None and min(w) >= lead else up
        down = i if down is None and max(w) <= -lead else down
    return up, down


def quartiles(values: list[int]) -> dict[str, object]:
    """How many, and their 25/50/75% quantiles (None for none)."""
    q = np.percentile(values, [25, 50, 75]).tolist() if values else None
    return {"games": len(values), "q25_50_75": q}


def course(most: int, least: int, lead: int) -> str:
    """Which of four kinds of game ``held``'s figures make: "led" (never trailed), "led and
    trailed", "trailed" (never led) or "neither". Why: led_by_result and trailed_by_result
    count a game that did both twice; these four add up to the games."""
    up, down = most >= lead, least <= -lead
    return ("led and trailed" if down else "led") if up else ("trailed" if down else "neither")


def summarize(pgn: Path, name: str, tables: chess.syzygy.Tablebase | None = None,
              lead: int = 3, hold: int = 6) -> dict[str, object]:
    """The counts the module's docstring describes, for the games of ``pgn``."""
    results: Counter[str] = Counter()
    ahead: Counter[str] = Counter()
    behind: Counter[str] = Counter()
    by_course: dict[str, Counter[str]] = {k: Counter() for k in
                                          ("led", "led and trailed", "trailed", "neither")}
    endings: list[dict[str, object]] = []
    began: dict[str, list[int]] = {"led": [], "trailed": []}
    with pgn.open() as f:
        number = 0
        while (game := chess.pgn.read_game(f)) is not None:
            number += 1
            side = game.headers["White"].startswith(name)
            r = game.headers["Result"]
            if r not in ("1-0", "0-1", "1/2-1/2"):
                continue  # unfinished (a match's .partial file): neither a loss nor a win
            res = "draw" if r == "1/2-1/2" else "win" if (r == "1-0") == side else "loss"
            results[res] += 1
            board, balance, table_wdl = game.board(), [], None
            move_number: list[int] = []
            for move in game.mainline_moves():
                move_number.append(board.fullmove_number)
                board.push(move)
                balance.append(material(board, side))
                if (tables is not None and table_wdl is None and len(board.piece_map()) <= 4
                        and not board.castling_rights):
                    wdl = tables.probe_wdl(board)
                    table_wdl = wdl if board.turn == side else -wdl
            most, least = held(balance, hold)
            ahead[res] += most >= lead
            behind[res] += least <= -lead
            by_course[course(most, least, lead)][res] += 1
            for kind, i in zip(("led", "trailed"), first_held(balance, hold, lead)):
                if i is not None:
                    began[kind].append(move_number[i])
            outcome = {"win": 2, "draw": 0, "loss": -2}[res]
            # A cursed win or blessed loss (+-1) is a draw under the 50-move rule.
            if table_wdl is not None and (table_wdl if abs(table_wdl) == 2 else 0) != outcome:
                endings.append({"game": number, "result": res, "tables": table_wdl,
                                "termination": game.headers.get("TerminationDetails", "")})
    return {"pgn": str(pgn), "name": name, "games": sum(results.values()),
            "results": dict(results), "lead": lead, "hold": hold,
            "led_by_result": dict(ahead), "trailed_by_result": dict(behind),
            "by_course": {k: dict(v) for k, v in by_course.items()},
            "led_from_move": quartiles(began["led"]),
            "trailed_from_move": quartiles(began["trailed"]),
            "table_endings_not_as_tables_say": endings if tables is not None else None}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn", type=Path)
    ap.add_argument("--name", required=True, help="the engine's name, or a prefix of it")
    ap.add_argument("--syzygy", type=Path, help="a folder of 3-4 piece Syzygy tables")
    ap.add_argument("--lead", type=int, default=3, help="pawn units that count as a lead")
    ap.add_argument("--hold", type=int, default=6, help="plies a lead must last")
    args = ap.parse_args(argv)
    tables = chess.syzygy.open_tablebase(str(args.syzygy)) if args.syzygy else None
    print(json.dumps(summarize(args.pgn, args.name, tables, args.lead, args.hold)))


if __name__ == "__main__":
    main()
