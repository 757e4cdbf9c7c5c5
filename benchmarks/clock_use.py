"""How each engine of a match spent its clock, from the ``[%clk]`` comments of its PGN.

    python benchmarks/clock_use.py runs/sf1800/i4-vnni-c1.pgn [more.pgn ...]

For each engine (by name): the moves timed, the seconds a move took (quantiles 10/25/50/75/90%
and the mean; the clock's drop plus the increment, so the GUI's lag is in it), the share of
moves under 0.12 s, and its clock at the end of the game (median). With an opening book
(``OwnBook``; the runner marks those moves ``own book``): the engine's book moves a game, the
ply at which it left the book (the game's ply at its first searched move, opening included),
and its clock after its 20th move (the clock the book saved). ``median_by_moves``: the median
seconds a move over moves 1-10, 11-20, ... and 61 on, which say where in the game each engine
spends. The base and increment come from the ``TimeControl`` header, read by the match runner's
own parser. A ``.pgn.partial`` of a stopped match reads the same way.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict

import chess
import chess.pgn
import numpy as np

from trainer.arena.match import OWN_BOOK, TimeControl


TENS = 6
"""``median_by_moves`` groups moves by tens up to this many tens, and the rest in one group."""


def clock_use(paths: list[str]) -> dict[str, dict[str, object]]:
    spent: dict[str, list[float]] = defaultdict(list)
    ends: dict[str, list[float]] = defaultdict(list)
    book_moves: dict[str, list[int]] = defaultdict(list)
    exits: dict[str, list[int]] = defaultdict(list)
    at_move_20: dict[str, list[float]] = defaultdict(list)
    by_tens: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open  # results keep their PGNs gzipped
        with opener(path, "rt", encoding="utf-8") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                try:
                    tc = TimeControl.parse(game.headers.get("TimeControl", ""))
                except ValueError:
                    continue  # no time control the match runner writes
                if tc.base is None:
                    continue  # nodes a move: no clock
                base, inc = tc.base, tc.increment
                names = {chess.WHITE: game.headers["White"], chess.BLACK: game.headers["Black"]}
                last = {chess.WHITE: base, chess.BLACK: base}
                booked = {chess.WHITE: 0, chess.BLACK: 0}
                left_book: dict[chess.Color, int] = {}
                node: chess.pgn.GameNode = game
                while node.variations:
                    nxt = node.variations[0]
                    side = node.turn()
                    left = nxt.clock()
                    if left is not None:  # a move the engine played (not the opening's)
                        took = last[side] - left + inc
                        spent[names[side]].append(took)
                        by_tens[names[side]][min(node.ply() // 20, TENS)].append(took)
                        last[side] = left
                        if OWN_BOOK in nxt.comment:
                            booked[side] += 1
                        else:
                            left_book.setdefault(side, node.ply())
                        if node.ply() // 2 + 1 == 20:
                            at_move_20[names[side]].append(left)
                    node = nxt
                for side, name in names.items():
                    ends[name].append(last[side])
                    book_moves[name].append(booked[side])
                    exits[name].append(left_book.get(side, node.ply()))
    out: dict[str, dict[str, object]] = {}
    for name, times in sorted(spent.items()):
        t = np.array(times)
        out[name] = {
            "moves": len(t),
            "seconds_q10_25_50_75_90": [round(float(x), 3)
                                        for x in np.quantile(t, [0.1, 0.25, 0.5, 0.75, 0.9])],
            "mean": round(float(t.mean()), 3),
            "under_0.12s": round(float((t < 0.12).mean()), 3),
            "games": len(ends[name]),
            "clock_left_at_end_median": round(float(np.median(ends[name])), 2),
            "median_by_moves": {
                (f"{10 * k + 1}-{10 * k + 10}" if k < TENS else f"{10 * k + 1}+"):
                round(float(np.median(v)), 3) for k, v in sorted(by_tens[name].items())}}
        if any(book_moves[name]):
            out[name].update({
                "own_book_moves_per_game": round(float(np.mean(book_moves[name])), 2),
                "games_with_a_book_move": sum(1 for n in book_moves[name] if n),
                "book_exit_ply_mean": round(float(np.mean(exits[name])), 2)})
        if at_move_20[name]:
            out[name]["clock_after_move_20_mean"] = round(float(np.mean(at_move_20[name])), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="+")
    for name, row in clock_use(ap.parse_args().pgn).items():
        print(json.dumps({"engine": name, **row}))


if __name__ == "__main__":
    main()
